package wrapper

import (
	"hash/maphash"
	"net/url"
	"sync"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

// descriptionGeneration bounds the description cache: two generations of
// at most this many bytes of descriptions (raw, sanitized and plain text).
const descriptionGeneration = 8 << 20

// descriptionCache remembers the descriptions this process sanitized
// lately, so that a page polled again sanitizes only its new or edited
// descriptions. Sanitizing (a parse to make URLs absolute, bluemonday, and
// the plain text) was most of the CPU time of a poll that found one new
// item among fifty (docs/benchmarks/poller.md); the result depends on
// nothing but the raw description and the base URL.
//
// Entries are found by a hash of the raw description and the base URL and
// hold both, compared on every hit, so a hash collision can cost a
// sanitizing but never give an item another's description. Like the
// poller's fingerprint cache it keeps two generations: when the current
// one is full it becomes the old one, the previous old one is dropped, and
// entries still in use move back to the current one.
type descriptionCache struct {
	seed maphash.Seed

	mu       sync.Mutex
	cur, old map[uint64]description
	curBytes int
}

// description is one cached result with the inputs that produced it.
type description struct {
	raw, base, html, text string
}

func (d description) size() int { return len(d.raw) + len(d.base) + len(d.html) + len(d.text) }

// descriptions is the process's cache, shared by every Wrap.
var descriptions = newDescriptionCache()

func newDescriptionCache() *descriptionCache {
	return &descriptionCache{seed: maphash.MakeSeed(), cur: map[uint64]description{}}
}

// sanitized returns sanitize.HTMLText(raw, base): the sanitized HTML and its plain text, from the
// cache when this raw description was sanitized against the same base.
func (c *descriptionCache) sanitized(raw string, base *url.URL) (string, string) {
	baseStr := ""
	if base != nil {
		baseStr = base.String()
	}
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(raw)
	h.WriteByte(0)
	h.WriteString(baseStr)
	key := h.Sum64()

	c.mu.Lock()
	d, ok := c.cur[key]
	if !ok {
		if d, ok = c.old[key]; ok && d.raw == raw && d.base == baseStr {
			c.put(key, d)
		}
	}
	c.mu.Unlock()
	if ok && d.raw == raw && d.base == baseStr {
		return d.html, d.text
	}
	d = description{raw: raw, base: baseStr}
	d.html, d.text = sanitize.HTMLText(raw, base)
	c.mu.Lock()
	c.put(key, d)
	c.mu.Unlock()
	return d.html, d.text
}

// put stores an entry in the current generation, starting a new one when
// it is full. The caller holds mu.
func (c *descriptionCache) put(key uint64, d description) {
	if old, ok := c.cur[key]; ok {
		c.curBytes -= old.size()
	}
	if c.curBytes+d.size() > descriptionGeneration {
		c.old, c.cur, c.curBytes = c.cur, map[uint64]description{}, 0
	}
	c.cur[key] = d
	c.curBytes += d.size()
}
