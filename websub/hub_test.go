package websub_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
	"github.com/dynamo-feeds/dynamo/websub"
)

// topics is the hub's view of a few feeds, each depending on one source;
// the api package's real one is tested with the API.
type topics struct {
	mu   sync.Mutex
	docs map[string]*topicDoc
}

type topicDoc struct {
	source string
	body   string
}

func (tp *topics) Render(_ context.Context, topic string) (websub.Content, error) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	d, ok := tp.docs[topic]
	if !ok {
		return websub.Content{}, fmt.Errorf("topic %s: %w", topic, dynamo.ErrNotFound)
	}
	sum := sha256.Sum256([]byte(d.body))
	return websub.Content{ContentType: "application/atom+xml", ETag: `"` + hex.EncodeToString(sum[:8]) + `"`, Body: []byte(d.body)}, nil
}

func (tp *topics) Depends(topic, sourceID string) bool {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	d, ok := tp.docs[topic]
	return ok && d.source == sourceID
}

// hubSide is Dynamo's hub over a real store, served on loopback.
type hubSide struct {
	store  dynamo.Store
	hub    *websub.Hub
	srv    *httptest.Server
	topics *topics
	counts *counts
	logs   *logBuffer
	topic  string
}

func newHubSide(t *testing.T, store dynamo.Store, mutate ...func(*websub.HubConfig)) *hubSide {
	t.Helper()
	h := &hubSide{store: store, topics: &topics{docs: map[string]*topicDoc{}}, counts: &counts{}, logs: &logBuffer{}}
	mux := http.NewServeMux()
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	h.topic = h.srv.URL + "/resources/news?type=atom"
	h.topics.docs[h.topic] = &topicDoc{source: "news", body: "<feed>v1</feed>"}
	cfg := websub.HubConfig{Store: store, Topics: h.topics, PublicURL: h.srv.URL, Client: guardedClient(true), AllowPrivate: true,
		RetryBase: 20 * time.Millisecond, Tick: 10 * time.Millisecond, Observer: h.counts, Logger: h.logs.logger()}
	for _, m := range mutate {
		m(&cfg)
	}
	var err error
	h.hub, err = websub.NewHub(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.hub.Mount(mux)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.hub.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

// ensureSource registers the source the topic depends on, once per store.
func ensureSource(t *testing.T, st dynamo.Store, id string) {
	t.Helper()
	err := st.CreateSource(context.Background(), &dynamo.Source{ID: id, URL: "https://example.org/" + id, Kind: dynamo.KindFeed, Interval: dynamo.Duration(time.Hour)})
	if err != nil && !errors.Is(err, dynamo.ErrConflict) {
		t.Fatal(err)
	}
}

// change gives the topic new content and announces a change of its
// source, as storing a version does.
func (h *hubSide) change(t *testing.T, body string) {
	t.Helper()
	h.topics.mu.Lock()
	for _, d := range h.topics.docs {
		d.body = body
	}
	h.topics.mu.Unlock()
	announce(t, h.store, "news")
}

func announce(t *testing.T, st dynamo.Store, id string) {
	t.Helper()
	src, err := st.Source(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	src.Category = strconv.FormatInt(time.Now().UnixNano(), 10)
	if err := st.UpdateSource(context.Background(), src); err != nil {
		t.Fatal(err)
	}
}

// request sends a subscription request and returns the status and body.
func (h *hubSide) request(t *testing.T, form url.Values) (int, string) {
	t.Helper()
	resp, err := http.PostForm(h.srv.URL+websub.HubPath, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 512)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	return resp.StatusCode, b.String()
}

func subscribeForm(topic, callback, secret string, lease int) url.Values {
	f := url.Values{"hub.mode": {"subscribe"}, "hub.topic": {topic}, "hub.callback": {callback}}
	if secret != "" {
		f.Set("hub.secret", secret)
	}
	if lease > 0 {
		f.Set("hub.lease_seconds", strconv.Itoa(lease))
	}
	return f
}

func (h *hubSide) subscriptions(t *testing.T) []dynamo.HubSubscription {
	t.Helper()
	list, err := h.store.HubSubscriptions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// subscribe subscribes sub's callback and waits until the hub stored it.
func (h *hubSide) subscribe(t *testing.T, sub *testSubscriber, path, secret string) {
	t.Helper()
	before := len(h.subscriptions(t))
	if code, body := h.request(t, subscribeForm(h.topic, sub.srv.URL+path, secret, 0)); code != http.StatusAccepted {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	sub.nextVerification(t)
	eventually(t, "subscription stored", func() bool { return len(h.subscriptions(t)) > before })
}

// Subscribe, verify (challenge, lease within bounds), then a change of the
// topic is delivered in full, with its content type, the hub and self
// links, and a valid signature; the callback's query is kept (§5.1.1).
func TestHubSubscribeVerifyDeliver(t *testing.T) {
	st := openStore(t)
	ensureSource(t, st, "news")
	h := newHubSide(t, st, func(c *websub.HubConfig) { c.MinLease, c.MaxLease = time.Hour, 2*time.Hour })
	sub := newTestSubscriber(t)
	callback := sub.srv.URL + "/cb?user=7"
	if code, body := h.request(t, subscribeForm(h.topic, callback, "s3cret", 60)); code != http.StatusAccepted {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	q := sub.nextVerification(t)
	if q.Get("hub.mode") != "subscribe" || q.Get("hub.topic") != h.topic || len(q.Get("hub.challenge")) < 32 || q.Get("user") != "7" {
		t.Errorf("verification query %v", q)
	}
	if q.Get("hub.lease_seconds") != "3600" {
		t.Errorf("lease %s asked 60 s: want the least lease, 3600", q.Get("hub.lease_seconds"))
	}
	eventually(t, "subscription stored", func() bool { return len(h.subscriptions(t)) == 1 })
	got := h.subscriptions(t)[0]
	if got.Callback != callback || got.Secret != "s3cret" || got.LeaseSeconds != 3600 || time.Until(got.Expires) < 59*time.Minute {
		t.Errorf("stored %+v", got)
	}
	sub.noDelivery(t, 100*time.Millisecond) // nothing owed until a change

	h.change(t, "<feed>v2</feed>")
	d := sub.nextDelivery(t, 5*time.Second)
	if string(d.body) != "<feed>v2</feed>" || d.contentType != "application/atom+xml" {
		t.Errorf("delivered %q as %q", d.body, d.contentType)
	}
	if err := websub.Verify("s3cret", d.signature, d.body); err != nil {
		t.Errorf("signature %q: %v", d.signature, err)
	}
	links := websub.Discover([]string{d.link}, nil, "", "")
	if links.Hub != h.hub.URL() || links.Self != h.topic {
		t.Errorf("Link %q: hub %q self %q", d.link, links.Hub, links.Self)
	}
	eventually(t, "delivery recorded", func() bool {
		s := h.subscriptions(t)[0]
		return s.Deliveries == 1 && s.PendingETag == ""
	})
	// A change that leaves the representation as it is delivers nothing.
	announce(t, st, "news")
	sub.noDelivery(t, 200*time.Millisecond)

	// Unsubscribe, verified, removes it.
	f := url.Values{"hub.mode": {"unsubscribe"}, "hub.topic": {h.topic}, "hub.callback": {callback}}
	if code, body := h.request(t, f); code != http.StatusAccepted {
		t.Fatalf("unsubscribe: %d %s", code, body)
	}
	if q := sub.nextVerification(t); q.Get("hub.mode") != "unsubscribe" {
		t.Errorf("verification %v", q)
	}
	eventually(t, "subscription removed", func() bool { return len(h.subscriptions(t)) == 0 })
	if h.counts.get("verification hub ok") != 2 || h.counts.get("delivery ok") != 1 {
		t.Errorf("counts %v", h.counts.m)
	}
}

// A callback that echoes the wrong challenge is not subscribed (§5.3.1).
func TestHubRefusesWrongChallenge(t *testing.T) {
	st := openStore(t)
	ensureSource(t, st, "news")
	h := newHubSide(t, st)
	sub := newTestSubscriber(t)
	sub.set(true, 0)
	if code, _ := h.request(t, subscribeForm(h.topic, sub.srv.URL+"/cb", "", 0)); code != http.StatusAccepted {
		t.Fatalf("subscribe: %d", code)
	}
	sub.nextVerification(t)
	eventually(t, "verification failure counted", func() bool { return h.counts.get("verification hub failed") == 1 })
	if got := h.subscriptions(t); len(got) != 0 {
		t.Fatalf("stored %+v", got)
	}
	if !strings.Contains(h.logs.String(), "did not echo the challenge") {
		t.Errorf("log: %s", h.logs.String())
	}
}

// A failing callback is retried with growing waits, given up after
// MaxAttempts and reported; the subscription stays, and the next change is
// delivered again (§7).
func TestHubRetriesWithBackOffThenGivesUp(t *testing.T) {
	st := openStore(t)
	ensureSource(t, st, "news")
	h := newHubSide(t, st, func(c *websub.HubConfig) { c.MaxAttempts = 4 })
	sub := newTestSubscriber(t)
	h.subscribe(t, sub, "/cb", "")
	sub.set(false, http.StatusInternalServerError)
	h.change(t, "<feed>v2</feed>")
	var at []time.Time
	for range 4 {
		at = append(at, sub.nextDelivery(t, 5*time.Second).at)
	}
	sub.noDelivery(t, 500*time.Millisecond)
	// Waits of 20, 40, 80 ms less up to a fifth.
	for i := 1; i < len(at); i++ {
		least := time.Duration(float64(20*time.Millisecond<<(i-1)) * 0.8)
		if gap := at[i].Sub(at[i-1]); gap < least {
			t.Errorf("retry %d came %v after the previous attempt, want at least %v", i, gap, least)
		}
	}
	eventually(t, "given up", func() bool {
		s := h.subscriptions(t)
		return len(s) == 1 && s[0].Failures == 1 && s[0].PendingETag == ""
	})
	if s := h.subscriptions(t)[0]; !strings.Contains(s.LastError, "given up after 4 attempts") || !strings.Contains(s.LastError, "HTTP 500") {
		t.Errorf("last error %q", s.LastError)
	}
	if h.counts.get("delivery retry") != 3 || h.counts.get("delivery given_up") != 1 {
		t.Errorf("counts %v", h.counts.m)
	}
	sub.set(false, 0)
	h.change(t, "<feed>v3</feed>")
	if d := sub.nextDelivery(t, 5*time.Second); string(d.body) != "<feed>v3</feed>" {
		t.Errorf("after giving up, the next change delivered %q", d.body)
	}
}

// A 410 Gone from the callback ends the subscription (§7).
func TestHubGoneEndsSubscription(t *testing.T) {
	st := openStore(t)
	ensureSource(t, st, "news")
	h := newHubSide(t, st)
	sub := newTestSubscriber(t)
	h.subscribe(t, sub, "/cb", "")
	sub.set(false, http.StatusGone)
	h.change(t, "<feed>v2</feed>")
	sub.nextDelivery(t, 5*time.Second)
	eventually(t, "subscription ended", func() bool { return len(h.subscriptions(t)) == 0 })
}

// Bad requests are refused at once with a plain-text reason (§5.1.2); a
// private callback needs --allow-private.
func TestHubRefusesBadRequests(t *testing.T) {
	st := openStore(t)
	ensureSource(t, st, "news")
	h := newHubSide(t, st, func(c *websub.HubConfig) { c.AllowPrivate = false })
	cases := []struct {
		name string
		form url.Values
		code int
		msg  string
	}{
		{"unknown topic", subscribeForm(h.srv.URL+"/resources/none", "https://sub.example/cb", "", 0), http.StatusNotFound, "not found"},
		{"topic elsewhere", subscribeForm("https://elsewhere.example/feed", "https://sub.example/cb", "", 0), http.StatusNotFound, "not a feed of this hub"},
		{"no mode", url.Values{"hub.topic": {h.topic}, "hub.callback": {"https://sub.example/cb"}}, http.StatusBadRequest, "hub.mode"},
		{"publish", url.Values{"hub.mode": {"publish"}, "hub.url": {h.topic}}, http.StatusBadRequest, "publishes its own feeds"},
		{"long secret", subscribeForm(h.topic, "https://sub.example/cb", strings.Repeat("s", 200), 0), http.StatusBadRequest, "200 bytes"},
		{"bad callback", subscribeForm(h.topic, "ftp://sub.example/cb", "", 0), http.StatusBadRequest, "http or https"},
		{"bad lease", subscribeForm(h.topic, "https://sub.example/cb", "", -5), http.StatusBadRequest, "lease_seconds"},
		{"loopback callback", subscribeForm(h.topic, "http://127.0.0.1:9/cb", "", 0), http.StatusBadRequest, "loopback"},
		{"private callback", subscribeForm(h.topic, "http://10.1.2.3/cb", "", 0), http.StatusBadRequest, "private"},
		{"metadata callback", subscribeForm(h.topic, "http://169.254.169.254/latest", "", 0), http.StatusBadRequest, "link-local"},
	}
	cases[6].form.Set("hub.lease_seconds", "-5")
	for _, c := range cases {
		code, body := h.request(t, c.form)
		if code != c.code || !strings.Contains(body, c.msg) {
			t.Errorf("%s: %d %q, want %d containing %q", c.name, code, body, c.code, c.msg)
		}
	}
	if got := h.subscriptions(t); len(got) != 0 {
		t.Errorf("stored %+v", got)
	}
}

// Subscription requests are limited per callback host and per topic.
func TestHubRateLimits(t *testing.T) {
	st := openStore(t)
	ensureSource(t, st, "news")
	h := newHubSide(t, st, func(c *websub.HubConfig) { c.PerCallbackHost, c.PerTopic = 2, 3 })
	subA, subB := newTestSubscriber(t), newTestSubscriber(t)
	codes := []int{}
	for _, cb := range []string{subA.srv.URL + "/1", subA.srv.URL + "/2", subA.srv.URL + "/3", "http://localhost:" + strings.Split(subB.srv.URL, ":")[2] + "/1", "http://localhost:" + strings.Split(subB.srv.URL, ":")[2] + "/2"} {
		code, _ := h.request(t, subscribeForm(h.topic, cb, "", 0))
		codes = append(codes, code)
	}
	// Two from host A, the third refused; one from host B, then the
	// topic's three are spent.
	want := []int{202, 202, 429, 202, 429}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("codes %v, want %v", codes, want)
	}
}

// Two hub processes over one PostgreSQL store: a change is delivered
// exactly once to each subscriber.
func TestHubTwoProcessesDeliverOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	open := func() dynamo.Store {
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	st1, st2 := open(), open()
	ensureSource(t, st1, "news")
	h1 := newHubSide(t, st1, func(c *websub.HubConfig) { c.Owner = "one" })
	// The second process serves the same public URL's topics.
	h2 := newHubSide(t, st2, func(c *websub.HubConfig) { c.Owner = "two"; c.PublicURL = h1.srv.URL; c.Topics = h1.topics })
	subs := []*testSubscriber{newTestSubscriber(t), newTestSubscriber(t), newTestSubscriber(t)}
	for i, sub := range subs {
		// Requests reach either process.
		h := []*hubSide{h1, h2}[i%2]
		if code, _ := h.request(t, subscribeForm(h1.topic, sub.srv.URL+"/cb", "k", 0)); code != http.StatusAccepted {
			t.Fatalf("subscribe %d: %d", i, code)
		}
		sub.nextVerification(t)
	}
	eventually(t, "three subscriptions", func() bool { return len(h1.subscriptions(t)) == 3 })
	for round := 2; round <= 4; round++ {
		h1.change(t, fmt.Sprintf("<feed>v%d</feed>", round))
		for _, sub := range subs {
			if d := sub.nextDelivery(t, 5*time.Second); string(d.body) != fmt.Sprintf("<feed>v%d</feed>", round) {
				t.Fatalf("round %d delivered %q", round, d.body)
			}
		}
		for _, sub := range subs {
			sub.noDelivery(t, 150*time.Millisecond)
		}
	}
	if n := h1.counts.get("delivery ok") + h2.counts.get("delivery ok"); n != 9 {
		t.Errorf("%d deliveries made, want 9", n)
	}
}
