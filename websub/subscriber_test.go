package websub_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/limits"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/websub"
)

// feedOrigin serves one RSS feed that advertises hub and self in the
// document (atom:link, §4).
type feedOrigin struct {
	srv *httptest.Server
	mu  sync.Mutex
	hub string
	ids []string
}

func newFeedOrigin(t *testing.T, hub string, ids ...string) *feedOrigin {
	o := &feedOrigin{hub: hub, ids: ids}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Write([]byte(o.feed()))
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *feedOrigin) url() string { return o.srv.URL + "/feed.xml" }

func (o *feedOrigin) set(hub string, ids ...string) {
	o.mu.Lock()
	o.hub, o.ids = hub, ids
	o.mu.Unlock()
}

// feed is the origin's document: its items and, with a hub, the links.
func (o *feedOrigin) feed() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Wire</title><link>http://wire.example/</link><description>d</description>`)
	if o.hub != "" {
		fmt.Fprintf(&b, `<atom:link rel="hub" href="%s"/><atom:link rel="self" href="%s"/>`, o.hub, o.srv.URL+"/feed.xml")
	}
	for _, id := range o.ids {
		fmt.Fprintf(&b, "<item><title>Story %s</title><link>http://wire.example/%s</link><guid>%s</guid><description>Story %s told at length.</description></item>", id, id, id, id)
	}
	b.WriteString("</channel></rss>")
	return b.String()
}

// dynamoSide is Dynamo's subscriber role over a real store and poller,
// its callbacks served on loopback.
type dynamoSide struct {
	store  dynamo.Store
	poller *poller.Poller
	sub    *websub.Subscriber
	srv    *httptest.Server
	logs   *logBuffer
	counts *counts
	clock  *clock
	cancel context.CancelFunc
	done   chan struct{}
}

// clock is a settable clock; zero means the real time.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

func newDynamoSide(t *testing.T, mutate ...func(*websub.SubscriberConfig)) *dynamoSide {
	t.Helper()
	d := &dynamoSide{store: openStore(t), logs: &logBuffer{}, counts: &counts{}, clock: &clock{}, done: make(chan struct{})}
	mux := http.NewServeMux()
	d.srv = httptest.NewServer(mux)
	t.Cleanup(d.srv.Close)
	p, err := poller.New(poller.Config{
		Store:   d.store,
		Fetcher: fetch.New(fetch.Options{AllowPrivate: true, Timeout: 2 * time.Second, HostGap: -1}),
		Owner:   "test",
		Tick:    10 * time.Millisecond,
		OnBody: func(ctx context.Context, src *dynamo.Source, resp *fetch.Response) {
			d.sub.Observe(ctx, src, resp.Links, resp.Body, resp.ContentType, resp.URL)
		},
		Now: d.clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	d.poller = p
	cfg := websub.SubscriberConfig{Store: d.store, Pusher: p, PublicURL: d.srv.URL, Client: guardedClient(true),
		Tick: 20 * time.Millisecond, Observer: d.counts, Logger: d.logs.logger(), Now: d.clock.now}
	for _, m := range mutate {
		m(&cfg)
	}
	d.sub, err = websub.NewSubscriber(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d.sub.Mount(mux)
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	go func() {
		defer close(d.done)
		d.sub.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-d.done })
	return d
}

func (d *dynamoSide) addSource(t *testing.T, id, url string) {
	t.Helper()
	src := &dynamo.Source{ID: id, URL: url, Kind: dynamo.KindFeed, Interval: dynamo.Duration(time.Hour)}
	if err := d.store.CreateSource(context.Background(), src); err != nil {
		t.Fatal(err)
	}
}

func (d *dynamoSide) pollNow(t *testing.T, id string) dynamo.PollOutcome {
	t.Helper()
	out, err := d.poller.PollNow(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (d *dynamoSide) subscription(t *testing.T, id string) *dynamo.Subscription {
	t.Helper()
	sub, err := d.store.Subscription(context.Background(), id)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// subscribed polls source id, whose feed advertises hub, and waits until
// the hub verified Dynamo's subscription.
func (d *dynamoSide) subscribed(t *testing.T, hub *testHub, id string) *dynamo.Subscription {
	t.Helper()
	d.pollNow(t, id)
	ev := hub.next(t)
	if ev.mode != "subscribe" || !ev.verified {
		t.Fatalf("the hub's first verification: %+v, want a verified subscribe", ev)
	}
	var sub *dynamo.Subscription
	eventually(t, "subscription active", func() bool {
		sub = d.subscription(t, id)
		return sub != nil && sub.State == dynamo.SubActive
	})
	return sub
}

func versions(t *testing.T, st dynamo.Store, id string) int {
	t.Helper()
	vs, err := st.Versions(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return len(vs)
}

// A source whose feed advertises a hub is subscribed and verified; a signed
// push goes through the poll path and stores a version, learnt as a push;
// a forged or missing signature stores nothing and is logged; pausing the
// source unsubscribes it.
func TestSubscriberPushStoresAndForgeryDoesNot(t *testing.T) {
	hub := newTestHub(t, 3600)
	origin := newFeedOrigin(t, hub.srv.URL, "a", "b")
	d := newDynamoSide(t)
	d.addSource(t, "wire", origin.url())
	sub := d.subscribed(t, hub, "wire")
	if sub.Hub != hub.srv.URL || sub.Topic != origin.url() || sub.LeaseSeconds != 3600 {
		t.Errorf("subscription %+v: want hub %s, topic %s, lease 3600", sub, hub.srv.URL, origin.url())
	}
	if left := time.Until(sub.LeaseEnds); left < 3590*time.Second || left > 3600*time.Second {
		t.Errorf("lease ends in %v, want an hour", left)
	}
	if got := hub.subscriptions(origin.url()); len(got) != 1 || len(got[0].secret) < 32 {
		t.Fatalf("hub subscriptions %+v: want one, with a secret", got)
	}
	before, _ := d.store.Source(context.Background(), "wire")
	if versions(t, d.store, "wire") != 1 {
		t.Fatal("the first poll stored no version")
	}

	// A signed push with a new item: a version, through the poll path.
	origin.set(hub.srv.URL, "c", "a", "b")
	if got := hub.publish(t, origin.url(), "application/rss+xml", []byte(origin.feed()), nil); len(got) != 1 || got[0] != http.StatusNoContent {
		t.Fatalf("push answered %v, want 204", got)
	}
	if n := versions(t, d.store, "wire"); n != 2 {
		t.Fatalf("%d versions after a push, want 2", n)
	}
	items, err := d.store.Items(context.Background(), dynamo.ItemQuery{SourceID: "wire", Version: 1})
	if err != nil || len(items) != 3 || items[0].Item.Title != "Story c" {
		t.Fatalf("newest version's items %+v, %v", items, err)
	}
	after, _ := d.store.Source(context.Background(), "wire")
	if !after.State.LastPoll.Equal(before.State.LastPoll) {
		t.Errorf("a push moved the last poll from %v to %v", before.State.LastPoll, after.State.LastPoll)
	}
	learnt, err := policy.LoadState(after.State.Schedule)
	if err != nil || learnt.Pushes != 1 {
		t.Errorf("learnt state after a push: %d pushes, %v; want 1", learnt.Pushes, err)
	}
	// Pushing: the next poll is the safety poll, a day after the last.
	if want := before.State.LastPoll.Add(policy.Config{}.WithDefaults().PushSafety); after.State.NextPoll.Sub(want).Abs() > time.Minute {
		t.Errorf("next poll %v, want the safety poll about %v", after.State.NextPoll, want)
	}
	if sub := d.subscription(t, "wire"); sub.Pushes != 1 || sub.LastPush.IsZero() {
		t.Errorf("subscription after a push: %+v", sub)
	}

	// The same content again: no version.
	if got := hub.publish(t, origin.url(), "application/rss+xml", []byte(origin.feed()), nil); got[0] != http.StatusNoContent {
		t.Fatalf("second push answered %v", got)
	}
	// Forged and missing signatures: refused, logged, nothing stored.
	origin.set(hub.srv.URL, "forged", "c", "a", "b")
	forged := []byte(origin.feed())
	for name, sign := range map[string]func(string, []byte) string{
		"wrong secret": func(_ string, body []byte) string { return websub.Sign("guess", body) },
		"sha1":         func(secret string, body []byte) string { return "sha1=" + strings.Repeat("0", 40) },
		"missing":      func(string, []byte) string { return "" },
	} {
		if got := hub.publish(t, origin.url(), "application/rss+xml", forged, sign); got[0] != http.StatusForbidden {
			t.Errorf("%s: push answered %v, want 403", name, got)
		}
	}
	if n := versions(t, d.store, "wire"); n != 2 {
		t.Fatalf("%d versions after forged pushes, want 2", n)
	}
	if got := d.counts.get("push rejected_signature"); got != 3 {
		t.Errorf("%d rejected signatures counted, want 3", got)
	}
	if logs := d.logs.String(); strings.Count(logs, "missing or wrong signature rejected") != 3 {
		t.Errorf("the forged pushes were not logged:\n%s", logs)
	}

	// Pausing the source unsubscribes it.
	src, _ := d.store.Source(context.Background(), "wire")
	src.Paused = true
	if err := d.store.UpdateSource(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	if ev := hub.next(t); ev.mode != "unsubscribe" || !ev.verified {
		t.Fatalf("after a pause the hub saw %+v, want a verified unsubscribe", ev)
	}
	eventually(t, "subscription removed", func() bool { return d.subscription(t, "wire") == nil })
	if got := hub.subscriptions(origin.url()); len(got) != 0 {
		t.Errorf("the hub still has %+v", got)
	}
}

// Deleting a source, or changing its URL, unsubscribes it.
func TestSubscriberDeleteAndMoveUnsubscribe(t *testing.T) {
	for _, change := range []string{"delete", "url"} {
		t.Run(change, func(t *testing.T) {
			hub := newTestHub(t, 3600)
			origin := newFeedOrigin(t, hub.srv.URL, "a")
			d := newDynamoSide(t)
			d.addSource(t, "wire", origin.url())
			d.subscribed(t, hub, "wire")
			ctx := context.Background()
			if change == "delete" {
				if err := d.store.DeleteSource(ctx, "wire", false); err != nil {
					t.Fatal(err)
				}
			} else {
				src, _ := d.store.Source(ctx, "wire")
				src.URL = origin.srv.URL + "/other.xml"
				if err := d.store.UpdateSource(ctx, src); err != nil {
					t.Fatal(err)
				}
			}
			if ev := hub.next(t); ev.mode != "unsubscribe" || !ev.verified {
				t.Fatalf("the hub saw %+v, want a verified unsubscribe", ev)
			}
			eventually(t, "subscription removed", func() bool { return d.subscription(t, "wire") == nil })
		})
	}
}

// A poll still in flight when its source is paused or deleted hands
// Observe the copy it read before: that stale copy must not replace the
// pending unsubscription with a new subscription, or the hub, whose
// verification would find the callback gone, keeps pushing until its lease
// ends.
func TestSubscriberStalePollKeepsUnsubscription(t *testing.T) {
	for _, change := range []string{"pause", "delete"} {
		t.Run(change, func(t *testing.T) {
			hub := newTestHub(t, 3600)
			origin := newFeedOrigin(t, hub.srv.URL, "a")
			d := newDynamoSide(t)
			d.addSource(t, "wire", origin.url())
			d.subscribed(t, hub, "wire")
			ctx := context.Background()
			stale, err := d.store.Source(ctx, "wire")
			if err != nil {
				t.Fatal(err)
			}
			hold := make(chan struct{})
			hub.mu.Lock()
			hub.hold = hold
			hub.mu.Unlock()
			if change == "pause" {
				src := *stale
				src.Paused = true
				err = d.store.UpdateSource(ctx, &src)
			} else {
				err = d.store.DeleteSource(ctx, "wire", false)
			}
			if err != nil {
				t.Fatal(err)
			}
			// The unsubscription is requested; the hub holds its verification.
			eventually(t, "unsubscription requested", func() bool {
				sub := d.subscription(t, "wire")
				return sub != nil && sub.State == dynamo.SubUnsubscribing && sub.Attempts > 0
			})
			d.sub.Observe(ctx, stale, nil, []byte(origin.feed()), "application/rss+xml", origin.url())
			if sub := d.subscription(t, "wire"); sub == nil || sub.State != dynamo.SubUnsubscribing {
				t.Errorf("after a stale poll the subscription is %+v, want the pending unsubscription", sub)
			}
			close(hold)
			if ev := hub.next(t); ev.mode != "unsubscribe" || !ev.verified {
				t.Fatalf("the hub saw %+v, want a verified unsubscribe", ev)
			}
			eventually(t, "subscription removed", func() bool { return d.subscription(t, "wire") == nil })
			if got := hub.subscriptions(origin.url()); len(got) != 0 {
				t.Errorf("the hub still has %+v", got)
			}
		})
	}
}

// changingStore is the real store, but for one subscribing write, before
// which it runs change: a source changed by another process just between
// Observe's check of the source and its write.
type changingStore struct {
	dynamo.Store
	armed  atomic.Bool
	change func()
}

func (s *changingStore) PutSubscription(ctx context.Context, sub *dynamo.Subscription) error {
	if sub.State == dynamo.SubSubscribing && s.armed.CompareAndSwap(true, false) {
		s.change()
	}
	return s.Store.PutSubscription(ctx, sub)
}

// A source paused after Observe checked it but before Observe wrote its
// new subscription: the unsubscription already reconciled into the row it
// replaced is put back, and the hub hears it.
func TestSubscriberChangeDuringObserveKeepsUnsubscription(t *testing.T) {
	hub := newTestHub(t, 3600)
	origin := newFeedOrigin(t, hub.srv.URL, "a")
	var cs *changingStore
	d := newDynamoSide(t, func(cfg *websub.SubscriberConfig) {
		cs = &changingStore{Store: cfg.Store}
		cfg.Store = cs
	})
	d.addSource(t, "wire", origin.url())
	d.subscribed(t, hub, "wire")
	ctx := context.Background()
	src, err := d.store.Source(ctx, "wire")
	if err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	hub.mu.Lock()
	hub.hold = hold
	hub.mu.Unlock()
	cs.change = func() {
		paused := *src
		paused.Paused = true
		if err := d.store.UpdateSource(ctx, &paused); err != nil {
			t.Fatal(err)
		}
		eventually(t, "unsubscription requested", func() bool {
			sub := d.subscription(t, "wire")
			return sub != nil && sub.State == dynamo.SubUnsubscribing && sub.Attempts > 0
		})
	}
	cs.armed.Store(true)
	// Another hub: Observe would replace the subscription.
	other := newTestHub(t, 3600)
	origin.set(other.srv.URL, "a")
	d.sub.Observe(ctx, src, nil, []byte(origin.feed()), "application/rss+xml", origin.url())
	if cs.armed.Load() {
		t.Fatal("Observe wrote no subscription: the change was never injected")
	}
	close(hold)
	eventually(t, "the hub unsubscribed", func() bool { return len(hub.subscriptions(origin.url())) == 0 })
	eventually(t, "subscription removed", func() bool { return d.subscription(t, "wire") == nil })
	if got := other.subscriptions(origin.url()); len(got) != 0 {
		t.Errorf("the other hub has %+v", got)
	}
}

// Verification is answered only for what Dynamo asked: another callback
// token, another topic, or an unsubscription nobody asked for get 404
// (§5.3.1); a push to an unknown callback gets 410.
func TestSubscriberRefusesVerificationsItDidNotAsk(t *testing.T) {
	hub := newTestHub(t, 3600)
	origin := newFeedOrigin(t, hub.srv.URL, "a")
	d := newDynamoSide(t)
	d.addSource(t, "wire", origin.url())
	sub := d.subscribed(t, hub, "wire")
	get := func(token string, q url.Values) int {
		t.Helper()
		resp, err := http.Get(d.srv.URL + websub.CallbackPrefix + token + "?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	cases := []struct {
		name  string
		token string
		q     url.Values
	}{
		{"unknown token", "0123", url.Values{"hub.mode": {"subscribe"}, "hub.topic": {origin.url()}, "hub.challenge": {"x"}, "hub.lease_seconds": {"60"}}},
		{"other topic", sub.Token, url.Values{"hub.mode": {"subscribe"}, "hub.topic": {origin.url() + "?x"}, "hub.challenge": {"x"}, "hub.lease_seconds": {"60"}}},
		{"unsubscribe not asked", sub.Token, url.Values{"hub.mode": {"unsubscribe"}, "hub.topic": {origin.url()}, "hub.challenge": {"x"}}},
		{"no lease", sub.Token, url.Values{"hub.mode": {"subscribe"}, "hub.topic": {origin.url()}, "hub.challenge": {"x"}}},
	}
	for _, c := range cases {
		if got := get(c.token, c.q); got != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", c.name, got)
		}
	}
	if got := d.subscription(t, "wire"); got.State != dynamo.SubActive || got.LeaseSeconds != 3600 {
		t.Errorf("after refused verifications: %+v", got)
	}
	resp, err := http.Post(d.srv.URL+websub.CallbackPrefix+"0123", "application/rss+xml", strings.NewReader(origin.feed()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone {
		t.Errorf("push to an unknown callback: %d, want 410", resp.StatusCode)
	}
	// A denial (§5.2) is recorded.
	hub.deny(origin.url(), "no room")
	if got := d.subscription(t, "wire"); got.State != dynamo.SubDenied || !strings.Contains(got.LastError, "no room") {
		t.Errorf("after a denial: %+v", got)
	}
}

// The lease is renewed before it ends: with a lease of 100 s, the clock
// moved past four fifths of it brings a new subscription request, verified
// while the lease still runs.
func TestSubscriberRenewsBeforeLeaseEnds(t *testing.T) {
	hub := newTestHub(t, 100)
	origin := newFeedOrigin(t, hub.srv.URL, "a")
	d := newDynamoSide(t)
	d.addSource(t, "wire", origin.url())
	first := d.subscribed(t, hub, "wire")
	d.clock.advance(79 * time.Second)
	select {
	case ev := <-hub.events:
		t.Fatalf("renewed too early: %+v", ev)
	case <-time.After(200 * time.Millisecond):
	}
	d.clock.advance(2 * time.Second) // 81 s: past 80
	ev := hub.next(t)
	if ev.mode != "subscribe" || !ev.verified {
		t.Fatalf("renewal: %+v", ev)
	}
	var renewed *dynamo.Subscription
	eventually(t, "lease extended", func() bool {
		renewed = d.subscription(t, "wire")
		return renewed.LeaseEnds.After(first.LeaseEnds)
	})
	if renewed.Token != first.Token || renewed.State != dynamo.SubActive {
		t.Errorf("renewed %+v: want the same callback, active", renewed)
	}
	if !renewed.VerifiedAt.Before(first.LeaseEnds) {
		t.Errorf("renewal verified at %v, after the lease's end %v", renewed.VerifiedAt, first.LeaseEnds)
	}
}

// A push larger than a fetch may be is refused with 413 and stores nothing.
func TestSubscriberPushBounded(t *testing.T) {
	hub := newTestHub(t, 3600)
	origin := newFeedOrigin(t, hub.srv.URL, "a")
	d := newDynamoSide(t, func(c *websub.SubscriberConfig) { c.MaxBody = 1 << 10 })
	d.addSource(t, "wire", origin.url())
	d.subscribed(t, hub, "wire")
	ids := []string{}
	for i := range 40 {
		ids = append(ids, fmt.Sprint(i))
	}
	origin.set(hub.srv.URL, ids...)
	if got := hub.publish(t, origin.url(), "application/rss+xml", []byte(origin.feed()), nil); got[0] != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized push: %v, want 413", got)
	}
	if n := versions(t, d.store, "wire"); n != 1 {
		t.Fatalf("%d versions, want 1", n)
	}
}

// A source that stops advertising a hub is unsubscribed at its next poll.
func TestSubscriberHubGone(t *testing.T) {
	hub := newTestHub(t, 3600)
	origin := newFeedOrigin(t, hub.srv.URL, "a")
	d := newDynamoSide(t)
	d.addSource(t, "wire", origin.url())
	d.subscribed(t, hub, "wire")
	origin.set("", "b", "a")
	d.pollNow(t, "wire")
	if ev := hub.next(t); ev.mode != "unsubscribe" || !ev.verified {
		t.Fatalf("the hub saw %+v, want a verified unsubscribe", ev)
	}
}

// countingBody is a request body of n bytes that counts what was read of
// it.
type countingBody struct {
	n, read int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.read >= b.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), b.n-b.read)
	clear(p[:k])
	b.read += k
	return int(k), nil
}

func (b *countingBody) Close() error { return nil }

// Anyone may POST to a callback, with up to 20 MiB: a push takes a slot of
// the gate of expensive work before its body is read (docs/WEBSUB.md,
// "Content distribution"). While the slot is held, a 20 MiB push is
// answered 503 with Retry-After and none of its body is read; once the
// slot is free, a signed push is stored.
func TestSubscriberPushTakesAHeavySlot(t *testing.T) {
	gate := limits.NewGate(1, 1, 50*time.Millisecond)
	hub := newTestHub(t, 3600)
	origin := newFeedOrigin(t, hub.srv.URL, "a")
	d := newDynamoSide(t, func(c *websub.SubscriberConfig) { c.Heavy = gate })
	d.addSource(t, "wire", origin.url())
	sub := d.subscribed(t, hub, "wire")
	release, err := gate.Enter(context.Background()) // the crowd holds the one slot
	if err != nil {
		t.Fatal(err)
	}
	body := &countingBody{n: dynamo.MaxAnnotatedPageBytes}
	req := httptest.NewRequest(http.MethodPost, websub.CallbackPrefix+sub.Token, body)
	req.Header.Set("Content-Type", "application/rss+xml")
	rec := httptest.NewRecorder()
	d.srv.Config.Handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("20 MiB push while the slot is held: %d, Retry-After %q, %.200s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if body.read != 0 {
		t.Errorf("%d bytes of the refused push read, want 0", body.read)
	}
	release()
	origin.set(hub.srv.URL, "b", "a")
	if got := hub.publish(t, origin.url(), "application/rss+xml", []byte(origin.feed()), nil); got[0] != http.StatusNoContent {
		t.Fatalf("push once the slot is free: %v, want 204", got)
	}
	if n := versions(t, d.store, "wire"); n != 2 {
		t.Fatalf("%d versions, want 2", n)
	}
}
