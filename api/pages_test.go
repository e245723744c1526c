package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
	"github.com/dynamo-feeds/dynamo/transform"
)

// archivedDoc is what the test reads of one document of an archived feed,
// in any format: its entries' story numbers (from their titles, "Story n"),
// its prev-archive and current links, whether it says fh:archive.
type archivedDoc struct {
	stories             []int
	prev, next, current string
	archive             bool
	etag, cacheControl  string
	body                []byte
}

// readArchived parses a document of an archived feed in format f.
func readArchived(t testing.TB, body []byte, f transform.Format) archivedDoc {
	t.Helper()
	var d archivedDoc
	story := func(title string) {
		fields := strings.Fields(title)
		if len(fields) < 2 || fields[0] != "Story" {
			t.Fatalf("entry title %q is no story", title)
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil {
			t.Fatalf("entry title %q is no story", title)
		}
		d.stories = append(d.stories, n)
	}
	if f == transform.JSON {
		var doc struct {
			NextURL string `json:"next_url"`
			Items   []struct {
				Title string `json:"title"`
			} `json:"items"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("JSON Feed: %v", err)
		}
		d.prev = doc.NextURL
		for _, it := range doc.Items {
			story(it.Title)
		}
		return d
	}
	const nsAtom, nsFH = "http://www.w3.org/2005/Atom", "http://purl.org/syndication/history/1.0"
	dec := xml.NewDecoder(bytes.NewReader(body))
	depth, inEntry := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s document: %v", f, err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			name := el.Name.Local
			switch {
			case name == "item" || name == "entry":
				inEntry = depth
			case name == "title" && inEntry > 0 && depth == inEntry+1:
				var title string
				if err := dec.DecodeElement(&title, &el); err != nil {
					t.Fatal(err)
				}
				depth--
				story(title)
			case el.Name.Space == nsFH && name == "archive":
				d.archive = true
			case el.Name.Space == nsAtom && name == "link" && inEntry == 0:
				var rel, href string
				for _, a := range el.Attr {
					switch a.Name.Local {
					case "rel":
						rel = a.Value
					case "href":
						href = a.Value
					}
				}
				switch rel {
				case "prev-archive":
					d.prev = href
				case "next":
					d.next = href
				case "current":
					d.current = href
				}
			}
		case xml.EndElement:
			if depth == inEntry {
				inEntry = 0
			}
			depth--
		}
	}
	if d.next != d.prev {
		t.Errorf("%s document: rel=next %q, rel=prev-archive %q: want the same older page", f, d.next, d.prev)
	}
	return d
}

// seedStories stores n stories in versions of at most 5,000 new items each
// (the default --max-items), numbered from first, straight into the store:
// a poll per version, not per item.
func seedStories(t testing.TB, store dynamo.Store, id string, first, n int, at time.Time) {
	t.Helper()
	ctx := context.Background()
	for start := first; start < first+n; start += 5000 {
		end := min(start+5000, first+n)
		doc := &dynamo.Resource{URL: "http://127.0.0.1/" + id, RSSID: id, Timestamp: at,
			Channel: dynamo.Channel{Title: "Big news", Link: "http://127.0.0.1/" + id, Description: "Many stories."}}
		for k := end - 1; k >= start; k-- { // newest on top, as pages list them
			link := fmt.Sprintf("http://127.0.0.1/%s/story/%d", id, k)
			title := fmt.Sprintf("Story %d", k)
			if k%250 == 0 {
				title += " at the bridge"
			}
			text := fmt.Sprintf("The story numbered %d.", k)
			doc.Items = append(doc.Items, dynamo.Item{Index: len(doc.Items) + 1, ID: dynamo.ItemID(link, true, "", ""),
				Title: title, Link: link, Description: "<p>" + text + "</p>", Text: text})
		}
		if _, err := store.LeaseSource(ctx, id, "seed", at, time.Minute); err != nil {
			t.Fatal(err)
		}
		_, err := store.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: "seed", At: at, Document: doc},
			func(r dynamo.PollResult) dynamo.PollUpdate {
				return dynamo.PollUpdate{State: dynamo.PollState{LastPoll: at, NextPoll: at.Add(time.Hour), LastChange: at,
					LastStatus: dynamo.StatusChanged}, Log: dynamo.PollLogEntry{At: at, Status: dynamo.StatusChanged, NewItems: len(r.NewItems)}}
			})
		if err != nil {
			t.Fatalf("seed stories %d-%d: %v", start, end-1, err)
		}
		at = at.Add(time.Minute)
	}
}

// walk reads an archived feed from the document at path, following
// prev-archive until a document has none, and checks every document on the
// way: at most 100 items, newest first, archive pages marked, linking the
// current document and cacheable for ever, the subscription document not.
func (e *env) walk(path string, f transform.Format) []archivedDoc {
	e.t.Helper()
	var docs []archivedDoc
	for u := e.http.URL + path; u != ""; {
		r := e.get(strings.TrimPrefix(u, e.http.URL)).must(e.t, http.StatusOK, "read "+u)
		d := readArchived(e.t, r.body, f)
		d.etag, d.cacheControl, d.body = r.header.Get("ETag"), r.header.Get("Cache-Control"), r.body
		if len(d.stories) > 100 {
			e.t.Fatalf("%s has %d items, more than a page's 100", u, len(d.stories))
		}
		for i := 1; i < len(d.stories); i++ {
			if d.stories[i] >= d.stories[i-1] {
				e.t.Fatalf("%s lists story %d after %d: want newest first", u, d.stories[i], d.stories[i-1])
			}
		}
		first := len(docs) == 0
		if f != transform.JSON && f != transform.XMLData {
			if d.archive == first || (d.current == "") == !first {
				e.t.Errorf("%s: fh:archive %v, current %q; want both on archive pages only", u, d.archive, d.current)
			}
		}
		immutable := d.cacheControl == "public, max-age=31536000, immutable"
		if immutable == first {
			e.t.Errorf("%s: Cache-Control %q", u, d.cacheControl)
		}
		docs = append(docs, d)
		if d.prev != "" && !strings.HasPrefix(d.prev, e.http.URL+"/resources/") && !strings.HasPrefix(d.prev, e.http.URL+"/aggregate?") {
			e.t.Fatalf("%s links prev-archive %q, not a page of this server", u, d.prev)
		}
		u = d.prev
	}
	return docs
}

// storiesOf lists the story numbers of documents in the order read.
func storiesOf(docs []archivedDoc) []int {
	var out []int
	for _, d := range docs {
		out = append(out, d.stories...)
	}
	return out
}

// checkStories fails unless got is want: every story once, newest first
// across the documents.
func checkStories(t testing.TB, what string, got, want []int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d items, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: item %d is story %d, want %d", what, i, got[i], want[i])
		}
	}
}

func countdown(from int, keep func(int) bool) []int {
	var out []int
	for n := from; n >= 0; n-- {
		if keep == nil || keep(n) {
			out = append(out, n)
		}
	}
	return out
}

// TestArchivedFeedWalk reads a collection of 25,000 items (2,500 under the
// race detector, archiveStories, and with -short) as an archived feed
// (RFC 5005 §4) in every feed format: from the subscription document along
// prev-archive to the first archive page, every item comes once, no page has
// more than 100, and the archive pages keep their bytes and ETags when new
// items arrive. feedparser walks the Atom feed too, keyword and XPath queries
// page the same way, and the pages validate.
func TestArchivedFeedWalk(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testArchivedFeedWalk(t, name)
		})
	}
}

// openSeedable opens a fresh store of the named kind, and returns what to
// call once a bulk seeding is done: PostgreSQL's trigram indexes, which cost
// a millisecond or two per item inserted, are dropped until then and built
// again at once (as storage/postgres's bulk benchmarks do).
func openSeedable(t *testing.T, name string) (dynamo.Store, func()) {
	if name == "sqlite" {
		return stores[0].open(t), func() {}
	}
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	rows, err := conn.Query(ctx, "SELECT indexname, indexdef FROM pg_indexes WHERE indexname LIKE 'item_revisions_%_trgm'")
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (d [2]string, err error) {
		err = r.Scan(&d[0], &d[1])
		return d, err
	})
	if err != nil || len(defs) == 0 {
		t.Fatalf("trigram indexes: %v, %v", defs, err)
	}
	for _, d := range defs {
		if _, err := conn.Exec(ctx, "DROP INDEX "+d[0]); err != nil {
			t.Fatal(err)
		}
	}
	return s, func() {
		for _, d := range defs {
			if _, err := conn.Exec(ctx, d[1]); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func testArchivedFeedWalk(t *testing.T, storeName string) {
	// -short (the schema package's bare-copy run, which only shows that
	// the pages validate from inside the repository) walks the race
	// detector's tenth: the same pages, links and checks.
	stories := archiveStories
	if testing.Short() {
		stories = 2_500
	}
	store, seeded := openSeedable(t, storeName)
	e := newEnv(t, store)
	e.addSource("big", "/big.html")
	e.addSource("small", "/small.html")
	seedStories(t, e.store, "big", 0, stories, time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC))
	seedStories(t, e.store, "small", 0, 1_050, time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC))
	seeded()
	all := countdown(stories-1, nil)

	var rss2 []archivedDoc
	for _, f := range []transform.Format{transform.RSS2, transform.RSS1, transform.Atom, transform.JSON} {
		path := "/resources/big?page=current"
		if f != transform.RSS2 {
			path += "&type=" + string(f)
		}
		docs := e.walk(path, f)
		if len(docs) != stories/100+1 || len(docs[0].stories) != 0 {
			t.Fatalf("%s: %d documents, the first with %d items; want the empty subscription document and %d pages", f, len(docs), len(docs[0].stories), stories/100)
		}
		checkStories(t, string(f), storiesOf(docs), all)
		if f == transform.RSS2 {
			rss2 = docs
		}
	}
	oldest := e.get("/resources/big?page=1&type=atom").must(t, http.StatusOK, "page 1")
	verify.Atom(t, oldest.body)
	verify.Feed(t, e.get("/resources/big?page="+strconv.Itoa(stories/200)+"&type=rss1").body, "rss10")
	verify.Feed(t, e.get("/resources/big?page="+strconv.Itoa(stories/100)).body, "rss20")
	e.get("/resources/big?page="+strconv.Itoa(stories/100+1)).must(t, http.StatusNotFound, "a page not full yet")

	// A reader we did not write walks the same way (a smaller
	// collection: feedparser takes a quarter of a second per page).
	pages := verify.WalkArchive(t, e.http.URL+"/resources/small?page=current&type=atom", "atom10")
	var read []string
	seen := map[string]bool{}
	for i, p := range pages {
		if len(p.IDs) > 100 {
			t.Errorf("feedparser read %d entries at %s", len(p.IDs), p.URL)
		}
		if p.Archive == (i == 0) {
			t.Errorf("feedparser reads fh:archive %v at %s", p.Archive, p.URL)
		}
		for _, id := range p.IDs {
			if seen[id] {
				t.Fatalf("feedparser read entry %s twice", id)
			}
			seen[id] = true
			read = append(read, id)
		}
	}
	if len(pages) != 11 || len(pages[0].IDs) != 50 || len(read) != 1_050 {
		t.Fatalf("feedparser walked %d documents (the first with %d entries), %d entries; want 11 (50), 1050", len(pages), len(pages[0].IDs), len(read))
	}
	// New items fill the subscription document and start a page; the
	// archive pages keep their bytes, ETags, and answer 304.
	seedStories(t, e.store, "big", stories, 150, time.Date(2026, 5, 2, 8, 0, 0, 0, time.UTC))
	waitFor(t, "the new items", func() error {
		if d := readArchived(t, e.get("/resources/big?page=current").body, transform.RSS2); len(d.stories) != 50 {
			return fmt.Errorf("%d items in the subscription document: %w", len(d.stories), errNotYet)
		}
		return nil
	})
	after := e.walk("/resources/big?page=current", transform.RSS2)
	checkStories(t, "after 150 more", storiesOf(after), countdown(stories+149, nil))
	if len(after) != stories/100+2 {
		t.Fatalf("after 150 more: %d documents, want %d", len(after), stories/100+2)
	}
	for i, d := range rss2[1:] {
		now := after[i+2]
		if now.etag != d.etag || !bytes.Equal(now.body, d.body) {
			t.Fatalf("archive page %d changed after new items arrived: ETag %s, was %s", stories/100-i, now.etag, d.etag)
		}
	}
	page := strings.TrimPrefix(rss2[1].prev, e.http.URL)
	e.get(page, "If-None-Match", rss2[2].etag).must(t, http.StatusNotModified, "a known archive page")

	// Keyword and XPath queries page the same way: only the pages with a
	// match are linked.
	bridges := e.walk("/resources/big?page=current&title=bridge", transform.RSS2)
	matches := countdown(stories+149, func(n int) bool { return n%250 == 0 })
	checkStories(t, "title=bridge", storiesOf(bridges), matches)
	if len(bridges) != len(matches)+1 {
		t.Errorf("title=bridge walked %d documents, want the subscription document and the %d pages with a match", len(bridges), len(matches))
	}
	xp := "/resources/big?page=current&xpath=" + url.QueryEscape("//item[contains(title, '77')]")
	checkStories(t, "xpath", storiesOf(e.walk(xp, transform.RSS2)), countdown(stories+149, func(n int) bool { return strings.Contains(strconv.Itoa(n), "77") }))

	for _, bad := range []string{"page=0", "page=x", "page=1&max=5", "page=1&index=1", "page=current&since=2026-01-01"} {
		e.get("/resources/big?"+bad).must(t, http.StatusBadRequest, bad)
	}
}
