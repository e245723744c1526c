package discovery_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage"
)

func TestRegistrableDomain(t *testing.T) {
	tests := []struct{ host, want string }{
		{"www.example.com", "example.com"},
		{"News.Example.COM.", "example.com"},
		{"blog.example.co.uk", "example.co.uk"},
		{"alice.blogspot.com", "alice.blogspot.com"}, // blogspot.com is a public suffix
		{"example.com", "example.com"},
		{"127.0.0.1", "127.0.0.1"},
		{"::1", "::1"},
		{"localhost", "localhost"},
	}
	for _, tt := range tests {
		if got := discovery.RegistrableDomain(tt.host); got != tt.want {
			t.Errorf("RegistrableDomain(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}

// backends are the stores domain memory is tested on, each with a DSN for
// a new empty store: the PostgreSQL server the test command provides, and
// an SQLite file.
var backends = []struct {
	name string
	dsn  func(t *testing.T) string
}{
	{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
	{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "dynamo.db") }},
}

// openStore opens the store at dsn, closed when the test ends (closing it
// earlier, as a restart does, is harmless).
func openStore(t *testing.T, dsn string) dynamo.Store {
	t.Helper()
	st, err := storage.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// forEachBackend runs test once on each store.
func forEachBackend(t *testing.T, test func(t *testing.T, dsn string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.dsn(t)) })
	}
}

// TestDomainMemory checks that the second URL of a domain costs fewer
// requests at the origin than the first, that the memory lives in the
// store (a new store connection, as after a restart, still has it), and
// that another domain does not use it.
func TestDomainMemory(t *testing.T) { forEachBackend(t, testDomainMemory) }

func testDomainMemory(t *testing.T, dsn string) {
	page := html(`<head><title>A site with no feed links</title></head><body>…</body>`)
	s := newSite(t, map[string]resource{
		"www.example.com/":            page,
		"www.example.com/index.xml":   rss("Example"),
		"news.example.com/world/":     page,
		"news.example.com/index.xml":  rss("Example news"),
		"www.other.example/":          page,
		"www.other.example/index.xml": rss("Other"),
	})
	ctx := context.Background()

	discover := func(url string, m discovery.DomainMemory) (*discovery.Result, int) {
		t.Helper()
		before := s.requestCount()
		res, err := newDiscoverer(s, m).Discover(ctx, url)
		if err != nil {
			t.Fatalf("Discover(%s): %v", url, err)
		}
		if len(res.Warnings) > 0 {
			t.Errorf("Discover(%s) warnings: %q", url, res.Warnings)
		}
		return res, s.requestCount() - before
	}

	st := openStore(t, dsn)
	first, firstCost := discover("http://www.example.com/", discovery.SettingMemory{Store: st})
	if first.Chosen.URL != "http://www.example.com/index.xml" || first.Chosen.How != discovery.HowCommonPath || first.Remembered != "" {
		t.Fatalf("first discovery chose %+v (remembered %q)", first.Chosen, first.Remembered)
	}

	// The store closed and opened again, as by a restarted process.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	restarted := discovery.SettingMemory{Store: openStore(t, dsn)}
	pattern, ok, err := restarted.Pattern(ctx, "example.com")
	if err != nil || !ok || pattern != "path:/index.xml" {
		t.Fatalf("stored pattern %q, %v, %v; want path:/index.xml", pattern, ok, err)
	}
	second, secondCost := discover("http://news.example.com/world/", restarted)
	if second.Chosen.URL != "http://news.example.com/index.xml" || second.Chosen.How != discovery.HowRemembered || second.Remembered != "path:/index.xml" {
		t.Fatalf("second discovery chose %+v (remembered %q)", second.Chosen, second.Remembered)
	}
	if secondCost != 2 || secondCost >= firstCost {
		t.Errorf("the second URL of the domain cost %d requests and the first %d; want 2, fewer than the first", secondCost, firstCost)
	}

	_, otherCost := discover("http://www.other.example/", restarted)
	if otherCost != firstCost {
		t.Errorf("another domain cost %d requests, want %d as without memory", otherCost, firstCost)
	}
	if _, ok, _ := restarted.Pattern(ctx, "unknown.example"); ok {
		t.Errorf("a domain never discovered has a pattern")
	}
}

// TestDomainMemoryStale checks that a remembered path that no longer works
// costs one request and is replaced by what works now.
func TestDomainMemoryStale(t *testing.T) { forEachBackend(t, testDomainMemoryStale) }

func testDomainMemoryStale(t *testing.T, dsn string) {
	s := newSite(t, map[string]resource{
		"www.stale.example/":          html(`<head><meta name="generator" content="WordPress 6.5"></head>`),
		"www.stale.example/feed/":     rss("Now"),
		"www.stale.example/index.xml": html("<body>gone</body>"),
	})
	ctx := context.Background()
	mem := discovery.SettingMemory{Store: openStore(t, dsn)}
	if err := mem.Remember(ctx, "stale.example", "path:/index.xml"); err != nil {
		t.Fatal(err)
	}
	res, err := newDiscoverer(s, mem).Discover(ctx, "http://www.stale.example/")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://www.stale.example/", "http://www.stale.example/index.xml", "http://www.stale.example/feed/"}
	if len(res.Tried) != len(want) || res.Tried[1] != want[1] || res.Tried[2] != want[2] {
		t.Errorf("tried %q, want %q", res.Tried, want)
	}
	if p, _, _ := mem.Pattern(ctx, "stale.example"); p != "path:/feed/" {
		t.Errorf("pattern after the stale one failed: %q, want path:/feed/", p)
	}
}

// TestDomainMemoryInPage checks that a feed found through the page's own
// links is remembered as such, and that a remembered path does not take
// precedence over the page's declared feed.
func TestDomainMemoryInPage(t *testing.T) { forEachBackend(t, testDomainMemoryInPage) }

func testDomainMemoryInPage(t *testing.T, dsn string) {
	s := newSite(t, map[string]resource{
		"a.linked.example/":       html(`<head><link rel="alternate" type="application/atom+xml" href="/a.atom"></head>`),
		"a.linked.example/a.atom": atom("A"),
		"a.linked.example/feed":   rss("Not this one"),
		"b.linked.example/":       html(`<body><a href="/b.rss">feed</a></body>`),
		"b.linked.example/b.rss":  rss("B"),
	})
	ctx := context.Background()
	mem := discovery.SettingMemory{Store: openStore(t, dsn)}
	if err := mem.Remember(ctx, "linked.example", "path:/feed"); err != nil {
		t.Fatal(err)
	}
	res, err := newDiscoverer(s, mem).Discover(ctx, "http://a.linked.example/")
	if err != nil || res.Chosen.URL != "http://a.linked.example/a.atom" {
		t.Fatalf("chose %+v, %v; want the declared feed", res.Chosen, err)
	}
	if p, _, _ := mem.Pattern(ctx, "linked.example"); p != discovery.HowLinkAlternate {
		t.Errorf("pattern %q, want %q", p, discovery.HowLinkAlternate)
	}
	res, err = newDiscoverer(s, mem).Discover(ctx, "http://b.linked.example/")
	if err != nil || res.Chosen.How != discovery.HowAnchor {
		t.Fatalf("chose %+v, %v; want the anchor", res.Chosen, err)
	}
	if p, _, _ := mem.Pattern(ctx, "linked.example"); p != discovery.HowAnchor {
		t.Errorf("pattern %q, want %q", p, discovery.HowAnchor)
	}
}

// TestDomainMemoryFailing checks that a store that cannot be read or
// written (closed, as when the database is gone) does not stop discovery,
// and that the failures are reported.
func TestDomainMemoryFailing(t *testing.T) { forEachBackend(t, testDomainMemoryFailing) }

func testDomainMemoryFailing(t *testing.T, dsn string) {
	s := newSite(t, map[string]resource{
		"www.lost.example/":     html(`<body></body>`),
		"www.lost.example/feed": rss("Lost"),
	})
	st := openStore(t, dsn)
	st.Close()
	res, err := newDiscoverer(s, discovery.SettingMemory{Store: st}).Discover(context.Background(), "http://www.lost.example/")
	if err != nil || res.Chosen == nil || res.Chosen.URL != "http://www.lost.example/feed" {
		t.Fatalf("Discover: %+v, %v; want the feed despite the memory", res.Chosen, err)
	}
	if len(res.Warnings) != 2 || !strings.Contains(res.Warnings[0], "domain memory unavailable") ||
		!strings.Contains(res.Warnings[1], "remember discovery pattern of lost.example") {
		t.Errorf("warnings %q, want the failed read and the failed write", res.Warnings)
	}
}

// TestDomainMemoryOtherRoot checks that a path remembered under one
// installation of a domain (WordPress in /blog/) is not trusted for a page
// of another (its own WordPress in /news/): the remembered template is
// tried under the page's own root, and the pattern is kept with its root.
func TestDomainMemoryOtherRoot(t *testing.T) { forEachBackend(t, testDomainMemoryOtherRoot) }

func testDomainMemoryOtherRoot(t *testing.T, dsn string) {
	wp := func(root string) resource {
		return html(`<head><link rel="stylesheet" href="` + root + `wp-content/themes/t/style.css"></head><body></body>`)
	}
	s := newSite(t, map[string]resource{
		"www.example.com/blog/":      wp("/blog/"),
		"www.example.com/blog/feed/": rss("Blog"),
		"www.example.com/news/":      wp("/news/"),
		"www.example.com/news/feed/": rss("News"),
		// generator only: the page reveals no root, only its folder
		"www.example.com/shop/":                html(`<head><meta name="generator" content="WordPress 6.5"></head>`),
		"www.example.com/shop/feed/":           rss("Shop"),
		"www.example.com/blog/2024/05/a-post/": wp("/blog/"),
	})
	ctx := context.Background()
	mem := discovery.SettingMemory{Store: openStore(t, dsn)}
	d := newDiscoverer(s, mem)
	first, err := d.Discover(ctx, "http://www.example.com/blog/")
	if err != nil || first.Chosen.URL != "http://www.example.com/blog/feed/" {
		t.Fatalf("first: %+v, %v", first.Chosen, err)
	}
	const want = "path:/feed/ root=/blog/"
	for _, key := range []string{"example.com", "wordpress@example.com"} {
		if p, _, _ := mem.Pattern(ctx, key); p != want {
			t.Errorf("pattern under %s: %q, want %q", key, p, want)
		}
	}
	for _, tt := range []struct{ page, feed string }{
		{"http://www.example.com/news/", "http://www.example.com/news/feed/"},
		{"http://www.example.com/shop/", "http://www.example.com/shop/feed/"},
		{"http://www.example.com/blog/2024/05/a-post/", "http://www.example.com/blog/feed/"},
	} {
		res, err := d.Discover(ctx, tt.page)
		if err != nil || res.Chosen.URL != tt.feed || res.Chosen.How != discovery.HowRemembered {
			t.Errorf("%s: chose %+v, %v; want %s, remembered", tt.page, res.Chosen, err, tt.feed)
			continue
		}
		if len(res.Tried) != 2 {
			t.Errorf("%s: tried %q, want the page and the feed", tt.page, res.Tried)
		}
	}
}

// TestPlatformMemory checks that sites under one private public suffix
// (each its own registrable domain) share what was learnt on one of them.
func TestPlatformMemory(t *testing.T) { forEachBackend(t, testPlatformMemory) }

func testPlatformMemory(t *testing.T, dsn string) {
	page := html(`<head><title>a diary</title></head><body>…</body>`)
	s := newSite(t, map[string]resource{
		"tom.hatenablog.com/":     page,
		"tom.hatenablog.com/rss":  rss("Tom"),
		"anna.hatenablog.com/":    page,
		"anna.hatenablog.com/rss": rss("Anna"),
	})
	ctx := context.Background()
	mem := discovery.SettingMemory{Store: openStore(t, dsn)}
	d := newDiscoverer(s, mem)
	first, err := d.Discover(ctx, "http://tom.hatenablog.com/")
	if err != nil || first.Chosen.How != discovery.HowCommonPath {
		t.Fatalf("first: %+v, %v", first.Chosen, err)
	}
	if p, _, _ := mem.Pattern(ctx, "@hatenablog.com"); p != "path:/rss" {
		t.Errorf("platform pattern %q, want path:/rss", p)
	}
	second, err := d.Discover(ctx, "http://anna.hatenablog.com/")
	if err != nil || second.Chosen.URL != "http://anna.hatenablog.com/rss" || second.Chosen.How != discovery.HowRemembered {
		t.Fatalf("second: %+v, %v; want the remembered path", second.Chosen, err)
	}
	if len(second.Tried) != 2 || len(first.Tried) <= 2 {
		t.Errorf("tried %d then %d URLs; want the second to cost 2", len(first.Tried), len(second.Tried))
	}
}
