package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	pollfetch "github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/robots"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/storage"
)

// autoSite is a loopback site for kind "auto": an annotated page, a feed,
// a blog declaring its feed, a WordPress-like site in /wp/ whose feed is
// only at /wp/feed/, pages with nothing, and a missing page. It counts the requests
// each path receives.
type autoSite struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
	// indexFeed serves a feed at /index.xml, the 7th common path.
	indexFeed atomic.Bool
}

const autoRSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>http://example.org/</link>` +
	`<description>d</description><item><title>a</title><guid>a</guid></item></channel></rss>`

func newAutoSite(t *testing.T) *autoSite {
	t.Helper()
	news, err := examples.Read("news.html")
	if err != nil {
		t.Fatal(err)
	}
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!DOCTYPE html><html>"+body+"</html>")
		}
	}
	feed := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, autoRSS)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/news.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(news)
	})
	mux.HandleFunc("/wire.rss", feed)
	mux.HandleFunc("/blog/{$}", page(`<head><link rel="alternate" type="application/rss+xml" href="feed.xml"></head><body>Blog</body>`))
	mux.HandleFunc("/blog/feed.xml", feed)
	mux.HandleFunc("/old-blog/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/blog/", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/wp/{$}", page(`<head><meta name="generator" content="WordPress 6.5">
		<link rel="stylesheet" href="/wp/wp-content/themes/t/style.css"></head><body>Posts</body>`))
	mux.HandleFunc("/wp/feed/", feed)
	mux.HandleFunc("/disguised/{$}", page(`<head><link rel="alternate" type="application/rss+xml" href="posts.rss"></head>`))
	mux.HandleFunc("/disguised/posts.rss", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, "<!DOCTYPE html><html><body>Our feed moved.</body></html>")
	})
	mux.HandleFunc("/nothing/{$}", page(`<body>No feed here.</body>`))
	mux.HandleFunc("/a/{$}", page(`<body>Section A</body>`))
	mux.HandleFunc("/b/{$}", page(`<body>Section B</body>`))
	s := &autoSite{}
	mux.HandleFunc("/index.xml", func(w http.ResponseWriter, r *http.Request) {
		if !s.indexFeed.Load() {
			http.NotFound(w, r)
			return
		}
		feed(w, r)
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.URL.RequestURI())
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// count returns the number of requests the site has received.
func (s *autoSite) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func testResolver(allowPrivate bool, memory discovery.DomainMemory) sources.Resolver {
	client := pollfetch.New(pollfetch.Options{AllowPrivate: allowPrivate, HostGap: -1})
	return sources.NewResolver(client, robots.New(client, robots.Options{}), memory)
}

// TestSourceResolver checks kind auto: an annotated page is html, a feed
// is feed, another page is searched for its feed (which the source then
// polls), and a page without a feed is refused with what was tried.
func TestSourceResolver(t *testing.T) {
	site := newAutoSite(t)
	tests := []struct {
		name     string
		path     string
		kind     dynamo.SourceKind // given
		wantKind dynamo.SourceKind
		wantURL  string // path; "" for the URL given
		requests int    // at the site
		err      []string
	}{
		{"annotated page", "/news.html", dynamo.KindAuto, dynamo.KindHTML, "", 1, nil},
		{"feed", "/wire.rss", dynamo.KindAuto, dynamo.KindFeed, "", 1, nil},
		{"kind left empty", "/wire.rss", "", dynamo.KindFeed, "", 1, nil},
		{"page declaring its feed, relative href", "/blog/", dynamo.KindAuto, dynamo.KindFeed, "/blog/feed.xml", 2, nil},
		{"redirected page", "/old-blog/", dynamo.KindAuto, dynamo.KindFeed, "/blog/feed.xml", 3, nil},
		{"WordPress generator, feed at /feed/ (robots.txt read first)", "/wp/", dynamo.KindAuto, dynamo.KindFeed, "/wp/feed/", 3, nil},
		// Probing guessed paths reads robots.txt first: one request more.
		{"HTML disguised as a feed, then nothing", "/disguised/", dynamo.KindAuto, dynamo.KindAuto, "", 29, []string{
			"has no annotations and no feed was found; tried",
			"/disguised/ (the page)",
			"/disguised/posts.rss (link-alternate: not a feed (the body served as application/rss+xml did not parse as one))",
			"/feed (common-path: ",
		}},
		{"nothing", "/nothing/", dynamo.KindAuto, dynamo.KindAuto, "", 28, []string{
			"/nothing/ has no annotations and no feed was found; tried", "/nothing/ (the page), ", "/index.rss (common-path: ",
		}},
		{"missing page", "/missing", dynamo.KindAuto, dynamo.KindAuto, "", 1, []string{"kind auto: cannot read", "404"}},
		{"kind html is not resolved", "/nothing/", dynamo.KindHTML, dynamo.KindHTML, "", 0, nil},
		{"kind feed is not resolved", "/nothing/", dynamo.KindFeed, dynamo.KindFeed, "", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &dynamo.Source{URL: site.URL + tt.path, Kind: tt.kind}
			before := site.count()
			_, err := testResolver(true, nil)(context.Background(), src)
			if n := site.count() - before; n != tt.requests {
				t.Errorf("%d requests at the site, want %d", n, tt.requests)
			}
			wantURL := site.URL + tt.path
			if tt.wantURL != "" {
				wantURL = site.URL + tt.wantURL
			}
			if src.Kind != tt.wantKind || src.URL != wantURL {
				t.Errorf("resolved to %s %s, want %s %s", src.Kind, src.URL, tt.wantKind, wantURL)
			}
			if tt.err == nil {
				if err != nil {
					t.Errorf("error %v", err)
				}
				return
			}
			if !errors.Is(err, dynamo.ErrInvalid) {
				t.Fatalf("error %v, want one wrapping ErrInvalid", err)
			}
			for _, s := range tt.err {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error does not say %q:\n%v", s, err)
				}
			}
		})
	}

	t.Run("private address refused without --allow-private", func(t *testing.T) {
		src := &dynamo.Source{URL: site.URL + "/wire.rss", Kind: dynamo.KindAuto}
		before := site.count()
		_, err := testResolver(false, nil)(context.Background(), src)
		if !errors.Is(err, dynamo.ErrInvalid) || !strings.Contains(err.Error(), "refused") || site.count() != before {
			t.Errorf("error %v, %d requests; want a refusal wrapping ErrInvalid and none", err, site.count()-before)
		}
	})
}

// TestSourceResolverDomainMemory registers two pages of one domain whose
// feed is found only by probing paths: the second costs fewer requests at
// the origin, because the store remembers the path that worked, across a
// reopening of the store.
func TestSourceResolverDomainMemory(t *testing.T) {
	t.Parallel()
	site := newAutoSite(t)
	site.indexFeed.Store(true)
	db := sqlitetest.Path(t, t.TempDir(), "dynamo.db")
	resolve := func(path string) (*dynamo.Source, int) {
		t.Helper()
		store, err := storage.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		src := &dynamo.Source{URL: site.URL + path, Kind: dynamo.KindAuto}
		before := site.count()
		if _, err := testResolver(true, discovery.SettingMemory{Store: store})(context.Background(), src); err != nil {
			t.Fatalf("resolve %s: %v", path, err)
		}
		return src, site.count() - before
	}
	first, firstCost := resolve("/a/")
	second, secondCost := resolve("/b/")
	for _, src := range []*dynamo.Source{first, second} {
		if src.URL != site.URL+"/index.xml" || src.Kind != dynamo.KindFeed {
			t.Errorf("resolved to %s %s, want feed %s/index.xml", src.Kind, src.URL, site.URL)
		}
	}
	if firstCost != 22 || secondCost != 3 {
		t.Errorf("the first page of the domain cost %d requests and the second %d; want 22 (the page, robots.txt, 13 paths under /a/, 7 under /) and 3 (the page, robots.txt, the remembered path)", firstCost, secondCost)
	}
}

// TestKindAutoThroughTheAPI registers sources with kind auto through the
// admin API wired to the resolver, as serve wires it.
func TestKindAutoThroughTheAPI(t *testing.T) {
	t.Parallel()
	site := newAutoSite(t)
	store, err := storage.Open(context.Background(), sqlitetest.Path(t, t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv, err := api.New(api.Config{Store: store, Resolve: testResolver(true, discovery.SettingMemory{Store: store}), CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(srv)
	t.Cleanup(h.Close)
	post := func(body string) (int, map[string]any) {
		t.Helper()
		resp, err := h.Client().Post(h.URL+"/api/sources", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ans map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, ans
	}
	// Before any feed of the domain is remembered: see TestSourceResolverDomainMemory.
	status, ans := post(`{"url":"` + site.URL + `/nothing/"}`)
	msg, _ := ans["error"].(string)
	if status != http.StatusUnprocessableEntity || !strings.Contains(msg, "no feed was found; tried "+site.URL+"/nothing/ (the page), "+site.URL+"/nothing/feed (common-path: ") {
		t.Errorf("POST a page without a feed: %d %q; want 422 saying what was tried", status, msg)
	}
	// The person registering it learns how the page can be followed, and
	// reads no sentinel's text ("nothing to poll (invalid)").
	if !strings.Contains(msg, "annotate it (dynamo annotate, or Suggest annotations in the playground) and register it with kind html") ||
		!strings.Contains(msg, "kind selectors") || strings.Contains(msg, "invalid") || strings.Contains(msg, "nothing to poll") {
		t.Errorf("POST a page without a feed: %q; want how to follow it (annotations or selectors), without the sentinels' text", msg)
	}
	for _, tc := range []struct {
		path, kind, url string
	}{
		{"/news.html", "html", "/news.html"},
		{"/wire.rss", "feed", "/wire.rss"},
		{"/wp/", "feed", "/wp/feed/"},
	} {
		status, ans = post(`{"url":"` + site.URL + tc.path + `"}`)
		if status != http.StatusCreated || ans["kind"] != tc.kind || ans["url"] != site.URL+tc.url {
			t.Errorf("POST %s: %d %v; want 201, kind %s, url %s", tc.path, status, ans, tc.kind, tc.url)
		}
		// Only a discovered feed comes with the discovery: the feed chosen
		// and the candidates, each with how it was found.
		found, discovered := ans["discovery"].(map[string]any)
		if discovered != (tc.path == "/wp/") {
			t.Errorf("POST %s: discovery %v in the answer", tc.path, ans["discovery"])
			continue
		}
		if discovered {
			chosen, _ := found["chosen"].(map[string]any)
			candidates, _ := found["candidates"].([]any)
			if chosen["url"] != site.URL+tc.url || chosen["how"] == "" || len(candidates) == 0 {
				t.Errorf("POST %s: discovery %v; want %s chosen, with how, among the candidates", tc.path, found, tc.url)
			}
		}
	}
	sources, err := store.Sources(context.Background())
	if err != nil || len(sources) != 3 {
		t.Errorf("%d sources stored (%v), want 3", len(sources), err)
	}
}
