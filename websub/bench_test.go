package websub_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
	"github.com/dynamo-feeds/dynamo/websub"
)

// BenchmarkHubFanOut measures, for 1 and 1,000 subscribers of one topic on
// loopback, the time from a change announced by the store to each
// subscriber's receipt of the new representation (p50, p99, max) and the
// deliveries a second, over both stores. Each iteration is one change
// delivered to every subscriber.
func BenchmarkHubFanOut(b *testing.B) {
	for _, store := range []string{"sqlite", "postgres"} {
		b.Run(store, func(b *testing.B) {
			var st dynamo.Store
			if store == "sqlite" {
				st = openStore(b)
			} else {
				var err error
				st, err = postgres.Open(context.Background(), pgtest.DSN(b))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { st.Close() })
			}
			for _, n := range []int{1, 1000} {
				b.Run(fmt.Sprint(n), func(b *testing.B) { benchFanOut(b, st, n) })
			}
		})
	}
}

// countingStore counts the hub's writes of delivery bookkeeping.
type countingStore struct {
	dynamo.Store
	leases, records atomic.Int64
}

func (c *countingStore) LeaseDeliveries(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration) ([]dynamo.HubSubscription, error) {
	c.leases.Add(1)
	return c.Store.LeaseDeliveries(ctx, owner, now, limit, ttl)
}

func (c *countingStore) FinishDeliveries(ctx context.Context, results []dynamo.DeliveryResult) ([]int64, error) {
	c.records.Add(1)
	return c.Store.FinishDeliveries(ctx, results)
}

func benchFanOut(b *testing.B, store dynamo.Store, n int) {
	ctx := context.Background()
	st := &countingStore{Store: store}
	id := fmt.Sprintf("news%d", n)
	if err := st.CreateSource(ctx, &dynamo.Source{ID: id, URL: "https://example.org/" + id, Kind: dynamo.KindFeed, Interval: dynamo.Duration(time.Hour)}); err != nil && !errors.Is(err, dynamo.ErrConflict) {
		b.Fatal(err)
	}
	var (
		mu       sync.Mutex
		received []time.Time
		all      = make(chan struct{}, 1)
	)
	sub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		w.WriteHeader(http.StatusNoContent)
		mu.Lock()
		received = append(received, now)
		if len(received) == n {
			all <- struct{}{}
		}
		mu.Unlock()
	}))
	b.Cleanup(sub.Close)
	tp := &topics{docs: map[string]*topicDoc{}}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	topic := srv.URL + "/resources/" + id + "?type=atom"
	tp.docs[topic] = &topicDoc{source: id, body: "<feed>v0</feed>"}
	hub, err := websub.NewHub(websub.HubConfig{Store: st, Topics: tp, PublicURL: srv.URL, Client: guardedClient(true), AllowPrivate: true})
	if err != nil {
		b.Fatal(err)
	}
	hub.Mount(mux)
	content, _ := tp.Render(ctx, topic)
	now := time.Now()
	for i := range n {
		s := &dynamo.HubSubscription{Topic: topic, Callback: fmt.Sprintf("%s/cb/%d", sub.URL, i), Secret: "s", LeaseSeconds: 3600,
			Expires: now.Add(time.Hour), CreatedAt: now, VerifiedAt: now, DeliveredETag: content.ETag}
		if err := st.PutHubSubscription(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(runCtx) }()
	b.Cleanup(func() { cancel(); <-done })
	// A change announced before the hub watches the store goes unseen
	// (under load, listening may take long): a first change, announced
	// until every subscriber has it, proves it watches.
	tp.mu.Lock()
	tp.docs[topic].body = "<feed>warm-up</feed>"
	tp.mu.Unlock()
	for warm := false; !warm; {
		announceChange(b, st, id, "warm-up")
		select {
		case <-all:
			warm = true
		case <-time.After(2 * time.Second):
		}
	}
	mu.Lock()
	received = received[:0]
	mu.Unlock()

	var lat []time.Duration
	var spent time.Duration
	st.leases.Store(0)
	st.records.Store(0)
	b.ResetTimer()
	for i := range b.N {
		mu.Lock()
		received = received[:0]
		mu.Unlock()
		tp.mu.Lock()
		tp.docs[topic].body = fmt.Sprintf("<feed>v%d</feed>", i+1)
		tp.mu.Unlock()
		start := time.Now()
		announceChange(b, st, id, fmt.Sprint(i))
		select {
		case <-all:
		case <-time.After(2 * time.Minute):
			b.Fatalf("%d of %d deliveries in 2 minutes", len(received), n)
		}
		mu.Lock()
		for _, t := range received {
			lat = append(lat, t.Sub(start))
		}
		last := start
		for _, t := range received {
			if t.After(last) {
				last = t
			}
		}
		spent += last.Sub(start)
		mu.Unlock()
	}
	b.StopTimer()
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(q(1), "max-ms")
	b.ReportMetric(float64(n*b.N)/spent.Seconds(), "deliveries/s")
	// The bookkeeping: lease and record writes a change (a delivery each
	// before they were batched).
	b.ReportMetric(float64(st.leases.Load())/float64(b.N), "leases/change")
	b.ReportMetric(float64(st.records.Load())/float64(b.N), "records/change")
}

// announceChange changes source id's category, which the store announces
// as a change of the source, as storing a version does.
func announceChange(b *testing.B, st dynamo.Store, id, category string) {
	b.Helper()
	src, err := st.Source(context.Background(), id)
	if err != nil {
		b.Fatal(err)
	}
	src.Category = category
	if err := st.UpdateSource(context.Background(), src); err != nil {
		b.Fatal(err)
	}
}
