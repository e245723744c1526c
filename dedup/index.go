package dedup

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// Index holds fingerprints and answers which of them lie within a Hamming
// distance of a query, exactly as a linear scan would, in time that grows
// far slower than the number of entries (multi-index hashing; see
// docs/DEDUP.md). It is safe for concurrent use: searches run in parallel
// with each other and wait only for the short critical sections of adds.
//
// Entries go to a small head that is scanned linearly; full heads are
// sealed into immutable segments with hashing tables, and segments of
// similar size are merged, so that a search visits a few segments. Merges
// are built outside the lock. Entries first seen before the expiry cutoff
// are never answered and are dropped as their segments are rebuilt.
type Index struct {
	k int // the distance the tables are laid out for

	maint sync.Mutex // held by the one goroutine sealing, merging or dropping

	mu       sync.RWMutex
	sources  []source          // by the index that entries store
	sourceOf map[string]uint32 // live source id → index in sources
	head     columns           // the newest entries, scanned linearly
	segs     []*segment        // sealed segments, oldest first
	cutoff   int64             // entries first seen before it are expired
}

type source struct {
	id        string
	forgotten bool
}

// Match is an indexed entry found by a search.
type Match struct {
	dynamo.FingerprintEntry
	Distance int // Hamming distance to the query
}

// Stats describes an index's size, for metrics and memory budgets.
type Stats struct {
	Entries  int // held, including expired ones not yet dropped
	Segments int // sealed segments, besides the head
	Bytes    int // memory held by entries and tables
}

// headSize is how many entries are scanned linearly before they are sealed
// into a segment: scanning 256 fingerprints costs about as much as a few
// probes, and sealing more often would only make more merges.
const headSize = 256

// mergeRatio bounds segment sizes: a segment is merged into the older one
// before it unless that one holds more than mergeRatio times its entries,
// so sizes shrink geometrically and a search visits about
// log_mergeRatio(n/headSize) segments: 3 at a million. Each segment costs
// a search its probes whatever its size, so few segments matter more than
// the extra rewriting of entries that a high ratio costs (measured: 16
// searched a million entries faster than 4, and filled them no slower).
const mergeRatio = 16

// NewIndex returns an empty index whose tables are laid out for searches at
// distance k; searches at any other distance are answered exactly too, by
// the same tables or by a scan, whichever is estimated cheaper.
func NewIndex(k int) *Index {
	return &Index{k: k, sourceOf: make(map[string]uint32), cutoff: math.MinInt64}
}

// Add indexes an entry and reports whether it was added: an entry already
// held (same key and fingerprint) or first seen before the expiry cutoff is
// not, so that reloading overlapping ranges from the store is harmless.
func (ix *Index) Add(e dynamo.FingerprintEntry) bool {
	seen := unixNano(e.FirstSeen)
	ix.mu.Lock()
	if seen < ix.cutoff || ix.containsLocked(e) {
		ix.mu.Unlock()
		return false
	}
	ix.head.add(e.Fingerprint, seen, ix.sourceIndexLocked(e.Key.SourceID), e.Key.ItemID)
	full := ix.head.len() >= headSize
	ix.mu.Unlock()
	if full {
		ix.maintain()
	}
	return true
}

// Search returns the entries within Hamming distance k of fp that were
// first seen at or after since (and not expired), ordered by first seen,
// then distance, then key.
func (ix *Index) Search(fp uint64, k int, since time.Time) []Match {
	if k < 0 {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	from := max(unixNano(since), ix.cutoff)
	var out []Match
	collect := func(c *columns, row, distance int) {
		if c.seen[row] >= from && !ix.sources[c.src[row]].forgotten {
			out = append(out, ix.matchLocked(c, row, distance))
		}
	}
	for _, s := range ix.segs {
		if s.maxSeen >= from {
			s.search(fp, k, collect)
		}
	}
	ix.head.scan(fp, k, collect)
	slices.SortFunc(out, compareMatches)
	return out
}

// Expire drops the entries first seen before cutoff: searches stop
// answering them at once, and their memory is freed as segments are
// rebuilt. The cutoff never moves back.
func (ix *Index) Expire(cutoff time.Time) {
	c := unixNano(cutoff)
	ix.mu.Lock()
	moved := c > ix.cutoff
	if moved {
		ix.cutoff = c
	}
	ix.mu.Unlock()
	if moved {
		ix.maintain()
	}
}

// ForgetSource drops a source's entries, for when its archive is purged:
// they must not become primaries of duplicates. Entries added for the same
// source id afterwards are kept.
func (ix *Index) ForgetSource(sourceID string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if i, ok := ix.sourceOf[sourceID]; ok {
		ix.sources[i].forgotten = true
		delete(ix.sourceOf, sourceID)
	}
}

// Stats reports the index's size.
func (ix *Index) Stats() Stats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st := Stats{Entries: ix.head.len(), Segments: len(ix.segs), Bytes: ix.head.bytes()}
	for _, s := range ix.segs {
		st.Entries += s.len()
		st.Bytes += s.bytes()
	}
	return st
}

// containsLocked reports whether e is held and answered: the same key with
// the same fingerprint, not expired, its source not forgotten.
func (ix *Index) containsLocked(e dynamo.FingerprintEntry) bool {
	src, ok := ix.sourceOf[e.Key.SourceID]
	if !ok {
		return false
	}
	found := false
	same := func(c *columns, row, _ int) {
		found = found || (c.src[row] == src && c.seen[row] >= ix.cutoff && string(c.id(row)) == e.Key.ItemID)
	}
	for _, s := range ix.segs {
		s.search(e.Fingerprint, 0, same)
	}
	ix.head.scan(e.Fingerprint, 0, same)
	return found
}

func (ix *Index) sourceIndexLocked(id string) uint32 {
	if i, ok := ix.sourceOf[id]; ok {
		return i
	}
	i := uint32(len(ix.sources))
	ix.sources = append(ix.sources, source{id: id})
	ix.sourceOf[id] = i
	return i
}

func (ix *Index) matchLocked(c *columns, row, distance int) Match {
	return Match{
		FingerprintEntry: dynamo.FingerprintEntry{
			Key:         dynamo.ItemKey{SourceID: ix.sources[c.src[row]].id, ItemID: string(c.id(row))},
			Fingerprint: c.fp[row],
			FirstSeen:   time.Unix(0, c.seen[row]).UTC(),
		},
		Distance: distance,
	}
}

func compareMatches(a, b Match) int {
	return cmp.Or(
		a.FirstSeen.Compare(b.FirstSeen),
		cmp.Compare(a.Distance, b.Distance),
		cmp.Compare(a.Key.SourceID, b.Key.SourceID),
		cmp.Compare(a.Key.ItemID, b.Key.ItemID),
	)
}

// maintain seals a full head, drops expired segments and rebuilds segments
// until none needs it. Rebuilds happen outside the lock, on segments that
// nobody else changes because only the holder of maint does; a goroutine
// finding maintenance under way leaves it to the one doing it.
func (ix *Index) maintain() {
	if !ix.maint.TryLock() {
		return
	}
	defer ix.maint.Unlock()
	for {
		job, ok := ix.nextJob()
		if !ok {
			return
		}
		var merged []*segment
		if s := job.build(); s.len() > 0 {
			merged = append(merged, s)
		}
		ix.mu.Lock()
		ix.segs = slices.Replace(ix.segs, job.from, job.to, merged...)
		ix.mu.Unlock()
	}
}

// rebuild is a maintenance job: segs[from:to] become one segment holding
// their live entries.
type rebuild struct {
	from, to  int
	parts     []*segment
	cutoff    int64
	forgotten []bool // by source index, as when the job was planned
	k         int
}

// nextJob does the quick work under the lock (sealing the head, dropping
// wholly expired segments) and plans the next rebuild, if any: first a
// segment that is mostly expired, then two neighbours of similar size.
func (ix *Index) nextJob() (rebuild, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.segs = slices.DeleteFunc(ix.segs, func(s *segment) bool { return s.maxSeen < ix.cutoff })
	if ix.head.len() >= headSize {
		if live := ix.liveLocked(&ix.head); live.len() > 0 {
			ix.segs = append(ix.segs, newSegment(live, ix.k))
		}
		ix.head = columns{}
	}
	from, to := -1, -1
	for i, s := range ix.segs {
		if s.mostlyExpired(ix.cutoff) {
			from, to = i, i+1
			break
		}
	}
	for i := len(ix.segs) - 1; from < 0 && i > 0; i-- {
		if ix.segs[i-1].len() <= mergeRatio*ix.segs[i].len() {
			from, to = i-1, i+1
		}
	}
	if from < 0 {
		return rebuild{}, false
	}
	job := rebuild{from: from, to: to, parts: slices.Clone(ix.segs[from:to]), cutoff: ix.cutoff, k: ix.k}
	for _, s := range ix.sources {
		job.forgotten = append(job.forgotten, s.forgotten)
	}
	return job, true
}

// liveLocked copies the entries of c that are neither expired nor forgotten.
func (ix *Index) liveLocked(c *columns) columns {
	var live columns
	for row := range c.fp {
		if c.seen[row] >= ix.cutoff && !ix.sources[c.src[row]].forgotten {
			live.copyRow(c, row)
		}
	}
	return live
}

func (job rebuild) build() *segment {
	rows, idBytes := 0, 0
	for _, s := range job.parts {
		rows += s.len()
		idBytes += len(s.ids)
	}
	c := columns{
		fp:   make([]uint64, 0, rows),
		seen: make([]int64, 0, rows),
		src:  make([]uint32, 0, rows),
		end:  make([]uint32, 0, rows),
		ids:  make([]byte, 0, idBytes),
	}
	for _, s := range job.parts {
		for row := range s.fp {
			if s.seen[row] >= job.cutoff && !job.forgotten[s.src[row]] {
				c.copyRow(&s.columns, row)
			}
		}
	}
	return newSegment(c, job.k)
}
