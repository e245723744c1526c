package fetch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// hosts keeps the per-host politeness state: whose turn it is, and when
// the next request to each host may start.
type hosts struct {
	mu     sync.Mutex
	byKey  map[string]*host
	acquis int // acquisitions since the last sweep
}

type host struct {
	turn chan struct{} // holds a token while a request to the host runs
	// next is the earliest start of the next request: the end of the last
	// one plus the gap, or later when the host sent Retry-After.
	next time.Time
	end  time.Time // when the last request ended
	// delay is the host's Crawl-delay (robots.txt), a floor on the gap.
	delay time.Duration
	refs  int // goroutines holding or waiting for the turn
}

// sweepEvery is how many acquisitions pass between sweeps of idle hosts,
// which keep the map from growing with every host ever polled.
const sweepEvery = 1024

func newHosts() *hosts { return &hosts{byKey: map[string]*host{}} }

// throttledError says that the host's next turn is beyond the caller's
// deadline.
type throttledError struct{ wait time.Duration }

func (e *throttledError) Error() string {
	return fmt.Sprintf("the host asked not to be polled for another %s, beyond this request's deadline", e.wait.Round(time.Millisecond))
}

// acquire waits for key's turn and for its next start time, within ctx.
// The returned release must be called with the time the request ended, the
// gap to keep, and any pause the host asked for.
func (hs *hosts) acquire(ctx context.Context, key string) (release func(end time.Time, gap, pause time.Duration), err error) {
	h := hs.ref(key, time.Now())
	select {
	case h.turn <- struct{}{}:
	case <-ctx.Done():
		hs.unref(h)
		return nil, ctx.Err()
	}
	release = func(end time.Time, gap, pause time.Duration) {
		hs.mu.Lock()
		h.end = end
		next := end.Add(max(gap, h.delay))
		if p := end.Add(pause); p.After(next) {
			next = p
		}
		if next.After(h.next) {
			h.next = next
		}
		hs.mu.Unlock()
		<-h.turn
		hs.unref(h)
	}
	hs.mu.Lock()
	wait := time.Until(h.next)
	hs.mu.Unlock()
	if err := sleep(ctx, wait); err != nil {
		release(time.Now(), 0, 0)
		return nil, err
	}
	return release, nil
}

// sleep waits d within ctx. A wait that cannot end before ctx's deadline
// fails at once with a throttledError, rather than hold the caller only to
// fail.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return &throttledError{wait: d}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// setDelay makes d the floor of key's gap, from the end of its last
// request on.
func (hs *hosts) setDelay(key string, d time.Duration) {
	h := hs.ref(key, time.Now())
	hs.mu.Lock()
	h.delay = d
	if next := h.end.Add(d); next.After(h.next) {
		h.next = next
	}
	hs.mu.Unlock()
	hs.unref(h)
}

// busy lists the hosts a request could not start to at now: one is under
// way or waiting for its turn, or the gap after the last one is not over.
func (hs *hosts) busy(now time.Time) []string {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	var out []string
	for k, h := range hs.byKey {
		if h.refs > 0 || h.next.After(now) {
			out = append(out, k)
		}
	}
	return out
}

func (hs *hosts) ref(key string, now time.Time) *host {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.acquis++; hs.acquis >= sweepEvery {
		hs.acquis = 0
		for k, h := range hs.byKey {
			if h.refs == 0 && !h.next.After(now) {
				delete(hs.byKey, k)
			}
		}
	}
	h := hs.byKey[key]
	if h == nil {
		h = &host{turn: make(chan struct{}, 1)}
		hs.byKey[key] = h
	}
	h.refs++
	return h
}

func (hs *hosts) unref(h *host) {
	hs.mu.Lock()
	h.refs--
	hs.mu.Unlock()
}

// kindOfWait classifies a failure to get the host's turn.
func kindOfWait(err error) Kind {
	var te *throttledError
	switch {
	case errors.As(err, &te):
		return KindThrottled
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	}
	return KindCanceled
}

// retryAfterOf is the wait left for a throttled request, zero otherwise.
func retryAfterOf(err error) time.Duration {
	var te *throttledError
	if errors.As(err, &te) {
		return te.wait
	}
	return 0
}
