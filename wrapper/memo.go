package wrapper

import (
	"hash/maphash"
	"strings"
	"sync"
	"time"
)

// memoGeneration bounds the memo: two generations of at most this many
// bytes of inputs and results.
const memoGeneration = 8 << 20

// memoKind names what a memo entry derived.
type memoKind uint8

const (
	memoDescription    memoKind = iota // sanitized HTML and its plain text; ctx is the base URL
	memoLink                           // linkValue: the link and the problem; ctx is the base URL
	memoText                           // plainText
	memoDate                           // a date value in RFC 3339 ("" when it cannot be read) and its dates.Reading ("" for Fixed); in loc, read in dates.ZoneOrder
	memoDateDayFirst                   // the same, read in dates.DayFirst
	memoDateMonthFirst                 // the same, read in dates.MonthFirst
)

// memoKey is what a derived value depends on, all of it: the content of
// an annotation and what it is read against.
type memoKey struct {
	kind memoKind
	in   string
	ctx  string
	loc  *time.Location
}

// memoEntry is one derived value (a and b) with the inputs that gave it.
type memoEntry struct {
	key  memoKey
	a, b string
}

func (e *memoEntry) size() int { return 64 + len(e.key.in) + len(e.key.ctx) + len(e.a) + len(e.b) }

// memo remembers the values this process derived lately from annotation
// contents, so that a page polled again derives only its new or edited
// ones: a value seen before costs a hash and a lookup. Sanitizing
// descriptions was most of the CPU time of a poll that found one new item
// among fifty (docs/benchmarks/poller.md), and once descriptions were
// cached, reading dates and resolving links were (docs/benchmarks/wrapper.md).
// Each value depends on nothing but its key.
//
// Entries are found by a hash of the key and hold the key, compared on
// every hit, so a hash collision can cost a derivation but never give an
// item another's value. Entries hold copies of their strings, not pieces
// of the page they came from, so that the memo does not keep whole pages
// alive. Like the poller's fingerprint cache it keeps two generations:
// when the current one is full it becomes the old one, the previous old
// one is dropped, and entries still in use move back to the current one.
type memo struct {
	seed maphash.Seed

	mu       sync.Mutex
	cur, old map[uint64]*memoEntry
	curBytes int
}

// memos is the process's memo, shared by every Wrap.
var memos = newMemo()

func newMemo() *memo {
	return &memo{seed: maphash.MakeSeed(), cur: map[uint64]*memoEntry{}}
}

// get returns derive's results for the key, from the memo when they were
// derived lately.
func (c *memo) get(k memoKey, derive func() (string, string)) (string, string) {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteByte(byte(k.kind))
	h.WriteString(k.in)
	h.WriteByte(0)
	h.WriteString(k.ctx)
	sum := h.Sum64()

	c.mu.Lock()
	e := c.cur[sum]
	if e == nil {
		if e = c.old[sum]; e != nil && e.key == k {
			c.put(sum, e)
		}
	}
	c.mu.Unlock()
	if e != nil && e.key == k {
		return e.a, e.b
	}
	a, b := derive()
	e = &memoEntry{key: memoKey{kind: k.kind, in: strings.Clone(k.in), ctx: strings.Clone(k.ctx), loc: k.loc}, a: strings.Clone(a), b: strings.Clone(b)}
	c.mu.Lock()
	c.put(sum, e)
	c.mu.Unlock()
	return a, b
}

// put stores an entry in the current generation, starting a new one when
// it is full. The caller holds mu.
func (c *memo) put(sum uint64, e *memoEntry) {
	if old, ok := c.cur[sum]; ok {
		c.curBytes -= old.size()
	}
	if c.curBytes+e.size() > memoGeneration {
		c.old, c.cur, c.curBytes = c.cur, map[uint64]*memoEntry{}, 0
	}
	c.cur[sum] = e
	c.curBytes += e.size()
}
