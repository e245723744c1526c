package dedup

import (
	"math"
	"math/bits"
	"slices"
)

// entryColumns hold window entries column by column, without pointers.
type entryColumns struct {
	seen    []int64  // first seen, Unix nanoseconds
	src     []uint32 // index into Window.sources
	story   []uint32
	idEnd   []uint32 // ids[idEnd[i-1]:idEnd[i]] is row i's item id
	ids     []byte
	termEnd []uint32 // terms[termEnd[i-1]:termEnd[i]] are row i's profile terms
	terms   []term
	flags   []profileFlags
	order   []uint32
	// The pairings of the few rows that list fixtures or results:
	// pairRows are those rows, ascending, and pairings[pairEnd[i-1]:pairEnd[i]]
	// are pairRows[i]'s, so that the many rows without pairings cost nothing.
	pairRows []uint32
	pairEnd  []uint32
	pairings []uint32
}

func (c *entryColumns) len() int { return len(c.seen) }

func (c *entryColumns) add(p Profile, seen int64, src, story uint32, id string) {
	c.seen = append(c.seen, seen)
	c.src = append(c.src, src)
	c.story = append(c.story, story)
	c.ids = append(c.ids, id...)
	c.idEnd = append(c.idEnd, uint32(len(c.ids)))
	c.terms = append(c.terms, p.terms...)
	c.termEnd = append(c.termEnd, uint32(len(c.terms)))
	c.flags = append(c.flags, p.flags)
	c.order = append(c.order, p.order)
	if len(p.pairings) > 0 {
		c.pairRows = append(c.pairRows, uint32(c.len()-1))
		c.pairings = append(c.pairings, p.pairings...)
		c.pairEnd = append(c.pairEnd, uint32(len(c.pairings)))
	}
}

func (c *entryColumns) copyRow(from *entryColumns, row uint32) {
	c.add(from.profile(row), from.seen[row], from.src[row], from.story[row], "")
	c.ids = append(c.ids, from.id(row)...)
	c.idEnd[len(c.idEnd)-1] = uint32(len(c.ids))
}

// id returns row's item id, valid while c is not appended to.
func (c *entryColumns) id(row uint32) []byte {
	start := uint32(0)
	if row > 0 {
		start = c.idEnd[row-1]
	}
	return c.ids[start:c.idEnd[row]]
}

// profile returns row's profile, sharing c's memory.
func (c *entryColumns) profile(row uint32) Profile {
	start := uint32(0)
	if row > 0 {
		start = c.termEnd[row-1]
	}
	p := Profile{terms: c.terms[start:c.termEnd[row]:c.termEnd[row]], flags: c.flags[row], order: c.order[row]}
	if i, ok := slices.BinarySearch(c.pairRows, row); ok {
		from := uint32(0)
		if i > 0 {
			from = c.pairEnd[i-1]
		}
		p.pairings = c.pairings[from:c.pairEnd[i]:c.pairEnd[i]]
	}
	return p
}

func (c *entryColumns) bytes() int {
	return 8*cap(c.seen) + 4*cap(c.src) + 4*cap(c.story) + 4*cap(c.idEnd) + cap(c.ids) +
		4*cap(c.termEnd) + 4*cap(c.terms) + cap(c.flags) + 4*cap(c.order) +
		4*cap(c.pairRows) + 4*cap(c.pairEnd) + 4*cap(c.pairings)
}

// headSegment is the window's newest entries, with their keys in a map.
type headSegment struct {
	entryColumns
	rowsOf   map[uint32][]uint32 // key → rows
	pairs    []uint64            // key<<32 | row, in order of adding
	keyCount int
}

func (h *headSegment) add(e Entry, seen int64, src uint32) {
	row := uint32(h.len())
	h.entryColumns.add(e.Profile, seen, src, e.Story, e.Key.ItemID)
	if h.rowsOf == nil {
		h.rowsOf = make(map[uint32][]uint32)
	}
	add := func(k uint32) {
		h.rowsOf[k] = append(h.rowsOf[k], row)
		h.pairs = append(h.pairs, uint64(k)<<32|uint64(row))
	}
	for _, k := range e.Keys {
		add(k)
	}
	add(itemKey(e.Key))
	h.keyCount += len(e.Keys) + 1
}

// lookup appends to rows the rows sharing a key with keys, each once.
func (h *headSegment) lookup(keys []uint32, rows []uint32) []uint32 {
	start := len(rows)
	for _, k := range keys {
		rows = append(rows, h.rowsOf[k]...)
	}
	return uniqueRows(rows, start)
}

// seal returns the head's live entries as a segment.
func (h *headSegment) seal(cutoff int64, forgotten []bool) *keySegment {
	var c entryColumns
	remap := make([]uint32, h.len())
	for row := range h.seen {
		if h.seen[row] >= cutoff && !forgotten[h.src[row]] {
			remap[row] = uint32(c.len()) + 1
			c.copyRow(&h.entryColumns, uint32(row))
		}
	}
	pairs := make([]uint64, 0, len(h.pairs))
	for _, p := range h.pairs {
		if r := remap[uint32(p)]; r != 0 {
			pairs = append(pairs, p&^0xffffffff|uint64(r-1))
		}
	}
	slices.Sort(pairs)
	return newKeySegment(c, pairs)
}

func (h *headSegment) bytes() int {
	// A map entry costs about its key, a slice header and the rows.
	return h.entryColumns.bytes() + 8*cap(h.pairs) + len(h.rowsOf)*(4+24) + 4*h.keyCount
}

// keySegment is an immutable run of entries with its keys sorted: the keys
// whose top bits are v are keys[start[v]:start[v+1]], their rows beside.
type keySegment struct {
	entryColumns
	minSeen, maxSeen int64
	midSeen          int64 // first seen of the middle row, about the median
	shift            uint  // a key's directory slot is key >> shift
	start            []uint32
	keys             []uint32
	rows             []uint32
}

// newKeySegment builds a segment from entries and their sorted
// key<<32 | row pairs.
func newKeySegment(c entryColumns, pairs []uint64) *keySegment {
	s := &keySegment{entryColumns: c, minSeen: math.MaxInt64, maxSeen: math.MinInt64}
	for _, t := range c.seen {
		s.minSeen = min(s.minSeen, t)
		s.maxSeen = max(s.maxSeen, t)
	}
	if c.len() > 0 {
		s.midSeen = c.seen[c.len()/2]
	}
	// About one key per directory slot: a lookup reads a slot and the
	// start of its run.
	width := uint(min(24, max(1, bits.Len(uint(len(pairs))))))
	s.shift = 32 - width
	s.start = make([]uint32, 1<<width+1)
	s.keys = make([]uint32, len(pairs))
	s.rows = make([]uint32, len(pairs))
	for i, p := range pairs {
		k := uint32(p >> 32)
		s.keys[i], s.rows[i] = k, uint32(p)
		s.start[k>>s.shift+1]++
	}
	for v := 1; v < len(s.start); v++ {
		s.start[v] += s.start[v-1]
	}
	return s
}

// lookup appends to rows the rows sharing a key with keys, each once.
func (s *keySegment) lookup(keys []uint32, rows []uint32) []uint32 {
	start := len(rows)
	for _, k := range keys {
		v := k >> s.shift
		run := s.keys[s.start[v]:s.start[v+1]]
		i, _ := slices.BinarySearch(run, k)
		for j := int(s.start[v]) + i; j < int(s.start[v+1]) && s.keys[j] == k; j++ {
			rows = append(rows, s.rows[j])
		}
	}
	return uniqueRows(rows, start)
}

func (s *keySegment) bytes() int {
	return s.entryColumns.bytes() + 4*cap(s.start) + 4*cap(s.keys) + 4*cap(s.rows)
}

// uniqueRows sorts rows[start:] and drops repeats: an entry sharing
// several keys with a query is proposed once.
func uniqueRows(rows []uint32, start int) []uint32 {
	tail := rows[start:]
	if len(tail) < 2 {
		return rows
	}
	slices.Sort(tail)
	return rows[:start+len(slices.Compact(tail))]
}
