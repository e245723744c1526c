package load_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/metrics"
	"github.com/dynamo-feeds/dynamo/poller"
	pollfetch "github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage"
)

// longEnv switches the tests to their long versions (a minute at 256
// connections, 10,000 sources), which scripts/reliability.sh runs. The
// tests that exist only for the record (wrk, RSS-Bridge, compressed bytes)
// are in files built with the "long" tag, which the script also sets, so
// that the default suite has none that skip.
const longEnv = "DYNAMO_RELIABILITY_LONG"

// long reports whether the long versions run.
func long() bool { return os.Getenv(longEnv) == "1" }

// loadAverage is the machine's load over 1, 5 and 15 minutes, for the
// record: the machine may be shared, and figures taken under load are
// lower.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// stores names each store and gives its DSN for a test: the embedded
// store's file in a temporary directory, or a fresh PostgreSQL database.
var stores = []struct {
	name string
	dsn  func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "dynamo.db") }},
	{"postgres", func(t testing.TB) string { return pgtest.DSN(t) }},
}

// site is a loopback web site whose pages the test sets. It answers 200
// with the whole page every time, with neither ETag nor Last-Modified, so
// that whoever polls it fetches and reads the page each time. It counts
// the requests it answers.
type site struct {
	*httptest.Server
	hits  atomic.Int64
	mu    sync.Mutex
	pages map[string][]byte
}

func newSite(t testing.TB) *site {
	s := &site{pages: map[string][]byte{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		page, ok := s.pages[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) set(path string, page []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = page
}

// story is one item of a page.
type story struct{ title, link, desc string }

// stories returns n stories numbered from first, with words the archive
// queries of the load mix look for.
func stories(first, n int) []story {
	var out []story
	for i := first; i < first+n; i++ {
		out = append(out, story{
			fmt.Sprintf("Story %d: the council meets about the bridge", i),
			fmt.Sprintf("/story/%d", i),
			fmt.Sprintf("Paragraph %d of the story, with <b>some</b> words about the town, its bridge and its mill.", i),
		})
	}
	return out
}

// annotatedPage writes an HTML page annotated for Dynamo. Each story is
// also a div of class "story" with its link and paragraph, so a
// selector-based scraper (RSS-Bridge) reads the same items from it.
func annotatedPage(channel string, items ...story) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body>\n", html.EscapeString(channel))
	fmt.Fprintf(&b, "<h1><!-- <channel:title> -->%s<!-- </channel:title> --></h1>\n", html.EscapeString(channel))
	b.WriteString("<p><!-- <channel:description> -->Stories of the town.<!-- </channel:description> --></p>\n")
	for i, s := range items {
		n := i + 1
		fmt.Fprintf(&b, "<div class=\"story\"><!-- <item:link index=\"%d\"> --><a href=\"%s\"><!-- </item:link> -->", n, s.link)
		fmt.Fprintf(&b, "<!-- <item:title index=\"%d\"> -->%s<!-- </item:title> --></a>\n", n, html.EscapeString(s.title))
		fmt.Fprintf(&b, "<p><!-- <item:description index=\"%d\"> -->%s<!-- </item:description> --></p></div>\n", n, html.EscapeString(s.desc))
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

// dynamoClient speaks to a running Dynamo, in this process or not, over
// loopback HTTP; admin changes rely on coming from loopback.
type dynamoClient struct {
	t    testing.TB
	base string
	http *http.Client
}

func newDynamoClient(t testing.TB, base string) *dynamoClient {
	return &dynamoClient{t: t, base: base, http: &http.Client{Timeout: time.Minute}}
}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (c *dynamoClient) do(method, path, contentType string, body []byte, header ...string) answer {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return answer{resp.StatusCode, resp.Header, data}
}

// get reads path and fails the test unless the status is want.
func (c *dynamoClient) get(path string, want int) answer {
	c.t.Helper()
	a := c.do(http.MethodGet, path, "", nil)
	if a.status != want {
		c.t.Fatalf("GET %s: status %d, want %d\n%.500s", path, a.status, want, a.body)
	}
	return a
}

// register adds an annotated page as a source through the admin API.
func (c *dynamoClient) register(id, url string) {
	c.t.Helper()
	body := fmt.Sprintf(`{"id":%q,"url":%q,"kind":"html","interval":"1h","policy":"flat"}`, id, url)
	if a := c.do(http.MethodPost, "/api/sources", "application/json", []byte(body)); a.status != http.StatusCreated {
		c.t.Fatalf("register %s: status %d\n%s", id, a.status, a.body)
	}
}

// poll polls a source now and fails the test unless the source then holds
// versions versions. The running poller polls a source as soon as it is
// registered or due, so it may have stored the page first: the manual poll
// then reads it unchanged (or the origin answers 304), which is as good as
// long as the count is right.
func (c *dynamoClient) poll(id string, versions int) {
	c.t.Helper()
	a := c.do(http.MethodPost, "/api/sources/"+id+"/poll", "", nil)
	var out dynamo.PollOutcome
	if a.status != http.StatusOK || json.Unmarshal(a.body, &out) != nil ||
		(out.Status != dynamo.StatusChanged && out.Status != dynamo.StatusUnchanged && out.Status != dynamo.StatusNotModified) {
		c.t.Fatalf("poll %s: status %d: %s", id, a.status, a.body)
	}
	var src dynamo.Source
	if a := c.get("/api/sources/"+id, http.StatusOK); json.Unmarshal(a.body, &src) != nil || src.Summary.Versions != versions {
		c.t.Fatalf("poll %s (%s): the source holds %d versions, want %d: %.300s", id, out.Status, src.Summary.Versions, versions, a.body)
	}
}

// fillArchive registers the sources the load mix reads and stores their
// versions: "news" gets five versions of 60 stories, 100 distinct in all,
// like api/bench_test.go; "blog" and "town" one version each.
func fillArchive(t testing.TB, c *dynamoClient, s *site) {
	c.register("news", s.URL+"/news.html")
	for v := range 5 {
		s.set("/news.html", annotatedPage("Bench News", stories(v*10, 60)...))
		c.poll("news", v+1)
	}
	for _, id := range []string{"blog", "town"} {
		s.set("/"+id+".html", annotatedPage("The "+id, stories(1000, 20)...))
		c.register(id, s.URL+"/"+id+".html")
		c.poll(id, 1)
	}
}

// inProcess starts Dynamo's real API in this process over the store at
// dsn, with the real poller (running, allowed to fetch loopback) and the
// render cache on; it returns the API's loopback URL.
func inProcess(t testing.TB, dsn string) string {
	ctx, cancel := context.WithCancel(context.Background())
	store, err := storage.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	m := metrics.New()
	p, err := poller.New(poller.Config{
		Store:   store,
		Fetcher: pollfetch.New(pollfetch.Options{AllowPrivate: true, HostGap: -1}),
		Workers: 4,
		Policy:  "flat",
		OnPoll:  m.ObservePoll,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(api.Config{Store: store, Poller: p, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); srv.Run(ctx) }()
	go func() {
		defer wg.Done()
		if err := p.Run(ctx); err != nil {
			t.Errorf("poller: %v", err)
		}
	}()
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		cancel()
		wg.Wait()
		store.Close()
	})
	waitCache(t, newDynamoClient(t, hs.URL))
	return hs.URL
}

// waitCache waits until the API's change watcher runs, so the render cache
// is on before the load starts.
func waitCache(t testing.TB, c *dynamoClient) {
	t.Helper()
	for range 1000 {
		var st struct {
			Cache struct{ Enabled bool } `json:"cache"`
		}
		a := c.do(http.MethodGet, "/api/stats", "", nil)
		if a.status == http.StatusOK && json.Unmarshal(a.body, &st) == nil && st.Cache.Enabled {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the API's render cache never came on")
}

// contentTypes is the Content-Type each answer format must carry.
var contentTypes = map[string]string{
	"rss1":    "application/rdf+xml",
	"rss2":    "application/rss+xml",
	"atom":    "application/atom+xml",
	"json":    "application/feed+json",
	"xmldata": "application/xml",
}

// typeOf is the format a read path asks for.
func typeOf(path string) string {
	if _, q, ok := strings.Cut(path, "?"); ok {
		for _, kv := range strings.Split(q, "&") {
			if v, ok := strings.CutPrefix(kv, "type="); ok {
				return v
			}
		}
	}
	return "rss2"
}
