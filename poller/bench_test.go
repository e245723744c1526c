package poller_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
)

// benchHosts is how many origin hosts the benchmarks spread their sources
// over. The fetcher lets one request at a time reach a host (politeness),
// so a single origin would measure that rule, not the poller.
const benchHosts = 16

// benchPoller registers n sources, spread over benchHosts origins serving
// handler, in a fresh PostgreSQL database.
func benchPoller(b *testing.B, handler http.Handler, n int) (*poller.Poller, []string) {
	b.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, pgtest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	origins := make([]*httptest.Server, benchHosts)
	for i := range origins {
		origins[i] = httptest.NewServer(handler)
		b.Cleanup(origins[i].Close)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("s%03d", i)
		src := &dynamo.Source{ID: ids[i], URL: fmt.Sprintf("%s/p%03d", origins[i%benchHosts].URL, i), Kind: dynamo.KindHTML,
			Interval: dynamo.Duration(time.Hour), Policy: "flat"}
		if err := st.CreateSource(ctx, src); err != nil {
			b.Fatal(err)
		}
	}
	p, err := poller.New(poller.Config{Store: st, Owner: "bench",
		Fetcher: fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1})})
	if err != nil {
		b.Fatal(err)
	}
	return p, ids
}

// pollAll polls the sources round-robin from parallel goroutines, as the
// poller's workers do, and reports polls per second.
func pollAll(b *testing.B, p *poller.Poller, ids []string, want dynamo.PollStatus) {
	var workers atomic.Int64
	b.SetParallelism(benchHosts / max(1, runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		// Each goroutine polls its own sources, as leases would have it.
		worker, parallel := int(workers.Add(1))-1, benchHosts/max(1, runtime.GOMAXPROCS(0))*runtime.GOMAXPROCS(0)
		for n := worker; pb.Next(); n += parallel {
			id := ids[n%len(ids)]
			out, err := p.PollNow(context.Background(), id)
			if err != nil {
				b.Error(err)
				return
			}
			if out.Status != want {
				b.Errorf("%s: %+v, want %s", id, out, want)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "polls/s")
}

// BenchmarkPollNotModified polls sources whose origin answers 304.
func BenchmarkPollNotModified(b *testing.B) {
	p, ids := benchPoller(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		fmt.Fprint(w, annotated("Only story of "+r.URL.Path))
	}), 64)
	for _, id := range ids { // the first poll stores a version and the ETag
		if _, err := p.PollNow(context.Background(), id); err != nil {
			b.Fatal(err)
		}
	}
	pollAll(b, p, ids, dynamo.StatusNotModified)
}

// BenchmarkPollChanged polls 50 KB annotated pages that gain a story on
// every request, so each poll parses and stores a new version.
func BenchmarkPollChanged(b *testing.B) {
	var served atomic.Int64
	filler := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 16)
	p, ids := benchPoller(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		titles := []string{fmt.Sprintf("Breaking story number %d", n)}
		for i := range 49 {
			titles = append(titles, fmt.Sprintf("Story %d of page %s. %s", i, r.URL.Path, filler))
		}
		fmt.Fprint(w, annotated(titles...))
	}), 64)
	pollAll(b, p, ids, dynamo.StatusChanged)
}
