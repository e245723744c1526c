package websub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo/poller/fetch"
)

// checkHost refuses a callback host that is, or resolves to, an address
// the fetcher's guard refuses (fetch.CheckAddr), so that such a request is
// refused at once with a reason; the guarded dialer still refuses it when
// the name resolves elsewhere later.
func checkHost(ctx context.Context, host string) error {
	if addr, err := netip.ParseAddr(host); err == nil {
		return fetch.CheckAddr(addr)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if err := fetch.CheckAddr(a); err != nil {
			return err
		}
	}
	return nil
}

// randomToken is 32 random bytes in hex: callback tokens, secrets and
// challenges (§5.1.1 capability URLs, §8.2 random single-use challenges).
func randomToken() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// limiter is a token bucket per key: perMinute requests a minute, in
// bursts of at most perMinute.
type limiter struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, buckets: map[string]*bucket{}}
}

// allow takes a token from key's bucket, if it has one.
func (l *limiter) allow(key string, perMinute int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Sub(l.swept) > time.Minute {
		// A bucket idle for a minute is full again: forget it.
		for k, b := range l.buckets {
			if now.Sub(b.at) > time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: float64(perMinute), at: now}
		l.buckets[key] = b
	}
	b.tokens = min(float64(perMinute), b.tokens+now.Sub(b.at).Minutes()*float64(perMinute))
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
