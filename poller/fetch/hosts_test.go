package fetch

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestOneRequestAtATimePerHost has an origin that records how many of its
// requests overlap; two origins (two host keys) may run side by side.
func TestOneRequestAtATimePerHost(t *testing.T) {
	var inFlight, most atomic.Int64
	h := func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond) // room for overlap, were it allowed
		w.Write([]byte("ok"))
	}
	srv := serve(t, h)
	c := open(Options{})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := c.Get(context.Background(), Request{URL: srv.URL + "/x"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if m := most.Load(); m != 1 {
		t.Fatalf("%d requests to one host overlapped, want 1", m)
	}
}

// TestHostGap checks, at the origin, that requests to one host start at
// least HostGap after the previous one ended.
func TestHostGap(t *testing.T) {
	const gap = 40 * time.Millisecond
	var mu sync.Mutex
	var starts []time.Time
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		w.Write([]byte("ok"))
	})
	c := open(Options{HostGap: gap})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := c.Get(context.Background(), Request{URL: srv.URL + "/x"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(starts) != 4 {
		t.Fatalf("%d requests arrived, want 4", len(starts))
	}
	for i := 1; i < len(starts); i++ {
		if d := starts[i].Sub(starts[i-1]); d < gap {
			t.Errorf("request %d started %s after the previous one, want at least %s", i, d, gap)
		}
	}
}

// TestRetryAfterPausesHost: after a 429 with Retry-After, the next request
// to the host waits for it when the caller's deadline allows, and fails at
// once, without reaching the origin, when it does not.
func TestRetryAfterPausesHost(t *testing.T) {
	var hits atomic.Int64
	var mu sync.Mutex
	var times []time.Time
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte("ok"))
	})
	c := open(Options{})
	_, err := c.Get(context.Background(), Request{URL: srv.URL + "/a"})
	if fe := wantKind(t, err, KindStatus); fe.RetryAfter != time.Second {
		t.Fatalf("RetryAfter = %s, want 1s", fe.RetryAfter)
	}

	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = c.Get(short, Request{URL: srv.URL + "/b"})
	if fe := wantKind(t, err, KindThrottled); fe.RetryAfter <= 0 || fe.RetryAfter > time.Second {
		t.Errorf("throttled RetryAfter = %s, want in (0, 1s]", fe.RetryAfter)
	}
	if hits.Load() != 1 {
		t.Fatalf("a throttled request reached the origin (%d hits)", hits.Load())
	}

	long, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if _, err := c.Get(long, Request{URL: srv.URL + "/c"}); err != nil {
		t.Fatal(err)
	}
	if d := times[1].Sub(times[0]); d < time.Second {
		t.Errorf("second request came %s after the 429, want at least 1s", d)
	}
}

// TestHostsForgetIdleHosts checks that the politeness table does not grow
// with every host ever polled.
func TestHostsForgetIdleHosts(t *testing.T) {
	hs := newHosts()
	for i := range 3 * sweepEvery {
		release, err := hs.acquire(context.Background(), "host-"+strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		release(time.Now(), 0, 0)
	}
	if n := len(hs.byKey); n > sweepEvery {
		t.Fatalf("%d hosts kept, want at most %d", n, sweepEvery)
	}
	// A host still in its gap is kept.
	release, _ := hs.acquire(context.Background(), "busy")
	release(time.Now(), time.Hour, 0)
	for i := range sweepEvery {
		r, _ := hs.acquire(context.Background(), "other-"+strconv.Itoa(i))
		r(time.Now(), 0, 0)
	}
	if _, ok := hs.byKey["busy"]; !ok {
		t.Fatal("a host within its gap was forgotten")
	}
}
