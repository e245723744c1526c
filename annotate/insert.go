package annotate

import (
	"bytes"
	"cmp"
	"slices"
)

// span is a stretch of the text that one annotation encloses.
type span struct {
	start, end int
	open       string // the comment inserted at start
	close      string // the comment inserted at end; "" for none
	seq        int    // creation order, the last tie-breaker
}

// The inserted comments. Each is a whole comment, so that removing the
// inserted comments gives the page back byte for byte.
func openComment(name, index string, attrs string) string {
	// One concatenation: one allocation, where a builder grew three times.
	if index == "" {
		return "<!-- <" + name + attrs + "> -->"
	}
	return "<!-- <" + name + ` index="` + index + `"` + attrs + "> -->"
}

func closeComment(name string) string { return "<!-- </" + name + "> -->" }

const dateAttrs = ` uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="date"`

// insertion is one comment placed at an offset of the text.
//
// Its offsets and sequence are int32, as the tree's are: 32 bytes rather
// than 48 for each of the hundreds of thousands a dense page has.
type insertion struct {
	at, other int32 // other: the span's other end, to order insertions at one offset
	seq       int32
	closing   bool
	text      string
}

// insert writes the page with the spans' comments inserted. At one offset,
// closing comments come before opening ones; the inner span closes first
// and the outer one opens first, so spans nest as the page does.
func insert(p *page, spans []span) ([]byte, []Range) {
	ins := make([]insertion, 0, 2*len(spans))
	for _, s := range spans {
		ins = append(ins, insertion{at: int32(s.start), other: int32(s.end), seq: int32(s.seq), text: s.open})
		if s.close != "" {
			ins = append(ins, insertion{at: int32(s.end), closing: true, other: int32(s.start), seq: int32(s.seq), text: s.close})
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
			// Closing, the inner span (started later) closes first;
			// opening, the outer span (ending later) opens first.
			return cmp.Compare(b.other, a.other)
		}
		if a.closing {
			return cmp.Compare(b.seq, a.seq)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	size := len(p.raw)
	for _, in := range ins {
		size += len(in.text)
		if p.utf16 {
			size += len(in.text) // two bytes a character: comments are ASCII
		}
	}
	// Made rather than grown in a bytes.Buffer, which clears what it
	// grows by: the page is written here once.
	out := make([]byte, 0, size)
	inserted := make([]Range, 0, len(ins))
	last := 0
	for _, in := range ins {
		at := p.toRaw(int(in.at))
		out = append(out, p.raw[last:at]...)
		last = at
		start := len(out)
		if p.utf16 {
			out = append(out, p.encode(in.text)...)
		} else {
			out = append(out, in.text...) // ASCII, as every encoding but UTF-16 writes it
		}
		inserted = append(inserted, Range{Start: start, End: len(out)})
	}
	return append(out, p.raw[last:]...), inserted
}

// Range is a stretch of bytes of the annotated page.
type Range struct{ Start, End int }

// RemoveInserted returns the annotated page without the inserted
// comments: the page as it was given.
func RemoveInserted(annotated []byte, inserted []Range) []byte {
	var out bytes.Buffer
	last := 0
	for _, r := range inserted {
		out.Write(annotated[last:r.Start])
		last = r.End
	}
	out.Write(annotated[last:])
	return out.Bytes()
}
