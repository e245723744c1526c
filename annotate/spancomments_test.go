package annotate

import (
	"strconv"
	"testing"
)

// TestSpanComments checks the comments of a field's span, written from
// its annotation and index at insertion, against openComment and
// closeComment (made compact by compactComment), and the lengths fit
// counts without writing them against those written.
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
			s := span{field: f, index: ix.index, num: ix.num}
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
