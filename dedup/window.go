package dedup

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// Window holds the profiles of the items first seen within the detection
// window and proposes, for a new item, the held items that share one of its
// candidate keys (see lshConfig). It is safe for concurrent use: searches
// run in parallel and wait only for the short critical sections of adds.
//
// Entries go to a head indexed by a map; full heads are sealed into
// immutable segments whose keys are sorted with a directory, and segments
// of similar size are merged outside the lock, so that a search visits a
// few segments with one or two cache misses per key. Everything an entry
// holds is in pointer-free columns: a million entries give the garbage
// collector nothing to scan.
type Window struct {
	maint sync.Mutex // held by the one goroutine sealing, merging or dropping

	mu       sync.RWMutex
	sources  []windowSource    // by the index entries store
	sourceOf map[string]uint32 // live source id → index in sources
	head     headSegment
	segs     []*keySegment // sealed, oldest first
	cutoff   int64         // entries first seen before it are expired
}

type windowSource struct {
	id        string
	forgotten bool
}

// windowHeadSize is how many entries the head holds before it is sealed.
const windowHeadSize = 1024

// windowMergeRatio bounds segment sizes as in the multi-index: a segment is
// merged into the older one before it unless that one holds more than
// this many times its entries, so a million entries sit in a few segments.
const windowMergeRatio = 16

// NewWindow returns an empty window.
func NewWindow() *Window {
	return &Window{sourceOf: make(map[string]uint32), cutoff: math.MinInt64}
}

// An Entry is an item as the window holds it.
type Entry struct {
	Key       dynamo.ItemKey
	FirstSeen time.Time
	Story     uint32 // the detector's story id
	Profile   Profile
	Keys      []uint32 // candidate keys, sorted (lshConfig.keys)
}

// Add holds an entry, unless it was first seen before the expiry cutoff.
func (w *Window) Add(e Entry) bool {
	seen := unixNano(e.FirstSeen)
	w.mu.Lock()
	if seen < w.cutoff {
		w.mu.Unlock()
		return false
	}
	w.head.add(e, seen, w.sourceIndexLocked(e.Key.SourceID))
	full := w.head.len() >= windowHeadSize
	w.mu.Unlock()
	if full {
		w.maintain()
	}
	return true
}

// A Candidate is a held entry that shares a key with a query. Its profile
// and id are valid only during the callback.
type Candidate struct {
	SourceID  string
	itemID    []byte
	FirstSeen int64 // Unix nanoseconds
	Story     uint32
	Profile   Profile
}

// ItemID returns the candidate's item id.
func (c *Candidate) ItemID() string { return string(c.itemID) }

// Search calls fn, once each, for the live entries first seen at or after
// since, of another source than skipSource, that share a key with keys
// (sorted). fn runs under the window's read lock: it must not call the
// window.
func (w *Window) Search(keys []uint32, since time.Time, skipSource string, fn func(*Candidate)) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	from := max(unixNano(since), w.cutoff)
	skip, hasSkip := w.sourceOf[skipSource]
	var rows []uint32
	emit := func(c *entryColumns, row uint32) {
		src := c.src[row]
		if c.seen[row] < from || w.sources[src].forgotten || hasSkip && src == skip {
			return
		}
		cand := Candidate{
			SourceID:  w.sources[src].id,
			itemID:    c.id(row),
			FirstSeen: c.seen[row],
			Story:     c.story[row],
			Profile:   c.profile(row),
		}
		fn(&cand)
	}
	for _, s := range w.segs {
		if s.maxSeen < from {
			continue
		}
		rows = s.lookup(keys, rows[:0])
		for _, r := range rows {
			emit(&s.entryColumns, r)
		}
	}
	rows = w.head.lookup(keys, rows[:0])
	for _, r := range rows {
		emit(&w.head.entryColumns, r)
	}
}

// itemKey is the index key that finds an item itself (Window.holds),
// whatever its profile: a profile depends on the affixes its source had
// taught when it was made, so that an item read again later (Load,
// CatchUp) can have other candidate keys than the ones it is held under.
func itemKey(k dynamo.ItemKey) uint32 {
	return uint32(hash(k.ItemID, hash(k.SourceID, familyItem)))
}

// holds reports whether the window holds the item, found by its item key
// (itemKey), which every entry is indexed under besides its candidate
// keys.
func (w *Window) holds(key dynamo.ItemKey) bool {
	keys := []uint32{itemKey(key)}
	w.mu.RLock()
	defer w.mu.RUnlock()
	src, ok := w.sourceOf[key.SourceID]
	if !ok {
		return false
	}
	found := false
	var rows []uint32
	check := func(c *entryColumns, rows []uint32) {
		for _, r := range rows {
			found = found || c.src[r] == src && c.seen[r] >= w.cutoff && string(c.id(r)) == key.ItemID
		}
	}
	for _, s := range w.segs {
		rows = s.lookup(keys, rows[:0])
		check(&s.entryColumns, rows)
	}
	rows = w.head.lookup(keys, rows[:0])
	check(&w.head.entryColumns, rows)
	return found
}

// Expire drops the entries first seen before cutoff: searches stop
// answering them at once, and their memory is freed as segments are
// rebuilt. The cutoff never moves back.
func (w *Window) Expire(cutoff time.Time) {
	c := unixNano(cutoff)
	w.mu.Lock()
	moved := c > w.cutoff
	if moved {
		w.cutoff = c
	}
	w.mu.Unlock()
	if moved {
		w.maintain()
	}
}

// ForgetSource drops a source's entries, for when its archive is purged.
// Entries added for the same source id afterwards are kept.
func (w *Window) ForgetSource(sourceID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if i, ok := w.sourceOf[sourceID]; ok {
		w.sources[i].forgotten = true
		delete(w.sourceOf, sourceID)
	}
}

// WindowStats describes a window's size, for metrics and memory budgets.
type WindowStats struct {
	Entries  int // held, including expired ones not yet dropped
	Segments int // sealed segments, besides the head
	Keys     int // keys held: the entries' candidate keys and an item key each
	Bytes    int // memory held by entries and key tables
}

// Stats reports the window's size.
func (w *Window) Stats() WindowStats {
	w.mu.RLock()
	defer w.mu.RUnlock()
	st := WindowStats{Entries: w.head.len(), Segments: len(w.segs), Keys: w.head.keyCount, Bytes: w.head.bytes()}
	for _, s := range w.segs {
		st.Entries += s.len()
		st.Keys += len(s.keys)
		st.Bytes += s.bytes()
	}
	return st
}

func (w *Window) sourceIndexLocked(id string) uint32 {
	if i, ok := w.sourceOf[id]; ok {
		return i
	}
	i := uint32(len(w.sources))
	w.sources = append(w.sources, windowSource{id: id})
	w.sourceOf[id] = i
	return i
}

// maintain seals a full head, drops expired segments and rebuilds segments
// until none needs it. Rebuilds happen outside the lock, on segments that
// nobody else changes because only the holder of maint does.
func (w *Window) maintain() {
	if !w.maint.TryLock() {
		return
	}
	defer w.maint.Unlock()
	for {
		job, ok := w.nextJob()
		if !ok {
			return
		}
		var merged []*keySegment
		if s := job.build(); s.len() > 0 {
			merged = append(merged, s)
		}
		w.mu.Lock()
		w.segs = slices.Replace(w.segs, job.from, job.to, merged...)
		w.mu.Unlock()
	}
}

// windowRebuild is a maintenance job: segs[from:to] become one segment
// holding their live entries.
type windowRebuild struct {
	from, to  int
	parts     []*keySegment
	cutoff    int64
	forgotten []bool // by source index, as when the job was planned
}

func (w *Window) nextJob() (windowRebuild, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.segs = slices.DeleteFunc(w.segs, func(s *keySegment) bool { return s.maxSeen < w.cutoff })
	if w.head.len() >= windowHeadSize {
		if s := w.head.seal(w.cutoff, w.forgottenLocked()); s.len() > 0 {
			w.segs = append(w.segs, s)
		}
		w.head = headSegment{}
	}
	from, to := -1, -1
	for i, s := range w.segs {
		if w.cutoff > s.minSeen && w.cutoff > s.midSeen { // mostly expired
			from, to = i, i+1
			break
		}
	}
	for i := len(w.segs) - 1; from < 0 && i > 0; i-- {
		if w.segs[i-1].len() <= windowMergeRatio*w.segs[i].len() {
			from, to = i-1, i+1
		}
	}
	if from < 0 {
		return windowRebuild{}, false
	}
	return windowRebuild{from: from, to: to, parts: slices.Clone(w.segs[from:to]), cutoff: w.cutoff, forgotten: w.forgottenLocked()}, true
}

func (w *Window) forgottenLocked() []bool {
	out := make([]bool, len(w.sources))
	for i, s := range w.sources {
		out[i] = s.forgotten
	}
	return out
}

func (job windowRebuild) build() *keySegment {
	// Sizes first, so that the columns are allocated once.
	rows, terms, ids, keys := 0, 0, 0, 0
	for _, s := range job.parts {
		rows += s.len()
		terms += len(s.terms)
		ids += len(s.ids)
		keys += len(s.keys)
	}
	c := entryColumns{
		seen: make([]int64, 0, rows), src: make([]uint32, 0, rows), story: make([]uint32, 0, rows),
		idEnd: make([]uint32, 0, rows), ids: make([]byte, 0, ids), termEnd: make([]uint32, 0, rows),
		terms: make([]term, 0, terms), flags: make([]profileFlags, 0, rows), order: make([]uint32, 0, rows),
	}
	pairs := make([]uint64, 0, keys) // key<<32 | new row, sorted within each part
	var runs []int                   // where each part's pairs start
	for _, s := range job.parts {
		remap := make([]uint32, s.len())
		for row := range s.seen {
			if s.seen[row] >= job.cutoff && !job.forgotten[s.src[row]] {
				remap[row] = uint32(c.len()) + 1 // 0: dropped
				c.copyRow(&s.entryColumns, uint32(row))
			}
		}
		runs = append(runs, len(pairs))
		for i, k := range s.keys {
			if r := remap[s.rows[i]]; r != 0 {
				pairs = append(pairs, uint64(k)<<32|uint64(r-1))
			}
		}
	}
	runs = append(runs, len(pairs))
	// The parts' pairs are sorted runs: merge them pairwise.
	for len(runs) > 2 {
		merged := make([]uint64, 0, len(pairs))
		next := []int{0}
		for i := 0; i+1 < len(runs); i += 2 {
			end := runs[min(i+2, len(runs)-1)]
			merged = mergeSorted(merged, pairs[runs[i]:runs[i+1]], pairs[runs[i+1]:end])
			next = append(next, len(merged))
		}
		pairs, runs = merged, next
	}
	return newKeySegment(c, pairs)
}

func mergeSorted(dst, a, b []uint64) []uint64 {
	for len(a) > 0 && len(b) > 0 {
		if a[0] <= b[0] {
			dst, a = append(dst, a[0]), a[1:]
		} else {
			dst, b = append(dst, b[0]), b[1:]
		}
	}
	return append(append(dst, a...), b...)
}

var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// unixNano is t in Unix nanoseconds, clamped to the years 1677-2262 that
// they can represent (the zero Time means "since forever").
func unixNano(t time.Time) int64 {
	switch {
	case t.Before(minTime):
		return math.MinInt64
	case t.After(maxTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}
