package dedup

import (
	"math"
	"math/bits"
)

// columns hold index entries column by column, without pointers, so that a
// million entries cost the garbage collector nothing to scan and little
// memory: 24 bytes plus the item id per entry.
type columns struct {
	fp   []uint64
	seen []int64  // first seen, Unix nanoseconds
	src  []uint32 // index into Index.sources
	end  []uint32 // ids[end[i-1]:end[i]] is row i's item id
	ids  []byte
}

func (c *columns) len() int { return len(c.fp) }

func (c *columns) add(fp uint64, seen int64, src uint32, id string) {
	c.fp = append(c.fp, fp)
	c.seen = append(c.seen, seen)
	c.src = append(c.src, src)
	c.ids = append(c.ids, id...)
	c.end = append(c.end, uint32(len(c.ids)))
}

// id returns row's item id as bytes, valid while c is not appended to.
func (c *columns) id(row int) []byte {
	start := uint32(0)
	if row > 0 {
		start = c.end[row-1]
	}
	return c.ids[start:c.end[row]]
}

func (c *columns) copyRow(from *columns, row int) {
	c.fp = append(c.fp, from.fp[row])
	c.seen = append(c.seen, from.seen[row])
	c.src = append(c.src, from.src[row])
	c.ids = append(c.ids, from.id(row)...)
	c.end = append(c.end, uint32(len(c.ids)))
}

// scan is the linear scan: every row within distance k of q.
func (c *columns) scan(q uint64, k int, emit func(c *columns, row, distance int)) {
	for row, fp := range c.fp {
		if d := bits.OnesCount64(fp ^ q); d <= k {
			emit(c, row, d)
		}
	}
}

func (c *columns) bytes() int {
	return 8*cap(c.fp) + 8*cap(c.seen) + 4*cap(c.src) + 4*cap(c.end) + cap(c.ids)
}

// A segment is an immutable run of entries with its multi-index hashing
// tables. The 64 bits of a fingerprint are cut into len(tables) blocks; each
// table lists the segment's fingerprints grouped by the value of one block,
// with a directory giving where each block value's group starts. Two
// fingerprints within distance k differ, in at least one block i, by at most
// r_i bits whenever the radii satisfy Σ(r_i+1) = k+1 (pigeonhole: were every
// block at least r_i+1 apart, the whole would be k+1 apart). So a search
// visits, in each table, the groups of the block values within r_i of the
// query's, and checks the fingerprints found there; nothing else can match.
type segment struct {
	columns
	minSeen, maxSeen int64
	midSeen          int64   // first seen of the middle row, about the median
	tables           []table // none: the segment is scanned linearly
	// The plan for the distance the tables were laid out for, which is
	// nearly every search's, so that searches need not plan.
	layoutK      int
	layoutRadii  [maxTables]int
	layoutTables bool
}

// table is one block's view of a segment: fingerprints ordered by the
// block's value (and by row within a value).
type table struct {
	shift, width uint     // the block is bits [shift, shift+width)
	start        []uint32 // block value v's rows are at start[v]:start[v+1]
	fp           []uint64 // fingerprints in block order, checked in place
	row          []uint32 // their rows in the segment's columns
}

func (t *table) block(fp uint64) uint32 {
	return uint32(fp>>t.shift) & (1<<t.width - 1)
}

// Tables cap: each table costs 12 bytes per entry.
const maxTables = 6

// maxWidth caps a block at 24 bits: a directory of 2^24 groups is 64 MiB.
const maxWidth = 24

// Cost model of a search, in units of one fingerprint compared by a linear
// scan. A probe reads a directory slot and the start of a group at random;
// the fingerprints of a group are then read in sequence. With the caches
// cold, as they are between a poll's lookups, a probe's misses cost about
// 30 sequential comparisons: BenchmarkSearch's interleaved runs measured
// costProbe = 30 faster than 6 at k = 9 (docs/benchmarks/dedup.md). The
// constants only decide between correct strategies, so an error in them
// costs speed, never answers.
const (
	costProbe     = 30
	costCandidate = 1
	costScan      = 1
)

func newSegment(c columns, k int) *segment {
	s := &segment{columns: c, minSeen: math.MaxInt64, maxSeen: math.MinInt64}
	for _, t := range c.seen {
		s.minSeen = min(s.minSeen, t)
		s.maxSeen = max(s.maxSeen, t)
	}
	if c.len() > 0 {
		s.midSeen = c.seen[c.len()/2]
	}
	shift := uint(0)
	for _, w := range chooseLayout(c.len(), k) {
		s.tables = append(s.tables, buildTable(c.fp, shift, w))
		shift += w
	}
	s.layoutK = k
	s.layoutRadii, s.layoutTables = s.planFor(k)
	return s
}

// chooseLayout returns the block widths that make searches at distance k
// cheapest in a segment of n entries, or nil when a linear scan is cheaper.
// A block wider than about log2(n) bits would leave most directory slots
// empty, so widths are capped there.
func chooseLayout(n, k int) []uint {
	widthCap := uint(min(maxWidth, bits.Len(uint(n))+1))
	var best []uint
	bestCost := scanCost(n)
	for m := 1; m <= maxTables; m++ {
		widths := splitWidths(m)
		if widths[0] > widthCap {
			continue
		}
		if _, cost := planRadii(widths, n, k); cost < bestCost {
			best, bestCost = widths, cost
		}
	}
	return best
}

// splitWidths cuts 64 bits into m blocks as even as possible, wider first.
func splitWidths(m int) []uint {
	widths := make([]uint, m)
	for i := range widths {
		widths[i] = uint(64 / m)
		if i < 64%m {
			widths[i]++
		}
	}
	return widths
}

// planRadii spreads the k+1 units of the pigeonhole bound over the blocks,
// each unit where it adds the least cost (greedy is optimal here because a
// block's cost grows faster with each unit), and returns each block's radius
// (-1: the block is not searched) and the plan's estimated cost.
func planRadii(widths []uint, n, k int) (radii [maxTables]int, cost float64) {
	for i := range radii {
		radii[i] = -1
	}
	for unit := 0; unit <= k; unit++ {
		best, bestDelta := 0, math.Inf(1)
		for i, w := range widths {
			if delta := probeCost(w, radii[i]+1, n) - probeCost(w, radii[i], n); delta < bestDelta {
				best, bestDelta = i, delta
			}
		}
		radii[best]++
		cost += bestDelta
	}
	return radii, cost
}

// probeCost estimates visiting every block value within r of the query's in
// a table of width w over n random fingerprints.
func probeCost(w uint, r, n int) float64 {
	if r < 0 {
		return 0
	}
	probes := withinRadius[w][min(r, int(w))]
	return probes * (costProbe + costCandidate*float64(n)/float64(uint64(1)<<w))
}

func scanCost(n int) float64 { return costScan * float64(n) }

// withinRadius[w][r] is how many w-bit values lie within distance r of a
// given one: Σ_{i≤r} C(w, i).
var withinRadius = func() (t [maxWidth + 1][maxWidth + 1]float64) {
	for w := range t {
		binom := 1.0
		sum := 0.0
		for r := 0; r <= w; r++ {
			sum += binom
			t[w][r] = sum
			binom = binom * float64(w-r) / float64(r+1)
		}
	}
	return t
}()

// buildTable orders fp by the block [shift, shift+width) with a counting
// sort, which keeps rows in order within a block value.
func buildTable(fp []uint64, shift, width uint) table {
	t := table{shift: shift, width: width, start: make([]uint32, 1<<width+1)}
	for _, f := range fp {
		t.start[t.block(f)+1]++
	}
	for v := 1; v < len(t.start); v++ {
		t.start[v] += t.start[v-1]
	}
	t.fp = make([]uint64, len(fp))
	t.row = make([]uint32, len(fp))
	next := t.start[:len(t.start)-1] // used as cursors, then restored
	for row, f := range fp {
		b := t.block(f)
		t.fp[next[b]] = f
		t.row[next[b]] = uint32(row)
		next[b]++
	}
	// Each cursor now holds its group's end, the next group's start.
	copy(t.start[1:], next)
	t.start[0] = 0
	return t
}

// search reports every row within distance k of q, each once.
func (s *segment) search(q uint64, k int, emit func(c *columns, row, distance int)) {
	radii, ok := s.plan(k)
	if !ok {
		s.scan(q, k, emit)
		return
	}
	for i := range s.tables {
		t := &s.tables[i]
		r := min(radii[i], int(t.width))
		if r < 0 {
			continue
		}
		qb := t.block(q)
		s.probe(i, qb, q, k, &radii, emit)
		for bitsSet := 1; bitsSet <= r; bitsSet++ {
			for mask := uint64(1)<<bitsSet - 1; mask < 1<<t.width; mask = nextCombination(mask) {
				s.probe(i, qb^uint32(mask), q, k, &radii, emit)
			}
		}
	}
}

// plan returns the radii for a search at distance k, or false when a linear
// scan of this segment is cheaper.
func (s *segment) plan(k int) ([maxTables]int, bool) {
	if k == s.layoutK {
		return s.layoutRadii, s.layoutTables
	}
	return s.planFor(k)
}

func (s *segment) planFor(k int) ([maxTables]int, bool) {
	if len(s.tables) == 0 || k >= 64 {
		return [maxTables]int{}, false
	}
	widths := make([]uint, len(s.tables))
	for i := range s.tables {
		widths[i] = s.tables[i].width
	}
	radii, cost := planRadii(widths, s.len(), k)
	return radii, cost < scanCost(s.len())
}

// probe checks the fingerprints whose block i equals b. A fingerprint is
// reported by the first table in which it lies within the radius, so that
// no visited set is needed.
func (s *segment) probe(i int, b uint32, q uint64, k int, radii *[maxTables]int, emit func(*columns, int, int)) {
	t := &s.tables[i]
	from, to := t.start[b], t.start[b+1]
	for j, fp := range t.fp[from:to] {
		x := fp ^ q
		if bits.OnesCount64(x) > k || s.foundBefore(x, i, radii) {
			continue
		}
		emit(&s.columns, int(t.row[int(from)+j]), bits.OnesCount64(x))
	}
}

// foundBefore reports whether a fingerprint differing from the query by x
// lies within the radius of a table searched before table i.
func (s *segment) foundBefore(x uint64, i int, radii *[maxTables]int) bool {
	for j := 0; j < i; j++ {
		if radii[j] >= 0 && bits.OnesCount32(s.tables[j].block(x)) <= radii[j] {
			return true
		}
	}
	return false
}

// nextCombination returns the next larger integer with as many bits set as
// x (Gosper's hack), to enumerate the masks of a given weight.
func nextCombination(x uint64) uint64 {
	lowest := x & -x
	ripple := x + lowest
	return ripple | (((ripple ^ x) >> 2) >> bits.TrailingZeros64(lowest))
}

// mostlyExpired reports whether the segment is worth rebuilding without
// its rows first seen before cutoff: some are, and, rows being added about
// in time order, about half of them are.
func (s *segment) mostlyExpired(cutoff int64) bool {
	return cutoff > s.minSeen && cutoff > s.midSeen
}

func (s *segment) bytes() int {
	n := s.columns.bytes()
	for _, t := range s.tables {
		n += 4*cap(t.start) + 8*cap(t.fp) + 4*cap(t.row)
	}
	return n
}
