package poller_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/dedup"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// origin is a loopback web site whose pages the test rewrites.
type origin struct {
	*httptest.Server
	mu    sync.Mutex
	pages map[string]page
	hits  atomic.Int64
}

type page struct {
	body        string
	contentType string
	status      int
	delay       time.Duration
	// gate, when not nil, holds every answer until it is closed: a fetch
	// kept in flight for exactly as long as a test needs, whatever the
	// machine's speed.
	gate   <-chan struct{}
	header http.Header // sent with every answer, errors included
}

func newOrigin(t *testing.T) *origin {
	t.Helper()
	o := &origin{pages: map[string]page{}}
	o.Server = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.Close)
	return o
}

func (o *origin) set(path string, p page) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pages[path] = p
}

func (o *origin) serve(w http.ResponseWriter, r *http.Request) {
	o.hits.Add(1)
	o.mu.Lock()
	p, ok := o.pages[r.URL.Path]
	o.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if p.delay > 0 {
		select {
		case <-time.After(p.delay):
		case <-r.Context().Done():
			return
		}
	}
	if p.gate != nil {
		select {
		case <-p.gate:
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range p.header {
		w.Header()[k] = v
	}
	if p.status != 0 && p.status != http.StatusOK {
		http.Error(w, "failing on purpose", p.status)
		return
	}
	etag := fmt.Sprintf(`"%x"`, len(p.body)*31+int(p.body[len(p.body)/2]))
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	ct := p.contentType
	if ct == "" {
		ct = "text/html; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	fmt.Fprint(w, p.body)
}

// annotated is a page with the given item titles, each annotated.
func annotated(titles ...string) string {
	var b strings.Builder
	b.WriteString("<html><body><h1><!-- <channel:title> -->Town news<!-- </channel:title> --></h1>\n<ul>\n")
	for i, title := range titles {
		fmt.Fprintf(&b, "<li><!-- <item:title index=\"%d\"> -->%s<!-- </item:title> -->\n<!-- <item:description index=\"%d\"> -->About %s, in some detail.<!-- </item:description> --></li>\n", i+1, title, i+1, title)
	}
	b.WriteString("</ul></body></html>\n")
	return b.String()
}

func rss(titles ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Wire</title><link>http://wire.example/</link><description>d</description>`)
	for _, title := range titles {
		fmt.Fprintf(&b, "<item><title>%s</title><link>http://wire.example/%s</link><guid>%s</guid><description>Story %s told at length.</description></item>", title, strings.ReplaceAll(title, " ", "-"), title, title)
	}
	b.WriteString("</channel></rss>")
	return b.String()
}

func openStore(t *testing.T) dynamo.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlitetest.Path(t, t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newPoller(t *testing.T, st dynamo.Store, mutate ...func(*poller.Config)) *poller.Poller {
	t.Helper()
	cfg := poller.Config{
		Store: st,
		// The timeout bounds a fetch that never ends; a loopback page
		// delayed on purpose can take seconds on a loaded machine.
		Fetcher: fetch.New(fetch.Options{AllowPrivate: true, Timeout: time.Minute, HostGap: -1}),
		Owner:   "test-" + t.Name(),
		Tick:    10 * time.Millisecond,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	p, err := poller.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func addSource(t *testing.T, st dynamo.Store, id, url string, kind dynamo.SourceKind) {
	t.Helper()
	src := &dynamo.Source{ID: id, URL: url, Kind: kind, Interval: dynamo.Duration(time.Hour)}
	if err := st.CreateSource(context.Background(), src); err != nil {
		t.Fatal(err)
	}
}

func pollNow(t *testing.T, p *poller.Poller, id string) dynamo.PollOutcome {
	t.Helper()
	out, err := p.PollNow(context.Background(), id)
	if err != nil {
		t.Fatalf("poll %s: %v", id, err)
	}
	return out
}

func TestPollStoresVersionsOnlyWhenContentChanges(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/news", page{body: annotated("Bridge reopens", "Market day")})
	addSource(t, st, "news", o.URL+"/news", dynamo.KindHTML)
	p := newPoller(t, st)

	steps := []struct {
		name     string
		body     string
		status   dynamo.PollStatus
		newItems int
	}{
		{"first poll", "", dynamo.StatusChanged, 2},
		{"same page: the origin answers 304", "", dynamo.StatusNotModified, 0},
		{"a new story", annotated("Library opens", "Bridge reopens", "Market day"), dynamo.StatusChanged, 1},
		{"a story dropped", annotated("Library opens", "Bridge reopens"), dynamo.StatusChanged, 0},
	}
	for _, step := range steps {
		if step.body != "" {
			o.set("/news", page{body: step.body})
		}
		out := pollNow(t, p, "news")
		if out.Status != step.status || out.NewItems != step.newItems {
			t.Fatalf("%s: outcome %+v, want status %s with %d new items", step.name, out, step.status, step.newItems)
		}
	}
	versions, err := st.Versions(ctx, "news")
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != 3 {
		t.Fatalf("%d versions, want 3", len(versions))
	}
	items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: "news"})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 {
		t.Fatalf("archive holds %d items, want the 3 ever seen (a dropped story stays)", len(items))
	}
	src, err := st.Source(ctx, "news")
	if err != nil {
		t.Fatal(err)
	}
	if src.State.ETag == "" || src.State.LastStatus != dynamo.StatusChanged || !src.State.NextPoll.After(src.State.LastPoll) {
		t.Fatalf("state not kept: %+v", src.State)
	}
}

func TestUnchangedBodyIsNotStoredAgain(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	// An origin without validators: every poll is a full 200.
	body := annotated("Only story")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	t.Cleanup(srv.Close)
	addSource(t, st, "plain", srv.URL, dynamo.KindHTML)
	p := newPoller(t, st)
	pollNow(t, p, "plain")
	for range 3 {
		if out := pollNow(t, p, "plain"); out.Status != dynamo.StatusUnchanged {
			t.Fatalf("repeat poll: %+v, want unchanged", out)
		}
	}
	versions, err := st.Versions(ctx, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != 1 {
		t.Fatalf("%d versions after identical polls, want 1", len(versions))
	}
}

func TestNativeFeedIsArchivedAndKeepsDroppedItems(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/feed.xml", page{body: rss("one", "two"), contentType: "application/rss+xml"})
	addSource(t, st, "wire", o.URL+"/feed.xml", dynamo.KindAuto)
	p := newPoller(t, st)
	pollNow(t, p, "wire")
	o.set("/feed.xml", page{body: rss("three"), contentType: "application/rss+xml"})
	if out := pollNow(t, p, "wire"); out.Status != dynamo.StatusChanged || out.NewItems != 1 {
		t.Fatalf("second poll: %+v", out)
	}
	items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: "wire"})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, it := range items {
		titles = append(titles, it.Item.Title)
	}
	if got := strings.Join(titles, ","); got != "three,one,two" {
		t.Fatalf("archive %s, want three,one,two (newest first, dropped kept)", got)
	}
}

func TestFailingSourceBacksOffAndRecovers(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/p", page{body: annotated("x"), status: http.StatusInternalServerError})
	addSource(t, st, "flaky", o.URL+"/p", dynamo.KindHTML)
	p := newPoller(t, st)
	var waits []time.Duration
	for range 3 {
		out := pollNow(t, p, "flaky")
		if out.Status != dynamo.StatusError || !strings.Contains(out.Error, "500") {
			t.Fatalf("outcome %+v, want an error naming the status", out)
		}
		src, err := st.Source(ctx, "flaky")
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, src.State.NextPoll.Sub(src.State.LastPoll))
	}
	src, _ := st.Source(ctx, "flaky")
	if src.State.Errors != 3 || src.State.LastError == "" {
		t.Fatalf("errors %d, last %q; want 3 and a message", src.State.Errors, src.State.LastError)
	}
	// Equal jitter keeps each wait within [base·2^(n-1)/2, base·2^(n-1)],
	// so the third wait is always longer than the first.
	if waits[2] <= waits[0] {
		t.Fatalf("back-off does not grow: %v", waits)
	}
	o.set("/p", page{body: annotated("x")})
	if out := pollNow(t, p, "flaky"); out.Status != dynamo.StatusChanged {
		t.Fatalf("after recovery: %+v", out)
	}
	src, _ = st.Source(ctx, "flaky")
	if src.State.Errors != 0 || src.State.LastError != "" {
		t.Fatalf("errors not cleared: %+v", src.State)
	}
	// The poll log says what the origin answered each time.
	polls, err := st.Polls(ctx, "flaky", 0)
	if err != nil || len(polls) != 4 {
		t.Fatalf("%d polls logged (%v), want 4", len(polls), err)
	}
	body := int64(len(annotated("x")))
	if p := polls[0]; p.Status != dynamo.StatusChanged || p.HTTPStatus != 200 || p.Bytes != body || p.Error != "" {
		t.Errorf("the recovered poll logged %+v, want changed, 200, %d bytes", p, body)
	}
	for _, p := range polls[1:] {
		if p.Status != dynamo.StatusError || p.HTTPStatus != 500 || p.Bytes != 0 || !strings.Contains(p.Error, "500") {
			t.Errorf("a failed poll logged %+v, want error, 500, no bytes", p)
		}
	}
}

func TestRefusedDestinationIsRecordedOnTheSource(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/p", page{body: annotated("x")})
	addSource(t, st, "inside", o.URL+"/p", dynamo.KindHTML)
	p := newPoller(t, st, func(c *poller.Config) { c.Fetcher = fetch.New(fetch.Options{}) })
	out := pollNow(t, p, "inside")
	if out.Status != dynamo.StatusError {
		t.Fatalf("loopback origin polled with the guard on: %+v", out)
	}
	src, _ := st.Source(ctx, "inside")
	if src.State.LastError == "" {
		t.Fatal("the refusal is not recorded on the source")
	}
	if o.hits.Load() != 0 {
		t.Fatalf("the guarded fetcher reached the origin %d times", o.hits.Load())
	}
}

func TestRunPollsDueSourcesAndASlowOneHoldsUpNobody(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	// Each source has a host of its own: sources on one host take turns
	// by design (politeness), sources on others must not wait.
	slowHost := newOrigin(t)
	// The slow page answers only once the others are stored and the
	// poller told to stop, however long that takes on a busy machine.
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release) // before the origin closes, which waits for its answers
	slowHost.set("/slow", page{body: annotated("slow"), gate: gate})
	// Its id comes first, so it is leased first and is in flight at the end.
	addSource(t, st, "a-slow", slowHost.URL+"/slow", dynamo.KindHTML)
	for i := range 10 {
		o := newOrigin(t)
		path := fmt.Sprintf("/s%d", i)
		o.set(path, page{body: annotated(fmt.Sprintf("story %d", i))})
		addSource(t, st, fmt.Sprintf("s%d", i), o.URL+path, dynamo.KindHTML)
	}
	p := newPoller(t, st, func(c *poller.Config) {
		c.Workers = 3
		// Longer than the waits below: the slow fetch must not time out.
		c.Fetcher = fetch.New(fetch.Options{AllowPrivate: true, Timeout: 2 * time.Minute, HostGap: -1})
	})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()

	waitFor(t, time.Minute, func() bool {
		for i := range 10 {
			if vs, _ := st.Versions(ctx, fmt.Sprintf("s%d", i)); len(vs) != 1 {
				return false
			}
		}
		return true
	})
	if n := slowHost.hits.Load(); n != 1 {
		t.Fatalf("the slow page was asked %d times while the others were polled, want once (in flight)", n)
	}
	slow, _ := st.Source(ctx, "a-slow")
	if !slow.State.LastPoll.IsZero() {
		t.Fatal("the slow source was recorded before its page answered")
	}
	stop()
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The slow poll was in flight at shutdown: it finished and was stored.
	if vs, _ := st.Versions(ctx, "a-slow"); len(vs) != 1 {
		t.Fatalf("in-flight poll lost at shutdown: %d versions", len(vs))
	}
	// Nothing is due again soon, and no lease survived the shutdown.
	sources, _ := st.Sources(ctx)
	for _, src := range sources {
		if src.Summary.LeaseOwner != "" && src.Summary.LeaseExpires.After(time.Now()) {
			t.Fatalf("%s still leased by %s after shutdown", src.ID, src.Summary.LeaseOwner)
		}
	}
}

func TestPolicySwitchReachesEveryPoller(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	a := newPoller(t, st)
	b := newPoller(t, st, func(c *poller.Config) { c.Owner = "other" })
	if err := a.SetPolicy(ctx, "no-such-policy"); !errors.Is(err, dynamo.ErrInvalid) {
		t.Fatalf("unknown policy accepted: %v", err)
	}
	if err := a.SetPolicy(ctx, "min-delay"); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- b.Run(runCtx) }()
	waitFor(t, time.Minute, func() bool { return b.Policy() == "min-delay" })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestDuplicateStoriesAcrossSourcesAreRecorded(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	story := "Council approves new bridge over the river after long debate"
	o.set("/a", page{body: annotated(story)})
	o.set("/b", page{body: annotated(story + "!")})
	addSource(t, st, "a", o.URL+"/a", dynamo.KindHTML)
	addSource(t, st, "b", o.URL+"/b", dynamo.KindHTML)
	det, err := dedup.NewStories(dedup.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p := newPoller(t, st, func(c *poller.Config) { c.Duplicates = det })
	pollNow(t, p, "a")
	pollNow(t, p, "b")
	items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].DuplicateOf == nil || items[0].DuplicateOf.SourceID != "a" ||
		items[0].DuplicateRule == "" || items[0].DuplicateScore <= 0 {
		t.Fatalf("b's story not recorded as a duplicate of a's, with a rule and a score: %+v", items)
	}
}

// A story another process stored (here: written to the store directly, as
// that process's poll would) is known to this poller's detector when it
// next stores new items: the store hands it over under the stories lock.
func TestStoriesOtherProcessesStoredAreCaughtUp(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	story := "Council approves new bridge over the river after long debate"
	o.set("/b", page{body: annotated(story)})
	addSource(t, st, "a", "http://127.0.0.1:9/a", dynamo.KindHTML)
	addSource(t, st, "b", o.URL+"/b", dynamo.KindHTML)
	det, err := dedup.NewStories(dedup.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p := newPoller(t, st, func(c *poller.Config) { c.Duplicates = det })

	at := time.Now().UTC()
	if _, err := st.LeaseSource(ctx, "a", "other", at, time.Minute); err != nil {
		t.Fatal(err)
	}
	doc := &dynamo.Resource{RSSID: "a", Timestamp: at, Channel: dynamo.Channel{Title: "Other"},
		Items: []dynamo.Item{{Index: 1, ID: "bridge", Title: story, Link: "http://127.0.0.1:9/bridge",
			Description: "About " + story + ", in some detail."}}}
	if _, err := st.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "other", At: at, Document: doc, Stories: true},
		func(dynamo.PollResult) dynamo.PollUpdate {
			return dynamo.PollUpdate{State: dynamo.PollState{LastPoll: at, NextPoll: at.Add(time.Hour)}, Log: dynamo.PollLogEntry{At: at, Status: dynamo.StatusChanged}}
		}); err != nil {
		t.Fatal(err)
	}
	if det.Stats().Entries != 0 {
		t.Fatal("the detector holds the other process's item before any poll of its own")
	}
	pollNow(t, p, "b")
	items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	want := dynamo.ItemKey{SourceID: "a", ItemID: "bridge"}
	if len(items) != 1 || items[0].DuplicateOf == nil || *items[0].DuplicateOf != want {
		t.Fatalf("b's copy of the other process's story: %+v, want a copy of %+v", items, want)
	}
}

func waitFor(t *testing.T, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The poll-now outcome names the stored version by its sequence number, and
// carries the error of a failed poll.
func TestPollNowOutcome(t *testing.T) {
	st := openStore(t)
	o := newOrigin(t)
	o.set("/p", page{body: annotated("One")})
	addSource(t, st, "p", o.URL+"/p", dynamo.KindHTML)
	p := newPoller(t, st)
	steps := []struct {
		name string
		page page
		want dynamo.PollOutcome
	}{
		{"first version", page{body: annotated("One")}, dynamo.PollOutcome{Status: dynamo.StatusChanged, Version: 1, NewItems: 1}},
		{"304", page{body: annotated("One")}, dynamo.PollOutcome{Status: dynamo.StatusNotModified}},
		{"second version", page{body: annotated("Two", "One")}, dynamo.PollOutcome{Status: dynamo.StatusChanged, Version: 2, NewItems: 1}},
		{"error", page{body: annotated("Two", "One"), status: http.StatusBadGateway}, dynamo.PollOutcome{Status: dynamo.StatusError, Error: "502"}},
		{"third version", page{body: annotated("Three")}, dynamo.PollOutcome{Status: dynamo.StatusChanged, Version: 3, NewItems: 1}},
	}
	for _, step := range steps {
		o.set("/p", step.page)
		got := pollNow(t, p, "p")
		if got.Status != step.want.Status || got.Version != step.want.Version || got.NewItems != step.want.NewItems ||
			!strings.Contains(got.Error, step.want.Error) || (step.want.Error == "") != (got.Error == "") {
			t.Errorf("%s: outcome %+v, want %+v", step.name, got, step.want)
		}
	}
}

// An item already seen in the source is not new: the same id (a feed's
// guid, a page item's own link), or, for an item whose id comes from its
// content, the same title (docs/STORAGE.md "Schema", items). Its new content still makes a version.
func TestSameIDOrSameTitleIsNotNew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	p := newPoller(t, st)
	cases := []struct {
		name, kind    string
		before, after string
		contentType   string
	}{
		{"page item known by its title, description edited", "html",
			annotated("Bridge reopens"),
			strings.Replace(annotated("Bridge reopens"), "in some detail", "with a correction", 1), ""},
		{"page item known by its own link, title edited", "html",
			`<!-- <item:link index="1"> --><a href="/story/1"><!-- </item:link> --><!-- <item:title index="1"> -->Bridge reopens<!-- </item:title> --></a>`,
			`<!-- <item:link index="1"> --><a href="/story/1"><!-- </item:link> --><!-- <item:title index="1"> -->Bridge reopens on Monday<!-- </item:title> --></a>`, ""},
		{"feed item known by its guid, title edited", "feed",
			rss("one"),
			strings.Replace(rss("one"), "<title>one</title>", "<title>one, updated</title>", 1), "application/rss+xml"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id, path := fmt.Sprintf("c%d", i), fmt.Sprintf("/c%d", i)
			o.set(path, page{body: tc.before, contentType: tc.contentType})
			addSource(t, st, id, o.URL+path, dynamo.SourceKind(tc.kind))
			if out := pollNow(t, p, id); out.NewItems != 1 {
				t.Fatalf("first poll: %+v, want 1 new item", out)
			}
			o.set(path, page{body: tc.after, contentType: tc.contentType})
			out := pollNow(t, p, id)
			if out.Status != dynamo.StatusChanged || out.NewItems != 0 {
				t.Fatalf("edited item: %+v, want a new version with no new item", out)
			}
			items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: id})
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 1 {
				t.Fatalf("the archive lists %d items, want the edited one once", len(items))
			}
			src, err := st.Source(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src.State.Schedule), `"new_items":1`) {
				t.Errorf("the scheduler learnt %s, want 1 new item in all", src.State.Schedule)
			}
		})
	}
}

// What the origin says about freshness is a floor under the next poll:
// Cache-Control max-age, Expires, an RSS <ttl> and a 429's Retry-After
// push it back, never forward; without them the policy's interval stands.
func TestOriginFreshnessIsAFloor(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	p := newPoller(t, st, func(c *poller.Config) { c.Policy = "flat" })
	const interval = 10 * time.Minute
	feed := strings.Replace(rss("one"), "<description>d</description>", "<description>d</description><ttl>240</ttl>", 1)
	cases := []struct {
		name string
		page page
		want time.Duration // from the poll to the next
	}{
		{"no freshness information: the interval", page{body: annotated("x")}, interval},
		{"max-age above the interval", page{body: annotated("x"), header: http.Header{"Cache-Control": {"max-age=7200"}}}, 2 * time.Hour},
		{"max-age below the interval", page{body: annotated("x"), header: http.Header{"Cache-Control": {"max-age=60"}}}, interval},
		{"Expires", page{body: annotated("x"), header: http.Header{"Expires": {time.Now().Add(3 * time.Hour).UTC().Format(http.TimeFormat)}}}, 3 * time.Hour},
		{"RSS ttl", page{body: feed, contentType: "application/rss+xml"}, 4 * time.Hour},
		{"429 with Retry-After", page{body: annotated("x"), status: http.StatusTooManyRequests, header: http.Header{"Retry-After": {"5400"}}}, 90 * time.Minute},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id, path := fmt.Sprintf("f%d", i), fmt.Sprintf("/f%d", i)
			o.set(path, tc.page)
			src := &dynamo.Source{ID: id, URL: o.URL + path, Kind: dynamo.KindAuto, Interval: dynamo.Duration(interval)}
			if err := st.CreateSource(ctx, src); err != nil {
				t.Fatal(err)
			}
			pollNow(t, p, id)
			got, err := st.Source(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			// The Expires header has whole seconds, and the test's clock
			// runs on while it polls.
			if wait := got.State.NextPoll.Sub(got.State.LastPoll); wait < tc.want-5*time.Second || wait > tc.want+5*time.Second {
				t.Errorf("next poll %v after the poll, want %v (status %s, error %q)", wait, tc.want, got.State.LastStatus, got.State.LastError)
			}
		})
	}
}

// Each source follows its own policy when it names one, else the global
// one, which an operator switches while the poller runs; the learnt state
// is stored with the source, whichever policy is active.
func TestPoliciesPerSourceAndSwitchedAtRunTime(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	var now atomic.Int64
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	now.Store(t0.Unix())
	p := newPoller(t, st, func(c *poller.Config) {
		c.Policy = "smart"
		c.Now = func() time.Time { return time.Unix(now.Load(), 0).UTC() }
	})
	const interval = 2 * time.Hour
	for _, src := range []*dynamo.Source{
		{ID: "fixed", URL: o.URL + "/fixed", Kind: dynamo.KindHTML, Interval: dynamo.Duration(interval), Policy: "flat"},
		{ID: "global", URL: o.URL + "/global", Kind: dynamo.KindHTML, Interval: dynamo.Duration(interval)},
	} {
		if err := st.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	// Both pages change every 20 minutes.
	pollAt := func(minutes int) (fixed, global *dynamo.Source) {
		t.Helper()
		now.Store(t0.Add(time.Duration(minutes) * time.Minute).Unix())
		for _, id := range []string{"fixed", "global"} {
			// (The origin's ETag follows the body's length.)
			o.set("/"+id, page{body: annotated(id + strings.Repeat(" and more", minutes))})
			if out := pollNow(t, p, id); out.Status != dynamo.StatusChanged {
				t.Fatalf("%s at minute %d: %+v", id, minutes, out)
			}
		}
		var err error
		if fixed, err = st.Source(ctx, "fixed"); err != nil {
			t.Fatal(err)
		}
		if global, err = st.Source(ctx, "global"); err != nil {
			t.Fatal(err)
		}
		return fixed, global
	}
	wait := func(src *dynamo.Source) time.Duration { return src.State.NextPoll.Sub(src.State.LastPoll) }

	pollAt(0)
	pollAt(20)
	fixed, global := pollAt(40)
	if wait(fixed) != interval {
		t.Errorf("flat source waits %v, want its interval %v", wait(fixed), interval)
	}
	if w := wait(global); w >= interval || w < 5*time.Minute {
		t.Errorf("smart source waits %v; changes every 20 minutes should bring it under %v", w, interval)
	}
	if !strings.Contains(string(global.State.Schedule), `"change_intervals_s":[1200,1200]`) {
		t.Errorf("learnt state not stored: %s", global.State.Schedule)
	}

	if err := p.SetPolicy(ctx, "flat"); err != nil {
		t.Fatal(err)
	}
	fixed, global = pollAt(60)
	if wait(global) != interval || wait(fixed) != interval {
		t.Errorf("after switching to flat: waits %v and %v, want %v", wait(global), wait(fixed), interval)
	}
	if !strings.Contains(string(global.State.Schedule), `"change_intervals_s":[1200,1200,1200]`) {
		t.Errorf("flat stopped the learning: %s", global.State.Schedule)
	}
	// Another poller on the same store (a restart) follows the switch.
	other := newPoller(t, st, func(c *poller.Config) { c.Policy = "smart"; c.Owner = "restarted" })
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- other.Run(runCtx) }()
	waitFor(t, time.Minute, func() bool { return other.Policy() == "flat" })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestPollNowWaitsForTheScheduledPollOfItsSource asks for a poll of a
// source while the scheduled loop of the same process is polling it. Both
// hold the lease under one owner, so only the poller can keep them apart:
// poll-now waits for the scheduled poll, then polls on its own, and both
// are recorded.
func TestPollNowWaitsForTheScheduledPollOfItsSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/slow", page{body: annotated("first"), delay: 700 * time.Millisecond})
	addSource(t, st, "slow", o.URL+"/slow", dynamo.KindHTML)
	p := newPoller(t, st)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	waitFor(t, time.Minute, func() bool { return o.hits.Load() == 1 }) // the scheduled poll is at the origin
	o.set("/slow", page{body: annotated("first", "second"), delay: 700 * time.Millisecond})
	out, err := p.PollNow(ctx, "slow")
	if err != nil {
		t.Fatalf("poll now during the scheduled poll: %v", err)
	}
	if out.Status != dynamo.StatusChanged || out.Version != 2 || out.NewItems != 1 {
		t.Errorf("poll now = %+v, want version 2 with 1 new item", out)
	}
	if hits := o.hits.Load(); hits != 2 {
		t.Errorf("origin served %d requests, want 2: the scheduled poll and poll-now's own", hits)
	}
	polls, err := st.Polls(ctx, "slow", 10)
	if err != nil || len(polls) != 2 {
		t.Fatalf("%d polls logged (%v), want both", len(polls), err)
	}
	for _, pl := range polls {
		if pl.Status == dynamo.StatusError {
			t.Errorf("a poll failed: %+v", pl)
		}
	}
}

// TestMovedSourceReadsTheNewAddress moves a source to another origin that
// serves the same bytes with the same ETag, whose relative links therefore
// resolve elsewhere: the move drops the old address's validators and body
// hash, so the next poll reads the new page in full and stores its links.
func TestMovedSourceReadsTheNewAddress(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	body := `<html><body><h1><!-- <channel:title> -->Town news<!-- </channel:title> --></h1>
<p><!-- <item:link index="1"> --><a href="stories/bridge.html"><!-- </item:link> --><!-- <item:title index="1"> -->Bridge reopens<!-- </item:title> --></a></p>
</body></html>`
	before, after := newOrigin(t), newOrigin(t)
	before.set("/news/", page{body: body})
	after.set("/news/", page{body: body})
	addSource(t, st, "news", before.URL+"/news/", dynamo.KindHTML)
	p := newPoller(t, st)
	pollNow(t, p, "news")
	if out := pollNow(t, p, "news"); out.Status != dynamo.StatusNotModified {
		t.Fatalf("second poll at the first origin: %+v, want not_modified", out)
	}

	src, err := st.Source(ctx, "news")
	if err != nil {
		t.Fatal(err)
	}
	src.URL = after.URL + "/news/"
	if err := st.UpdateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	if out := pollNow(t, p, "news"); out.Status != dynamo.StatusChanged {
		t.Fatalf("first poll at the new origin: %+v, want changed", out)
	}
	doc, _, err := st.Document(ctx, "news", 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := after.URL + "/news/stories/bridge.html"; len(doc.Items) != 1 || doc.Items[0].Link != want {
		t.Fatalf("latest version's items %+v, want one linking to %s", doc.Items, want)
	}
	if after.hits.Load() != 1 {
		t.Errorf("the new origin was asked %d times, want once", after.hits.Load())
	}
}

// A poller that starts under an owner whose leases a killed run left
// behind takes them back at once: Run polls the due source without waiting
// for the lease to expire.
func TestRunTakesBackItsOwnersLeases(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/p", page{body: annotated("Bridge reopens")})
	addSource(t, st, "town", o.URL+"/p", dynamo.KindHTML)
	// The killed run's lease, for an hour.
	if _, err := st.LeaseSource(ctx, "town", "host/127.0.0.1:8080", time.Now(), time.Hour); err != nil {
		t.Fatal(err)
	}
	p := newPoller(t, st, func(c *poller.Config) { c.Owner = "host/127.0.0.1:8080" })
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	waitFor(t, time.Minute, func() bool {
		vs, _ := st.Versions(ctx, "town")
		return len(vs) == 1
	})
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Poll-now of a source another process holds is a conflict that names the
// holder and when its lease ends, and sends nothing to the origin.
func TestPollNowNamesTheHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/p", page{body: annotated("Bridge reopens")})
	addSource(t, st, "town", o.URL+"/p", dynamo.KindHTML)
	held, err := st.LeaseSource(ctx, "town", "other-host/10.0.0.2:8080", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ends := held.Summary.LeaseExpires.UTC().Format(time.RFC3339)
	_, err = newPoller(t, st).PollNow(ctx, "town")
	if !errors.Is(err, dynamo.ErrConflict) {
		t.Fatalf("poll-now of a held source: %v, want a conflict", err)
	}
	for _, want := range []string{`"other-host/10.0.0.2:8080"`, ends} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
	if o.hits.Load() != 0 {
		t.Errorf("the origin was asked %d times", o.hits.Load())
	}
}

// A poll that takes longer than the lease keeps its lease by renewing it:
// a second poller running beside it never takes the source over, so the
// page is fetched once.
//
// Both pollers read one clock that only the test moves, so that the lease
// expires only when the test says, whatever the load on the machine: while
// the page is held, the clock moves on half a lease at a time, each step
// once the lease holder has renewed at the time before, until five leases
// have passed.
func TestLongPollRenewsItsLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release) // before the origin closes, which waits for its answers
	o.set("/slow", page{body: annotated("Slow story"), gate: gate})
	addSource(t, st, "slow", o.URL+"/slow", dynamo.KindHTML)
	const ttl = 300 * time.Millisecond
	var clock atomic.Int64 // Unix nanoseconds
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	shared := func(c *poller.Config) {
		c.LeaseTTL = ttl
		c.Now = now
		// Longer than the waits below: the held fetch must not time out.
		c.Fetcher = fetch.New(fetch.Options{AllowPrivate: true, Timeout: 2 * time.Minute, HostGap: -1})
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 2)
	for _, owner := range []string{"first", "second"} {
		p := newPoller(t, st, shared, func(c *poller.Config) { c.Owner = owner })
		go func() { done <- p.Run(runCtx) }()
	}
	waitFor(t, time.Minute, func() bool { return o.hits.Load() == 1 })
	src, _ := st.Source(ctx, "slow")
	holder := src.Summary.LeaseOwner
	if holder == "" {
		t.Fatal("the page is being fetched but the source is not leased")
	}
	for range 10 {
		clock.Add(int64(ttl / 2))
		at := now()
		// Renewed at the new time: the lease now ends a whole lease
		// after it, not half a lease as before.
		waitFor(t, time.Minute, func() bool {
			src, _ := st.Source(ctx, "slow")
			if src.Summary.LeaseOwner != holder {
				t.Fatalf("the lease passed from %s to %q during the fetch", holder, src.Summary.LeaseOwner)
			}
			return src.Summary.LeaseExpires.After(at.Add(ttl * 3 / 4))
		})
	}
	release()
	waitFor(t, time.Minute, func() bool {
		vs, _ := st.Versions(ctx, "slow")
		return len(vs) == 1
	})
	stop()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := o.hits.Load(); n != 1 {
		t.Fatalf("the slow page was fetched %d times over five leases' time, want once", n)
	}
}

// The loop leases only what it can fetch at once: of many due sources on
// one host, one at a time, so the others stay free for other pollers
// rather than wait, leased, behind the host's turn.
func TestRunLeasesOneSourcePerHost(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	for i := range 6 {
		path := fmt.Sprintf("/p%d", i)
		o.set(path, page{body: annotated(fmt.Sprintf("story %d", i)), delay: 200 * time.Millisecond})
		addSource(t, st, fmt.Sprintf("s%d", i), o.URL+path, dynamo.KindHTML)
	}
	p := newPoller(t, st, func(c *poller.Config) { c.Workers = 4 })
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx) }()
	most := 0
	waitFor(t, 20*time.Second, func() bool {
		sources, _ := st.Sources(ctx)
		leased, stored := 0, 0
		for _, src := range sources {
			if src.Summary.LeaseOwner != "" && src.Summary.LeaseExpires.After(time.Now()) {
				leased++
			}
			if src.Summary.Versions > 0 {
				stored++
			}
		}
		most = max(most, leased)
		return stored == 6
	})
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if most != 1 {
		t.Fatalf("up to %d sources of one host leased at once, want 1", most)
	}
}

// A page with more items than a version may hold keeps its first MaxItems,
// and its source says how many were dropped.
func TestItemsPerVersionAreCapped(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	o := newOrigin(t)
	o.set("/feed.xml", page{body: rss("one", "two", "three", "four", "five"), contentType: "application/rss+xml"})
	addSource(t, st, "flood", o.URL+"/feed.xml", dynamo.KindFeed)
	p := newPoller(t, st, func(c *poller.Config) { c.MaxItems = 3 })
	if out := pollNow(t, p, "flood"); out.Status != dynamo.StatusChanged || out.NewItems != 3 {
		t.Fatalf("poll: %+v, want 3 new items", out)
	}
	doc, _, err := st.Document(ctx, "flood", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Items) != 3 || doc.Items[0].Title != "one" || doc.Items[2].Title != "three" {
		t.Errorf("stored %d items, want the first 3", len(doc.Items))
	}
	src, err := st.Source(ctx, "flood")
	if err != nil {
		t.Fatal(err)
	}
	if len(src.State.Warnings) != 1 || !strings.Contains(src.State.Warnings[0].Message, "5 items: only the first 3 are kept, 2 dropped") {
		t.Errorf("warnings %+v, want one saying 2 of 5 items were dropped", src.State.Warnings)
	}
}

// pollingNowStore is a real store whose LeaseDue, once it has leased
// source id, runs a whole poll-now of it before the loop sees the lease:
// the loop's turn is then stale, since poll-now polled the source,
// released the lease and set its next poll.
type pollingNowStore struct {
	dynamo.Store
	id    string
	p     *poller.Poller
	after func() // called once the poll-now is done
	once  sync.Once
	err   error // the poll-now's
}

func (s *pollingNowStore) LeaseDue(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration, hosts dynamo.LeaseHosts) ([]dynamo.Source, error) {
	due, err := s.Store.LeaseDue(ctx, owner, now, limit, ttl, hosts)
	for _, src := range due {
		if src.ID == s.id {
			s.once.Do(func() {
				_, s.err = s.p.PollNow(context.WithoutCancel(ctx), s.id)
				s.after()
			})
		}
	}
	return due, err
}

// TestScheduledTurnAfterAPollNowIsSkipped leases a due source in the
// scheduled loop, then polls it now before the loop's turn claims it: the
// turn is skipped rather than fetching the origin again right after, with
// the source's state from before the poll-now.
func TestScheduledTurnAfterAPollNowIsSkipped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := newOrigin(t)
	o.set("/p", page{body: annotated("Bridge reopens")})
	st := &pollingNowStore{Store: openStore(t), id: "town"}
	addSource(t, st, "town", o.URL+"/p", dynamo.KindHTML)
	var mu sync.Mutex
	var polls []dynamo.PollStatus
	p := newPoller(t, st, func(c *poller.Config) {
		c.OnPoll = func(_ string, status dynamo.PollStatus, _ time.Duration, _ bool) {
			mu.Lock()
			polls = append(polls, status)
			mu.Unlock()
		}
	})
	st.p = p
	runCtx, stop := context.WithCancel(ctx)
	// Run ends once the loop has handed out the stale lease and every
	// turn it started is over.
	st.after = stop
	if err := p.Run(runCtx); err != nil {
		t.Fatal(err)
	}
	if st.err != nil {
		t.Fatalf("poll now between the lease and the turn: %v", st.err)
	}
	if hits := o.hits.Load(); hits != 1 {
		t.Errorf("origin served %d requests, want 1: poll-now's alone", hits)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(polls) != 1 || polls[0] != dynamo.StatusChanged {
		t.Errorf("polls reported %v, want poll-now's alone, changed", polls)
	}
	logged, err := st.Polls(ctx, "town", 10)
	if err != nil || len(logged) != 1 {
		t.Fatalf("%d polls logged (%v), want poll-now's alone", len(logged), err)
	}
}
