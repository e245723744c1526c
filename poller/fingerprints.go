package poller

import (
	"hash/maphash"
	"sync"

	"github.com/dynamo-feeds/dynamo/dedup"
)

// fingerprintGeneration bounds the fingerprint cache: two generations of
// at most this many entries, about 5 MB in all.
const fingerprintGeneration = 1 << 16

// fingerprintCache remembers the SimHash fingerprints of the items this
// process fingerprinted lately, so that a changed page costs a fingerprint
// only for the items that are new or edited. A typical changed poll finds
// one new item among fifty, and fingerprinting all fifty again was most of
// the CPU time of such a poll (docs/benchmarks/poller.md).
//
// Entries are keyed by a 64-bit hash of the fingerprint's inputs. Two
// different inputs sharing a key would give an item another's fingerprint;
// among the 131,072 keys the cache can hold, the chance is about 1 in 10⁹.
// A fingerprint only groups near-duplicates, so the cost would be one
// story wrongly grouped or missed.
//
// The cache keeps two generations: when the current one is full it becomes
// the old one, and the previous old one is dropped. Items still on their
// pages are found in either and move back to the current generation, so
// what stays is what polls keep seeing, with no per-entry bookkeeping.
type fingerprintCache struct {
	seed maphash.Seed

	mu       sync.Mutex
	cur, old map[uint64]uint64
}

// fingerprints is the process's cache, shared by its pollers: a
// fingerprint depends on nothing but its inputs.
var fingerprints = newFingerprintCache()

func newFingerprintCache() *fingerprintCache {
	return &fingerprintCache{seed: maphash.MakeSeed(), cur: map[uint64]uint64{}}
}

// fingerprint returns dedup.Fingerprint(title, description, prefix),
// computing it only when it is not cached.
func (c *fingerprintCache) fingerprint(title, description, prefix string) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	for _, s := range [...]string{title, description, prefix} {
		h.WriteString(s)
		h.WriteByte(0) // "ab"+"c" and "a"+"bc" differ
	}
	key := h.Sum64()

	c.mu.Lock()
	fp, ok := c.cur[key]
	if !ok {
		if fp, ok = c.old[key]; ok {
			c.put(key, fp)
		}
	}
	c.mu.Unlock()
	if ok {
		return fp
	}
	fp = dedup.Fingerprint(title, description, prefix)
	c.mu.Lock()
	c.put(key, fp)
	c.mu.Unlock()
	return fp
}

// put stores an entry in the current generation, starting a new one when
// it is full. The caller holds mu.
func (c *fingerprintCache) put(key, fp uint64) {
	if len(c.cur) >= fingerprintGeneration {
		c.old, c.cur = c.cur, make(map[uint64]uint64, fingerprintGeneration/4)
	}
	c.cur[key] = fp
}
