package annotate

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestSpanComments checks the comments of a field's span (fieldSpan),
// written from its annotation and index at insertion or, with the
// page's own index, kept as text, against openComment and closeComment
// (made compact by compactComment), and the lengths fit counts against
// those written.
func TestSpanComments(t *testing.T) {
	fields := []*annotation{titleAnnotation, linkAnnotation, descriptionAnnotation, dateAnnotation}
	type idx struct {
		index string
		num   int32
	}
	var indexes []idx
	for _, n := range []int32{1, 9, 10, 99, 100, 12345, 1 << 30} {
		indexes = append(indexes, idx{num: n})
	}
	for _, s := range []string{"7", "0012", "x7", `1"2`, "> -->", ` index="3`, ""} {
		indexes = append(indexes, idx{index: s})
	}
	for _, f := range fields {
		for _, ix := range indexes {
			s := fieldSpan(0, 0, f, ix.index, ix.num)
			index := ix.index
			if index == "" && ix.num > 0 {
				index = strconv.Itoa(int(ix.num))
			}
			open, close := openComment(f.name, index, f.attrs), closeComment(f.name)
			for _, compact := range []bool{false, true} {
				wantOpen, wantClose := open, close
				if compact {
					wantOpen, wantClose = compactComment(open), compactComment(close)
				}
				gotOpen, gotClose := string(s.appendComment(nil, false, compact)), string(s.appendComment(nil, true, compact))
				if gotOpen != wantOpen || gotClose != wantClose {
					t.Errorf("%s %+v compact %v: %q %q, want %q %q", f.name, ix, compact, gotOpen, gotClose, wantOpen, wantClose)
				}
				if n := s.commentsLen(compact); n != len(wantOpen)+len(wantClose) {
					t.Errorf("%s %+v compact %v: counted %d bytes, written %d", f.name, ix, compact, n, len(wantOpen)+len(wantClose))
				}
			}
		}
	}
	// A span with its comments as text (the channel's).
	s := span{open: openComment("channel:title", "", ""), close: closeComment("channel:title")}
	if got, want := string(s.appendComment(nil, false, true)), compactComment(s.open); got != want {
		t.Errorf("channel title: %q, want %q", got, want)
	}
	if n := s.commentsLen(true); n != len(compactComment(s.open))+len(compactComment(s.close)) {
		t.Errorf("channel title: counted %d bytes compact", n)
	}
}

// TestInsertOrder checks insert, which merges the openings and closings
// each sorted apart, against one sort of them all by the rule insert
// states (as it was first written), on random spans: nested, crossing,
// empty, alike, some without a closing comment, in and out of order.
func TestInsertOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 25))
	for round := range 300 {
		text := strings.Repeat("abcdefghij", 1+r.IntN(20))
		p := &page{raw: []byte(text), text: text}
		var spans []span
		for i := range r.IntN(60) {
			s := span{start: r.IntN(len(text) + 1), field: titleAnnotation, num: int32(i + 1)}
			s.end = s.start + r.IntN(len(text)+1-s.start)
			switch r.IntN(4) {
			case 0:
				s.field, s.open = nil, "<!-- <x/> -->" // no closing comment
			case 1:
				s.end = s.start
			}
			if i > 0 && r.IntN(5) == 0 {
				s.start, s.end = spans[i-1].start, spans[i-1].end // alike
			}
			spans = append(spans, s)
		}
		if round%2 == 0 {
			slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
		}
		for i := range spans {
			spans[i].seq = int32(i)
		}
		got, gotRanges := insert(p, spans, round%3 == 0)
		want, wantRanges := insertSorted(p, spans, round%3 == 0)
		if string(got) != string(want) || !slices.Equal(gotRanges, wantRanges) {
			t.Fatalf("round %d: insert gives\n%s\nwant\n%s", round, got, want)
		}
	}
}

// insertSorted is insert as first written: every comment in one list,
// sorted stably.
func insertSorted(p *page, spans []span, compact bool) ([]byte, []Range) {
	type insertion struct {
		at, other, seq int
		closing        bool
		s              *span
	}
	var ins []insertion
	for i := range spans {
		s := &spans[i]
		ins = append(ins, insertion{at: s.start, other: s.end, seq: int(s.seq), s: s})
		if s.closes() {
			ins = append(ins, insertion{at: s.end, other: s.start, seq: int(s.seq), closing: true, s: s})
		}
	}
	slices.SortStableFunc(ins, func(a, b insertion) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		if a.closing != b.closing {
			if a.closing {
				return -1
			}
			return 1
		}
		if a.other != b.other {
			return cmp.Compare(b.other, a.other)
		}
		if a.closing {
			return cmp.Compare(b.seq, a.seq)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	var out []byte
	var ranges []Range
	last := 0
	for _, in := range ins {
		out = append(out, p.raw[last:in.at]...)
		last = in.at
		start := len(out)
		out = in.s.appendComment(out, in.closing, compact)
		ranges = append(ranges, Range{start, len(out)})
	}
	return append(out, p.raw[last:]...), ranges
}

// TestSortNearly checks sortNearly's insertion sort and, past its
// budget, its merge sort against slices.Sort.
func TestSortNearly(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{0, 1, 2, 10, 1000, 5000} {
		for _, shuffled := range []bool{false, true} {
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(i)
			}
			if shuffled {
				r.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			} else if n > 1 {
				idx[0], idx[n-1] = idx[n-1], idx[0]
			}
			want := slices.Clone(idx)
			slices.Sort(want)
			sortNearly(idx, func(a, b int32) bool { return a < b })
			if !slices.Equal(idx, want) {
				t.Fatalf("n %d shuffled %v: not sorted", n, shuffled)
			}
		}
	}
}

// TestSpanSize keeps a span at the 64 bytes its comment says: a dense
// page has hundreds of thousands.
func TestSpanSize(t *testing.T) {
	if n := unsafe.Sizeof(span{}); n != 64 {
		t.Errorf("a span is %d bytes, want 64", n)
	}
}
