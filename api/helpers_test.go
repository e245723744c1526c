package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/metrics"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// stores opens each store implementation the API is tested against, fresh
// and empty, closed when the test ends.
var stores = []struct {
	name string
	open func(t testing.TB) dynamo.Store
}{
	{"sqlite", func(t testing.TB) dynamo.Store {
		s, err := sqlite.Open(context.Background(), sqlitetest.Path(t, t.TempDir(), "dynamo.db"))
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"postgres", func(t testing.TB) dynamo.Store {
		s, err := postgres.Open(context.Background(), pgtest.DSN(t))
		if err != nil {
			t.Fatalf("open postgres: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
}

// forEachStore runs fn once per store implementation.
func forEachStore(t *testing.T, fn func(t *testing.T, open func(testing.TB) dynamo.Store)) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			fn(t, st.open)
		})
	}
}

// origin is a loopback web site whose pages the test changes.
type origin struct {
	*httptest.Server
	mu    sync.Mutex
	pages map[string][]byte
}

func newOrigin(t testing.TB) *origin {
	o := &origin{pages: map[string][]byte{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		page, ok := o.pages[r.URL.Path]
		o.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *origin) set(path string, page []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pages[path] = page
}

// story is one item of a test page.
type story struct{ title, link, desc string }

// annotatedPage writes an HTML page annotated for Dynamo with the stories.
func annotatedPage(channel string, stories ...story) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body>\n", html.EscapeString(channel))
	fmt.Fprintf(&b, "<h1><!-- <channel:title> -->%s<!-- </channel:title> --></h1>\n", html.EscapeString(channel))
	b.WriteString("<p><!-- <channel:description> -->Test stories.<!-- </channel:description> --></p>\n")
	for i, s := range stories {
		n := i + 1
		fmt.Fprintf(&b, "<div><!-- <item:link index=\"%d\"> --><a href=\"%s\"><!-- </item:link> -->", n, s.link)
		fmt.Fprintf(&b, "<!-- <item:title index=\"%d\"> -->%s<!-- </item:title> --></a>\n", n, html.EscapeString(s.title))
		fmt.Fprintf(&b, "<p><!-- <item:description index=\"%d\"> -->%s<!-- </item:description> --></p></div>\n", n, html.EscapeString(s.desc))
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

// testPoller is a small but real poller: it leases the source, fetches its
// page over loopback, wraps it and records the poll. It records a story as
// a duplicate of another source's item with the same title (by a rule of
// its own, "test-same-title", with score 1), which is enough to exercise
// the aggregate's naming of other sources; cmd/dynamo's tests run the real
// detector.
type testPoller struct {
	store    dynamo.Store
	client   *http.Client
	mu       sync.Mutex
	policy   string
	metrics  *metrics.Metrics
	interval time.Duration // next poll = now + interval
}

func newTestPoller(store dynamo.Store, m *metrics.Metrics) *testPoller {
	return &testPoller{store: store, client: &http.Client{Timeout: 10 * time.Second}, policy: "flat", metrics: m, interval: time.Hour}
}

func (p *testPoller) Policies() []string { return []string{"flat", "smart"} }

func (p *testPoller) Policy() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.policy
}

func (p *testPoller) SetPolicy(ctx context.Context, name string) error {
	if !slices.Contains(p.Policies(), name) {
		return fmt.Errorf("policy %q: %w", name, dynamo.ErrInvalid)
	}
	if err := p.store.PutSetting(ctx, "poller.policy", name); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.policy = name
	return nil
}

func (p *testPoller) PollNow(ctx context.Context, id string) (dynamo.PollOutcome, error) {
	start := time.Now()
	src, err := p.store.LeaseSource(ctx, id, "test-poller", start, time.Minute)
	if err != nil {
		return dynamo.PollOutcome{}, fmt.Errorf("poll %s: %w", id, err)
	}
	doc, fetchErr := p.fetch(ctx, src)
	primaries, err := p.otherTitles(ctx, id)
	if err != nil {
		return dynamo.PollOutcome{}, err
	}
	status := dynamo.StatusError
	res, err := p.store.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: "test-poller", At: start, Document: doc},
		func(r dynamo.PollResult) dynamo.PollUpdate {
			switch {
			case fetchErr != nil:
				status = dynamo.StatusError
			case r.Version != nil:
				status = dynamo.StatusChanged
			default:
				status = dynamo.StatusUnchanged
			}
			u := dynamo.PollUpdate{
				State: dynamo.PollState{LastPoll: start, NextPoll: start.Add(p.interval), LastStatus: status},
				Log:   dynamo.PollLogEntry{At: start, Status: status, Duration: time.Since(start), NewItems: len(r.NewItems)},
			}
			if r.Version != nil {
				u.State.LastChange = start
			}
			for _, it := range r.NewItems {
				if primary, ok := primaries[it.Item.Title]; ok {
					u.Duplicates = append(u.Duplicates, dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: id, ItemID: it.Item.ID},
						Primary: primary, Matched: primary, Rule: "test-same-title", Score: 1})
				}
			}
			return u
		})
	if err != nil {
		return dynamo.PollOutcome{}, fmt.Errorf("poll %s: %w", id, err)
	}
	p.metrics.ObservePoll(id, status, time.Since(start), res.Version != nil)
	out := dynamo.PollOutcome{Status: status, NewItems: len(res.NewItems)}
	if res.Version != nil {
		out.Version = res.Version.Seq
	}
	if fetchErr != nil {
		out.Error = fetchErr.Error()
	}
	return out, nil
}

func (p *testPoller) fetch(ctx context.Context, src *dynamo.Source) (*dynamo.Resource, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", src.URL, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	res := wrapper.Wrap(body, wrapper.Options{URL: src.URL, RSSID: src.ID, ContentType: resp.Header.Get("Content-Type")})
	return res.Resource, nil
}

// otherTitles maps the titles of other sources' items to their keys.
func (p *testPoller) otherTitles(ctx context.Context, id string) (map[string]dynamo.ItemKey, error) {
	sources, err := p.store.Sources(ctx)
	if err != nil {
		return nil, err
	}
	titles := map[string]dynamo.ItemKey{}
	for _, s := range sources {
		if s.ID == id {
			continue
		}
		items, err := p.store.Items(ctx, dynamo.ItemQuery{SourceID: s.ID})
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if it.DuplicateOf == nil {
				titles[it.Item.Title] = dynamo.ItemKey{SourceID: s.ID, ItemID: it.Item.ID}
			}
		}
	}
	return titles, nil
}

// env is a running Dynamo API over a fresh store, with an origin site.
type env struct {
	t       testing.TB
	store   dynamo.Store
	poller  *testPoller
	server  *api.Server
	http    *httptest.Server
	origin  *origin
	metrics *metrics.Metrics
}

type envOption func(*api.Config)

func withToken(token string) envOption { return func(c *api.Config) { c.AdminToken = token } }

// newEnv starts the API over the store, with its change watcher running.
func newEnv(t testing.TB, store dynamo.Store, opts ...envOption) *env {
	m := metrics.New()
	e := &env{t: t, store: store, poller: newTestPoller(store, m), origin: newOrigin(t), metrics: m}
	cfg := api.Config{Store: store, Poller: e.poller, Metrics: m}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := api.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.server = srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	e.http = httptest.NewServer(srv)
	t.Cleanup(e.http.Close)
	if cfg.CacheBytes >= 0 {
		e.waitCacheOn()
	}
	return e
}

// waitCacheOn waits until the watcher is up, so that tests of the cache
// start from a known state. A minute is only the bound on a watcher that
// never starts: under -race on a loaded machine it can take seconds.
func (e *env) waitCacheOn() {
	e.t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		var st struct {
			Cache struct{ Enabled bool } `json:"cache"`
		}
		e.getJSON("/api/stats", &st)
		if st.Cache.Enabled {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatal("the API's change watcher did not start within a minute")
}

// response is an answer read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (e *env) do(method, path string, body []byte, header ...string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

func (e *env) get(path string, header ...string) response {
	e.t.Helper()
	return e.do(http.MethodGet, path, nil, header...)
}

// must fails the test unless the answer has the status.
func (r response) must(t testing.TB, status int, what string) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d\n%s", what, r.status, status, r.body)
	}
	return r
}

// cachedPair gets first, then second, and reports whether second was
// answered from the cache (one more cache hit). PostgreSQL delivers the
// change notifications of a test's setup asynchronously, and one arriving
// between the two reads rightly drops the entry, so the pair is read again
// until second hits or 10 s pass: a second that can never hit still fails.
func (e *env) cachedPair(first, second string) (a, b response, hit bool) {
	e.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		a = e.get(first).must(e.t, http.StatusOK, first)
		hits := counter(e.t, e.metrics, "dynamo_cache_lookups_total", "result", "hit")
		b = e.get(second).must(e.t, http.StatusOK, second)
		hit = counter(e.t, e.metrics, "dynamo_cache_lookups_total", "result", "hit") == hits+1
		if hit || time.Now().After(deadline) {
			return a, b, hit
		}
	}
}

func (e *env) getJSON(path string, v any) {
	e.t.Helper()
	r := e.get(path).must(e.t, http.StatusOK, "GET "+path)
	if err := json.Unmarshal(r.body, v); err != nil {
		e.t.Fatalf("GET %s: %v\n%s", path, err, r.body)
	}
}

// addSource registers a page of the origin as a source through the API.
func (e *env) addSource(id, path string, extra ...string) {
	e.t.Helper()
	fields := []string{fmt.Sprintf(`"id":%q`, id), fmt.Sprintf(`"url":%q`, e.origin.URL+path), `"kind":"html"`, `"interval":"1h"`}
	body := "{" + strings.Join(append(fields, extra...), ",") + "}"
	e.do(http.MethodPost, "/api/sources", []byte(body)).must(e.t, http.StatusCreated, "create "+id)
}

// poll polls a source through the API and returns the outcome.
func (e *env) poll(id string) dynamo.PollOutcome {
	e.t.Helper()
	r := e.do(http.MethodPost, "/api/sources/"+id+"/poll", nil).must(e.t, http.StatusOK, "poll "+id)
	var out dynamo.PollOutcome
	if err := json.Unmarshal(r.body, &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// waitFor retries check until it passes, for effects that travel through
// the store's change feed; it fails the test when they have not arrived
// within a minute (the bound is for effects that never arrive, not a
// measure of their speed).
func waitFor(t testing.TB, what string, check func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if err = check(); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, err)
}

var errNotYet = errors.New("not yet")

// counter reads a counter's value from the metrics registry.
func counter(t testing.TB, m *metrics.Metrics, name, label, value string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, metric := range f.GetMetric() {
			for _, l := range metric.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return metric.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no counter %s{%s=%q}", name, label, value)
	return 0
}
