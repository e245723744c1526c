package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// testDemoSite is the demo site's content, without registering anything.
func testDemoSite(t *testing.T, every time.Duration) *demoSite {
	t.Helper()
	news, err := examples.Read("news.html")
	if err != nil {
		t.Fatal(err)
	}
	zone, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	d := &demoSite{every: every, news: shiftIndexes(news, demoShown), zone: zone, Server: httptest.NewServer(http.NotFoundHandler())}
	t.Cleanup(d.Close)
	return d
}

func TestDemoNewsPageGainsAStoryEveryPeriod(t *testing.T) {
	d := testDemoSite(t, 20*time.Second)
	at := time.Date(2026, 3, 3, 14, 0, 5, 0, time.UTC)
	wrap := func(now time.Time) *wrapper.Result {
		t.Helper()
		res := wrapper.Wrap(d.newsPage(now), wrapper.Options{URL: "http://127.0.0.1/news/index.html", Location: d.zone})
		if len(res.Warnings) > 0 {
			t.Fatalf("the live news page draws warnings: %v", res.Warnings)
		}
		return res
	}
	first, same, next := wrap(at), wrap(at.Add(10*time.Second)), wrap(at.Add(20*time.Second))
	items := first.Resource.Items
	if len(items) != demoShown+9 {
		t.Fatalf("%d items, want %d live stories and the example's nine", len(items), demoShown+9)
	}
	if items[demoShown].Title != "Council Approves 2006 Budget After Late-Night Session" {
		t.Errorf("the example's first story comes at %d as %q", demoShown, items[demoShown].Title)
	}
	// The newest story is dated when its period began, in the page's zone.
	if date := extension(items[0], "date"); date != "2026-03-03T09:00:00-05:00" {
		t.Errorf("newest story dated %q, want 2026-03-03T09:00:00-05:00", date)
	}
	if !bytes.Equal(d.newsPage(at), d.newsPage(at.Add(10*time.Second))) || !sameIDs(first.Resource.Items, same.Resource.Items) {
		t.Error("the page changed within a period")
	}
	// A period later: one story added on top, the oldest live one gone.
	got := next.Resource.Items
	if got[1].ID != items[0].ID || got[0].ID == items[0].ID || got[demoShown-1].ID != items[demoShown-2].ID {
		t.Errorf("a period later the live stories are %v, were %v", titles(got[:demoShown]), titles(items[:demoShown]))
	}
	if !sameIDs(got[demoShown:], items[demoShown:]) {
		t.Error("the example's own stories changed")
	}
	// Each story is new even when the pool's text comes round again.
	later := wrap(at.Add(time.Duration(len(storyPool)) * 20 * time.Second)).Resource.Items
	if later[0].Title != items[0].Title || later[0].ID == items[0].ID {
		t.Errorf("a pool later: %q (%s), was %q (%s)", later[0].Title, later[0].ID, items[0].Title, items[0].ID)
	}
}

func TestDemoWireFeedCarriesTheLiveStories(t *testing.T) {
	t.Parallel()
	d := testDemoSite(t, 20*time.Second)
	at := time.Date(2026, 3, 3, 14, 0, 5, 0, time.UTC)
	feed, err := d.wireFeed(at)
	if err != nil {
		t.Fatal(err)
	}
	p := verify.Feed(t, feed, "rss20")
	stories := d.liveStories(at)
	if p.Title != "Upper Valley Wire (Dynamo demo feed)" {
		t.Errorf("wire feed titled %q", p.Title)
	}
	if len(p.Entries) != demoShown+9 || p.Entries[0].Title != stories[0].Title {
		t.Fatalf("wire feed: %d entries, first %q; want %d, first %q", len(p.Entries), p.Entries[0].Title, demoShown+9, stories[0].Title)
	}
}

func TestServeDemoStoresNewVersionsWhileTheUserWatches(t *testing.T) {
	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	base := startServe(t, serveConfig{db: db, demo: true, allowPrivate: true, demoEvery: time.Second, demoPoll: time.Second, hostGap: -1})
	deadline := time.Now().Add(8 * time.Second)
	var news dynamo.Source
	for {
		getJSON(t, base+"/api/sources/news", &news)
		if news.Summary.Versions >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("news has %d versions after 8s: %+v", news.Summary.Versions, news.State)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if news.Policy != "flat" || time.Duration(news.Interval) != time.Second {
		t.Errorf("news follows %q every %s, want flat at the demo's pace", news.Policy, news.Interval)
	}
	resp, body := get(t, base+"/ui/sources/news")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/ui/sources/news: %s", resp.Status)
	}
	for _, want := range []string{"Version 2", "added"} {
		if !strings.Contains(body, want) {
			t.Errorf("the source page has no %q", want)
		}
	}
	var versions struct {
		Items []struct{ Title string }
	}
	getJSON(t, base+"/resources/news?type=json", &versions)
	if len(versions.Items) < 2 {
		t.Errorf("the versions feed lists %d versions", len(versions.Items))
	}
}

// extension is the value of an item's dc extension named local.
func extension(it dynamo.Item, local string) string {
	for _, e := range it.Extensions {
		if e.LocalName == local {
			return e.Value
		}
	}
	return ""
}

func sameIDs(a, b []dynamo.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
	}
	return true
}

func titles(items []dynamo.Item) string {
	var s []string
	for _, it := range items {
		s = append(s, fmt.Sprintf("%q", it.Title))
	}
	return strings.Join(s, ", ")
}

// TestServeDemoSurvivesRestarts restarts the demo on its store twice: once
// with its last address free, which it takes back (the archive's links keep
// answering and no story comes back as a new item), and once with that
// address taken, when its sources start again at the new address. Either
// way no link any demo source serves (the news page, the wire feed, the
// other example pages) points at a port that no longer answers and no
// title appears twice in a latest version or an archive.
func TestServeDemoSurvivesRestarts(t *testing.T) {
	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	cfg := serveConfig{db: db, demo: true, allowPrivate: true, demoEvery: time.Second, demoPoll: time.Second, hostGap: -1}
	run := func(minVersions int) (origin string, stop func()) {
		t.Helper()
		base, stop := startServeStoppable(t, cfg)
		t.Cleanup(stop)
		news := waitForVersions(t, base, minVersions)
		u, err := url.Parse(news.URL)
		if err != nil {
			t.Fatal(err)
		}
		origin = u.Scheme + "://" + u.Host
		checkDemoLinks(t, base, origin)
		return origin, stop
	}

	first, stop := run(2)
	stop()
	again, stop := run(3)
	if again != first {
		t.Errorf("restarted demo serves at %s, was %s", again, first)
	}
	stop()

	// Someone else takes the port: the demo moves and starts afresh.
	taken, err := net.Listen("tcp", strings.TrimPrefix(first, "http://"))
	if err != nil {
		t.Fatalf("take the demo's port: %v", err)
	}
	defer taken.Close()
	moved, _ := run(1)
	if moved == first {
		t.Fatalf("the demo serves at %s, whose port the test holds", moved)
	}
}

// waitForVersions waits until the demo's news source has at least n
// versions, and returns it.
func waitForVersions(t *testing.T, base string, n int) dynamo.Source {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var news dynamo.Source
		getJSON(t, base+"/api/sources/news", &news)
		if news.Summary.Versions >= n {
			return news
		}
		if time.Now().After(deadline) {
			t.Fatalf("news has %d versions after 15s, want %d: %+v", news.Summary.Versions, n, news.State)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkDemoLinks checks that every loopback link of every demo source's
// latest version and archive points at origin, the demo site now serving,
// which answers it, and that no title appears twice in either.
func checkDemoLinks(t *testing.T, base, origin string) {
	t.Helper()
	var list struct{ Sources []dynamo.Source }
	getJSON(t, base+"/api/sources", &list)
	if len(list.Sources) < 2 {
		t.Fatalf("%d demo sources", len(list.Sources))
	}
	for _, src := range list.Sources {
		if src.Summary.Versions == 0 {
			continue // not polled yet since the demo (re)started its sources
		}
		for _, query := range []string{"?index=1&type=json", "?max=10000&type=json"} {
			var feed struct {
				Items []struct{ URL, Title string }
			}
			getJSON(t, base+"/resources/"+src.ID+query, &feed)
			titles := map[string]bool{}
			for _, it := range feed.Items {
				if titles[it.Title] {
					t.Errorf("%s%s: %q appears twice", src.ID, query, it.Title)
				}
				titles[it.Title] = true
				if !strings.HasPrefix(it.URL, "http://127.0.0.1") {
					continue
				}
				if !strings.HasPrefix(it.URL, origin+"/") {
					t.Errorf("%s%s: %q links to %s, not to the demo site at %s", src.ID, query, it.Title, it.URL, origin)
				}
			}
			if len(feed.Items) == 0 {
				t.Errorf("%s%s: no items", src.ID, query)
			}
		}
	}
	// The site answers at origin (its story pages are not served; the
	// news page is).
	resp, err := http.Get(origin + "/news/index.html")
	if err != nil {
		t.Fatalf("the demo site does not answer at %s: %v", origin, err)
	}
	resp.Body.Close()
}
