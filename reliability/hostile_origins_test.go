package reliability_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// hostileOrigin is one misbehaving web site and what its polls must end
// with.
type hostileOrigin struct {
	name    string
	kind    dynamo.SourceKind
	handler func(stop <-chan struct{}) http.HandlerFunc
	wantErr string // part of the error recorded on the source
}

// gzipBomb is size bytes of zeros, gzipped (about a thousandth of size).
func gzipBomb(t testing.TB, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range size >> 20 {
		if _, err := z.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hostileOrigins are the sites: each hangs, drips, floods, loops or lies
// in its own way. Each runs on a host of its own, as it would in the wild
// (requests to one host take turns by design).
func hostileOrigins(t testing.TB) []hostileOrigin {
	bomb := gzipBomb(t, 256<<20)
	t.Logf("gzip bomb: %d bytes that inflate to 256 MiB", len(bomb))
	wait := func(stop <-chan struct{}, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}
	return []hostileOrigin{
		{"hang", dynamo.KindHTML, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { wait(stop, r) }
		}, "timeout"},
		{"hang-after-headers", dynamo.KindHTML, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte("<html><!-- <item:title> -->"))
				w.(http.Flusher).Flush()
				wait(stop, r)
			}
		}, "timeout"},
		{"drip", dynamo.KindHTML, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "100000")
				for {
					if _, err := w.Write([]byte("<")); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					select {
					case <-stop:
						return
					case <-r.Context().Done():
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}
		}, "timeout"},
		{"flood", dynamo.KindHTML, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				chunk := bytes.Repeat([]byte("<!-- <item:title> -->flood<!-- </item:title> -->"), 1000)
				for {
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			}
		}, "body exceeds"},
		{"declared-huge", dynamo.KindFeed, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", fmt.Sprint(int64(1)<<40))
				w.Write([]byte("<rss>"))
			}
		}, "exceeds"},
		{"gzip-bomb", dynamo.KindFeed, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Content-Type", "application/rss+xml")
				w.Write(bomb)
			}
		}, "exceeds"},
		{"redirect-loop", dynamo.KindHTML, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				next := "/a"
				if r.URL.Path == "/a" {
					next = "/b"
				}
				http.Redirect(w, r, next, http.StatusFound)
			}
		}, "redirects"},
		{"header-flood", dynamo.KindHTML, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				for i := range 400 {
					w.Header().Set(fmt.Sprintf("X-Flood-%d", i), strings.Repeat("h", 1000))
				}
				w.Write([]byte("x"))
			}
		}, "network"},
		{"server-error", dynamo.KindHTML, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, strings.Repeat("boom ", 100000), http.StatusInternalServerError)
			}
		}, "500"},
		{"hangs-up", dynamo.KindHTML, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n<html>"))
					conn.Close()
				}
			}
		}, "network"},
		{"binary-noise", dynamo.KindHTML, func(stop <-chan struct{}) http.HandlerFunc {
			noise := make([]byte, 256<<10)
			for i := range noise {
				noise[i] = byte(i*7919 + i>>3)
			}
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Write(noise)
			}
		}, "no annotations"},
		{"html-as-feed", dynamo.KindFeed, func(stop <-chan struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Write([]byte("<!doctype html><html><body><p>not a feed</p></body></html>"))
			}
		}, "not a feed"},
	}
}

// TestHostileOriginsThroughThePoller runs the poller for a few seconds over
// a dozen misbehaving sites and one well-behaved changing page. Every poll
// of a hostile site ends within the fetch timeout, its error is recorded on
// the source and in the poll log, the source backs off, the process's heap
// stays bounded whatever the sites send, and the good page keeps being
// polled and stored throughout.
func TestHostileOriginsThroughThePoller(t *testing.T) {
	const (
		run       = 6 * time.Second
		timeout   = time.Second
		maxBody   = 1 << 20
		errorBase = 400 * time.Millisecond
	)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	origins := hostileOrigins(t)
	for _, o := range origins {
		srv := httptest.NewServer(o.handler(stop))
		t.Cleanup(srv.Close)
		src := &dynamo.Source{ID: o.name, URL: srv.URL + "/feed", Kind: o.kind, Interval: dynamo.Duration(100 * time.Millisecond), Policy: "flat"}
		if err := st.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(halt) // runs before the servers close, which waits for handlers
	good := newChangingOrigin(t, 0)
	goodURL := good.URL + "/news"
	if err := st.CreateSource(ctx, &dynamo.Source{ID: "good", URL: goodURL, Kind: dynamo.KindHTML,
		Interval: dynamo.Duration(100 * time.Millisecond), Policy: "flat"}); err != nil {
		t.Fatal(err)
	}

	type pollStats struct {
		polls, errors int
		slowest       time.Duration
		times         []time.Time
	}
	var mu sync.Mutex
	stats := map[string]*pollStats{}
	p, err := poller.New(poller.Config{
		Store:        st,
		Fetcher:      fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: timeout, ConnectTimeout: timeout, MaxBody: maxBody}),
		Owner:        "hostile-test",
		Workers:      8,
		Policy:       "flat",
		PolicyConfig: policy.Config{ErrorBase: errorBase, ErrorMax: 4 * time.Second},
		LeaseTTL:     10 * time.Second,
		Tick:         20 * time.Millisecond,
		OnPoll: func(id string, status dynamo.PollStatus, took time.Duration, _ bool) {
			mu.Lock()
			defer mu.Unlock()
			s := stats[id]
			if s == nil {
				s = &pollStats{}
				stats[id] = s
			}
			s.polls++
			if status == dynamo.StatusError {
				s.errors++
			}
			s.slowest = max(s.slowest, took)
			s.times = append(s.times, time.Now())
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	// Sample the heap while the poller runs.
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peakHeap atomic.Uint64
	sampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peakHeap.Load() {
				peakHeap.Store(m.HeapInuse)
			}
			select {
			case <-sampling:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()

	runCtx, cancel := context.WithTimeout(ctx, run)
	defer cancel()
	started := time.Now()
	if err := p.Run(runCtx); err != nil {
		t.Fatal(err)
	}
	stopped := time.Since(started)
	close(sampling)
	<-sampled
	halt()

	if stopped > run+timeout+2*time.Second {
		t.Errorf("the poller took %s to stop after a %s run: a hostile poll outlived the fetch timeout", stopped, run)
	}
	growth := int64(peakHeap.Load()) - int64(base.HeapInuse)
	// A body is capped at 1 MiB after decompression; the flood, the bomb
	// and the noise together must not cost more than a few of those.
	if growth > 64<<20 {
		t.Errorf("heap in use grew by %d MiB while polling hostile sites; bodies are capped at 1 MiB", growth>>20)
	}
	t.Logf("heap in use: %.1f MiB before, peak %.1f MiB during the run (+%.1f MiB)",
		float64(base.HeapInuse)/(1<<20), float64(peakHeap.Load())/(1<<20), float64(growth)/(1<<20))

	mu.Lock()
	defer mu.Unlock()
	for _, o := range origins {
		s := stats[o.name]
		if s == nil || s.polls == 0 {
			t.Errorf("%s: never polled", o.name)
			continue
		}
		src, err := st.Source(ctx, o.name)
		if err != nil {
			t.Fatal(err)
		}
		if s.errors != s.polls || src.State.Errors != s.polls || !strings.Contains(src.State.LastError, o.wantErr) {
			t.Errorf("%s: %d polls, %d errors; source records %d errors, last %q; want every poll an error mentioning %q",
				o.name, s.polls, s.errors, src.State.Errors, src.State.LastError, o.wantErr)
		}
		if s.slowest > timeout+time.Second {
			t.Errorf("%s: a poll took %s; the fetch timeout is %s", o.name, s.slowest, timeout)
		}
		// Backing off: the n-th failure waits at least half of
		// errorBase·2^(n−1), so a few seconds hold only a handful of polls.
		if wait := src.State.NextPoll.Sub(src.State.LastPoll); wait < policy.Backoff(src.State.Errors, policy.Config{ErrorBase: errorBase, ErrorMax: 4 * time.Second}, nil)/2 {
			t.Errorf("%s: next poll %s after the %d-th failure; the back-off says at least half of %s", o.name, wait, src.State.Errors,
				policy.Backoff(src.State.Errors, policy.Config{ErrorBase: errorBase, ErrorMax: 4 * time.Second}, nil))
		}
		if s.polls > 6 {
			t.Errorf("%s: polled %d times in %s despite failing every time", o.name, s.polls, run)
		}
		log, err := st.Polls(ctx, o.name, 100)
		if err != nil || len(log) != s.polls || log[0].Status != dynamo.StatusError || log[0].Error == "" {
			t.Errorf("%s: poll log %+v (%v); want %d failed polls with their error", o.name, log, err, s.polls)
		}
		t.Logf("%-20s %d polls, slowest %6s, next wait %6s: %s", o.name, s.polls, s.slowest.Round(time.Millisecond),
			src.State.NextPoll.Sub(src.State.LastPoll).Round(time.Millisecond), src.State.LastError)
	}

	g := stats["good"]
	if g == nil || g.errors != 0 || g.polls < 10 {
		t.Fatalf("the good source: %+v; want at least 10 polls in %s, none failing", g, run)
	}
	var gap time.Duration
	prev := started
	for _, at := range g.times {
		gap = max(gap, at.Sub(prev))
		prev = at
	}
	if gap > 3*timeout {
		t.Errorf("the good source went %s without a poll while hostile sites were polled", gap)
	}
	n := checkVersions(t, st, "good", goodURL)
	t.Logf("good source: %d polls, %d versions, longest gap between polls %s", g.polls, n, gap.Round(time.Millisecond))
}
