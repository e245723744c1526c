package websub_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
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

func benchFanOut(b *testing.B, st dynamo.Store, n int) {
	ctx := context.Background()
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
	time.Sleep(100 * time.Millisecond) // the hub is watching

	var lat []time.Duration
	var spent time.Duration
	b.ResetTimer()
	for i := range b.N {
		mu.Lock()
		received = received[:0]
		mu.Unlock()
		tp.mu.Lock()
		tp.docs[topic].body = fmt.Sprintf("<feed>v%d</feed>", i+1)
		tp.mu.Unlock()
		start := time.Now()
		src, _ := st.Source(ctx, id)
		src.Category = fmt.Sprint(i)
		if err := st.UpdateSource(ctx, src); err != nil {
			b.Fatal(err)
		}
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
}
