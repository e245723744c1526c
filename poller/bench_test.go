package poller_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
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
	cpuStart := cpuTime(b)
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
	if cpu := cpuTime(b) - cpuStart; b.N > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/poll")
	}
}

// cpuTime is the user and system time this process has used: the origin,
// the fetcher and the poller, but not PostgreSQL. On a machine shared with
// other work it is a steadier measure than the elapsed time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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

// changingPage is a 50 KB annotated page of 50 stories, each a title and a
// description of about 900 bytes, whose top story is new at every request:
// the typical change, one new item among fifty.
func changingPage(path string, n int64) string {
	var b strings.Builder
	b.WriteString("<html><head><title>Town news</title></head><body><h1><!-- <channel:title> -->Town news<!-- </channel:title> --></h1>\n")
	story := func(index int, title string) {
		fmt.Fprintf(&b, "<div class=story><h2><!-- <item:title index=\"%d\"> -->%s<!-- </item:title> --></h2>\n"+
			"<!-- <item:description index=\"%d\"> --><p>%s</p><p>%s</p><!-- </item:description> --></div>\n",
			index, title, index, strings.Repeat("The council met on Tuesday evening to discuss the budget. ", 13), title)
	}
	story(1, fmt.Sprintf("Breaking story number %d on %s", n, path))
	for i := 2; i <= 50; i++ {
		story(i, fmt.Sprintf("Story %d of page %s", i, path))
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// BenchmarkPollChanged polls 50 KB annotated pages that gain a story on
// every request, so each poll parses the page and stores a new version
// with one new item. A first poll of every source, not measured, stores
// the other 49.
func BenchmarkPollChanged(b *testing.B) {
	var served atomic.Int64
	p, ids := benchPoller(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, changingPage(r.URL.Path, served.Add(1)))
	}), 64)
	for _, id := range ids {
		if _, err := p.PollNow(context.Background(), id); err != nil {
			b.Fatal(err)
		}
	}
	pollAll(b, p, ids, dynamo.StatusChanged)
	b.ReportMetric(float64(len(changingPage("/p000", 1))), "page-bytes")
}
