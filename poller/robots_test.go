package poller_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/robots"
)

// robotsSite serves a robots.txt, annotated pages and a feed, and records
// when each path was asked for.
type robotsSite struct {
	*httptest.Server
	mu       sync.Mutex
	requests map[string][]time.Time
}

func newRobotsSite(t *testing.T, robotsTxt string) *robotsSite {
	t.Helper()
	s := &robotsSite{requests: map[string][]time.Time{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path] = append(s.requests[r.URL.Path], time.Now())
		s.mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, robotsTxt)
		case strings.HasSuffix(r.URL.Path, ".xml"):
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprint(w, rss("Feed story"))
		default:
			fmt.Fprint(w, annotated("Story at "+r.URL.Path))
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *robotsSite) asked(path string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.requests[path]...)
}

// robotsPoller is a poller that reads robots.txt through its own fetcher.
func robotsPoller(t *testing.T, st dynamo.Store, mutate ...func(*poller.Config)) *poller.Poller {
	t.Helper()
	client := fetch.New(fetch.Options{AllowPrivate: true, Timeout: 2 * time.Second, HostGap: -1})
	return newPoller(t, st, append([]func(*poller.Config){func(c *poller.Config) {
		c.Fetcher, c.Robots = client, robots.New(client, robots.Options{})
	}}, mutate...)...)
}

// A page the host's robots.txt disallows is never asked for: the source
// shows why, until ignore_robots lets its webmaster poll it. A native feed
// on the same disallowed path is polled as readers poll it.
func TestRobotsTxtDisallowsAPage(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	s := newRobotsSite(t, "User-agent: *\nDisallow: /private/\n")
	addSource(t, st, "page", s.URL+"/private/news.html", dynamo.KindHTML)
	addSource(t, st, "feed", s.URL+"/private/feed.xml", dynamo.KindFeed)
	addSource(t, st, "open", s.URL+"/news.html", dynamo.KindHTML)
	p := robotsPoller(t, st)

	out := pollNow(t, p, "page")
	if out.Status != dynamo.StatusError || !strings.Contains(out.Error, "disallowed by robots.txt") {
		t.Fatalf("poll of a disallowed page: %+v", out)
	}
	src, _ := st.Source(ctx, "page")
	if !strings.HasPrefix(src.State.LastError, "disallowed by robots.txt") || !strings.Contains(src.State.LastError, "ignore_robots") {
		t.Errorf("the source's error %q does not say robots.txt disallows it and how to poll it anyway", src.State.LastError)
	}
	if n := len(s.asked("/private/news.html")); n != 0 {
		t.Fatalf("the disallowed page was asked for %d times", n)
	}
	if out := pollNow(t, p, "open"); out.Status != dynamo.StatusChanged {
		t.Fatalf("poll of an allowed page: %+v", out)
	}
	if out := pollNow(t, p, "feed"); out.Status != dynamo.StatusChanged {
		t.Fatalf("poll of a native feed under a disallowed path: %+v", out)
	}
	if n := len(s.asked("/robots.txt")); n != 1 {
		t.Errorf("robots.txt asked for %d times, want once (kept per host)", n)
	}

	src.IgnoreRobots = true
	if err := st.UpdateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	if out := pollNow(t, p, "page"); out.Status != dynamo.StatusChanged {
		t.Fatalf("poll with ignore_robots: %+v", out)
	}
	if n := len(s.asked("/private/news.html")); n != 1 {
		t.Fatalf("with ignore_robots the page was asked for %d times, want once", n)
	}
}

// Crawl-delay: 5 spaces every request to the host at least five seconds
// apart, robots.txt included, though the fetcher's own gap is none: in
// real time, one check of the real figure (package robots tests the rule
// with short delays).
func TestCrawlDelaySpacesPolls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	s := newRobotsSite(t, "User-agent: *\nCrawl-delay: 5\n")
	addSource(t, st, "a", s.URL+"/a.html", dynamo.KindHTML)
	addSource(t, st, "b", s.URL+"/b.html", dynamo.KindHTML)
	p := robotsPoller(t, st)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	waitFor(t, 20*time.Second, func() bool { return len(s.asked("/a.html")) == 1 && len(s.asked("/b.html")) == 1 })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var times []time.Time
	for _, path := range []string{"/robots.txt", "/a.html", "/b.html"} {
		times = append(times, s.asked(path)...)
	}
	if len(times) != 3 {
		t.Fatalf("%d requests, want robots.txt and two pages", len(times))
	}
	slices.SortFunc(times, time.Time.Compare)
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 5*time.Second {
			t.Errorf("request %d started %v after the one before, under the Crawl-delay of 5s", i+1, gap)
		}
	}
}
