package policy

import "time"

// Rand is the random source the back-off draws its jitter from;
// *math/rand/v2.Rand and *math/rand.Rand both satisfy it. Passing it in
// keeps the package free of hidden state and its results reproducible.
type Rand interface {
	Float64() float64
}

// Backoff is how long to wait after the n-th consecutive failed poll:
// ErrorBase·2^(n−1), capped at ErrorMax, of which a random half is
// dropped ("equal jitter": between half and all of it) so that sources
// failing together do not retry together. A nil rnd gives the full wait.
func Backoff(n int, cfg Config, rnd Rand) time.Duration {
	cfg = cfg.WithDefaults()
	if n < 1 {
		return 0
	}
	wait := cfg.ErrorMax
	if shift := n - 1; shift < 62 {
		if grown := cfg.ErrorBase << shift; grown>>shift == cfg.ErrorBase && grown < wait {
			wait = grown
		}
	}
	if rnd == nil {
		return wait
	}
	jitter := rnd.Float64()
	if !(jitter >= 0 && jitter < 1) {
		jitter = 0
	}
	return wait/2 + time.Duration(jitter*float64(wait/2))
}
