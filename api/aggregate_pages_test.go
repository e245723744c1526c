package api_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/transform"
)

// aggregateSeed stores polls of several sources, numbering their stories
// across sources in the order the polls are stored, as the aggregate's
// numbers follow publication: "Story n", newest on top, every 25th "at the
// bridge". A copy is a new story of its own number that the poll records
// as a duplicate of an earlier one.
type aggregateSeed struct {
	t       *testing.T
	store   dynamo.Store
	next    int            // the next story number
	source  map[int]string // each story's source
	copies  map[int]bool   // the stories recorded as copies
	at      time.Time
	sources []string
}

func (a *aggregateSeed) itemOf(source string, n int) dynamo.Item {
	link := fmt.Sprintf("http://127.0.0.1/%s/story/%d", source, n)
	title := fmt.Sprintf("Story %d", n)
	if n%25 == 0 {
		title += " at the bridge"
	}
	text := fmt.Sprintf("The story numbered %d.", n)
	return dynamo.Item{ID: dynamo.ItemID(link, true, "", ""), Title: title, Link: link, Description: "<p>" + text + "</p>", Text: text}
}

// poll stores a version of source with k new stories and, for each
// primary given, a copy of that earlier story.
func (a *aggregateSeed) poll(source string, k int, primaries ...int) {
	a.t.Helper()
	ctx := context.Background()
	var stories []int
	var dups []dynamo.Duplicate
	for range k {
		stories = append(stories, a.next)
		a.next++
	}
	for _, p := range primaries {
		n := a.next
		a.next++
		stories = append(stories, n)
		a.copies[n] = true
		primary := dynamo.ItemKey{SourceID: a.source[p], ItemID: a.itemOf(a.source[p], p).ID}
		dups = append(dups, dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: source, ItemID: a.itemOf(source, n).ID},
			Primary: primary, Matched: primary, Rule: "test", Score: 1})
	}
	doc := &dynamo.Resource{URL: "http://127.0.0.1/" + source, RSSID: source, Timestamp: a.at,
		Channel: dynamo.Channel{Title: "News of " + source, Link: "http://127.0.0.1/" + source}}
	for i := len(stories) - 1; i >= 0; i-- { // newest on top
		it := a.itemOf(source, stories[i])
		it.Index = len(doc.Items) + 1
		doc.Items = append(doc.Items, it)
		a.source[stories[i]] = source
	}
	at := a.at
	if _, err := a.store.LeaseSource(ctx, source, "seed", at, time.Minute); err != nil {
		a.t.Fatal(err)
	}
	_, err := a.store.RecordPoll(ctx, dynamo.PollRecord{SourceID: source, Owner: "seed", At: at, Document: doc},
		func(r dynamo.PollResult) dynamo.PollUpdate {
			return dynamo.PollUpdate{State: dynamo.PollState{LastPoll: at, NextPoll: at.Add(time.Hour), LastChange: at,
				LastStatus: dynamo.StatusChanged}, Log: dynamo.PollLogEntry{At: at, Status: dynamo.StatusChanged, NewItems: len(r.NewItems)},
				Duplicates: dups}
		})
	if err != nil {
		a.t.Fatalf("poll %s: %v", source, err)
	}
	a.at = a.at.Add(time.Minute)
}

// want lists the stories, newest first, that keep says a walk shows.
func (a *aggregateSeed) want(keep func(n int) bool) []int {
	return countdown(a.next-1, keep)
}

// TestAggregateArchivedFeedWalk reads the aggregate of three sources as an
// archived feed (RFC 5005 §4) in every feed format: every story once,
// newest first, no page over 100; after more polls, copies of earlier
// stories among them, the archive pages keep their bytes and ETags and
// answer 304; dups=include, a keyword and a category walk give exactly
// their items; the pages validate and feedparser walks them.
func TestAggregateArchivedFeedWalk(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store, seeded := openSeedable(t, name)
			seeded()
			testAggregateWalk(t, store)
		})
	}
}

func testAggregateWalk(t *testing.T, store dynamo.Store) {
	e := newEnv(t, store)
	e.addSource("a", "/a.html", `"category":"local"`)
	e.addSource("b", "/b.html", `"category":"local"`)
	e.addSource("c", "/c.html", `"category":"world"`)
	seed := &aggregateSeed{t: t, store: store, source: map[int]string{}, copies: map[int]bool{},
		at: time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC), sources: []string{"a", "b", "c"}}
	for p := 0; seed.next < 1_050; p++ {
		seed.poll(seed.sources[p%3], 5+(p*37)%60)
	}
	all := seed.want(nil)
	var rss2 []archivedDoc
	for _, f := range []transform.Format{transform.RSS2, transform.RSS1, transform.Atom, transform.JSON} {
		path := "/aggregate?page=current"
		if f != transform.RSS2 {
			path += "&type=" + string(f)
		}
		docs := e.walk(path, f)
		if len(docs) != seed.next/100+1 {
			t.Fatalf("%s: %d documents; want the subscription document and %d pages", f, len(docs), seed.next/100)
		}
		checkStories(t, "aggregate "+string(f), storiesOf(docs), all)
		if f == transform.RSS2 {
			rss2 = docs
		}
	}
	verify.Atom(t, e.get("/aggregate?page=1&type=atom").must(t, http.StatusOK, "page 1").body)
	verify.Feed(t, e.get("/aggregate?page=2&type=rss1").body, "rss10")
	verify.Feed(t, e.get("/aggregate?page=3").body, "rss20")
	e.get("/aggregate?page="+strconv.Itoa(seed.next/100+1)).must(t, http.StatusNotFound, "a page not full yet")

	// More polls: new stories, and copies of stories on archive pages
	// and on the subscription document, in other sources.
	for p := range 12 {
		src := seed.sources[p%3]
		var primaries []int
		for _, n := range []int{seed.next - 700 - p, seed.next - 5 - p} {
			for seed.source[n] == src || seed.copies[n] {
				n--
			}
			primaries = append(primaries, n)
		}
		seed.poll(src, 3+p*5, primaries...)
	}
	// A copy numbered on its primary's page: the page names it.
	if seed.next%100 == 0 {
		seed.poll("b", 1)
	}
	recent := seed.next - 1
	for seed.copies[recent] {
		recent--
	}
	seed.poll(map[string]string{"a": "b", "b": "c", "c": "a"}[seed.source[recent]], 0, recent)
	if recent/100 != (seed.next-1)/100 {
		t.Fatalf("story %d and its copy %d are on different pages: the test needs them on one", recent, seed.next-1)
	}
	notCopy := func(n int) bool { return !seed.copies[n] }
	waitFor(t, "the new items", func() error {
		if d := readArchived(t, e.get("/aggregate?page=current&dups=include").body, transform.RSS2); len(d.stories) == 0 || d.stories[0] != seed.next-1 {
			return fmt.Errorf("the subscription document starts with %v: %w", d.stories[:min(len(d.stories), 1)], errNotYet)
		}
		return nil
	})
	after := e.walk("/aggregate?page=current", transform.RSS2)
	checkStories(t, "after more polls", storiesOf(after), seed.want(notCopy))
	full := len(rss2) - 1
	for j := 1; j <= full; j++ {
		was, now := rss2[j], after[len(after)-full+j-1]
		if now.etag != was.etag || !bytes.Equal(now.body, was.body) {
			t.Fatalf("aggregate archive page %d changed after more polls: ETag %s, was %s", full-j+1, now.etag, was.etag)
		}
	}
	e.get(strings.TrimPrefix(rss2[1].prev, e.http.URL), "If-None-Match", rss2[2].etag).must(t, http.StatusNotModified, "a known archive page")
	if !strings.Contains(string(after[0].body), fmt.Sprintf("Story %d</title>", recent)) || !strings.Contains(string(after[0].body), "also in") {
		t.Errorf("the subscription document does not name the other source of story %d, copied since on the same page", recent)
	}

	checkStories(t, "dups=include", storiesOf(e.walk("/aggregate?page=current&dups=include", transform.RSS2)), seed.want(nil))
	bridges := e.walk("/aggregate?page=current&title=bridge&type=json", transform.JSON)
	checkStories(t, "title=bridge", storiesOf(bridges), seed.want(func(n int) bool { return n%25 == 0 && notCopy(n) }))
	if len(bridges) > len(seed.want(func(n int) bool { return n%25 == 0 }))+1 {
		t.Errorf("title=bridge walked %d documents: pages without a match were linked", len(bridges))
	}
	local := func(n int) bool { return notCopy(n) && seed.source[n] != "c" }
	checkStories(t, "category=local", storiesOf(e.walk("/aggregate?page=current&category=local&type=atom", transform.Atom)), seed.want(local))

	// A reader we did not write walks the same way.
	pages := verify.WalkArchive(t, e.http.URL+"/aggregate?page=current&type=atom", "atom10")
	var read []string
	for i, p := range pages {
		if len(p.IDs) > 100 {
			t.Errorf("feedparser read %d entries at %s", len(p.IDs), p.URL)
		}
		if p.Archive == (i == 0) {
			t.Errorf("feedparser reads fh:archive %v at %s", p.Archive, p.URL)
		}
		read = append(read, p.IDs...)
	}
	sorted := slices.Clone(read)
	slices.Sort(sorted)
	if len(read) != len(seed.want(notCopy)) || len(slices.Compact(sorted)) != len(read) {
		t.Fatalf("feedparser walked %d documents, %d entries (%d distinct); want %d, each once", len(pages), len(read), len(sorted), len(seed.want(notCopy)))
	}

	for _, bad := range []string{"page=0", "page=1&max=5", "page=current&since=2026-01-01", "page=1&index=1", "page=current&xpath=//item"} {
		e.get("/aggregate?"+bad).must(t, http.StatusBadRequest, bad)
	}
}
