package annotate

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
)

// span is a stretch of the text that one annotation encloses.
//
// The comments of an item's fields are not kept as text: a dense page
// has hundreds of thousands, each a string made here and, when the page
// is written compactly, made again. Such a span names its annotation
// (field) and index instead, and insert writes its comments straight
// into the annotated page. Other spans (the channel's, a value the
// selectors read) keep their comments as text in open and close.
type span struct {
	start, end int
	open       string // the comment inserted at start, when field is nil
	close      string // the comment inserted at end, when field is nil; "" for none
	field      *annotation
	// index is the field's index attribute as written: the page's own
	// when not "", else num.
	index string
	num   int32
	seq   int32 // creation order, the last tie-breaker
}

// annotation is an annotation element of an item's field, with its
// extra attributes and the comment closing it, in full and compact.
type annotation struct {
	name, attrs         string
	close, compactClose string
}

func newAnnotation(name, attrs string) *annotation {
	return &annotation{name: name, attrs: attrs, close: closeComment(name), compactClose: compactComment(closeComment(name))}
}

// The annotations of the fields the suggester annotates. Their names and
// attributes hold neither "> -->" nor ` index="`, so that their compact
// comments are the full ones without the two spaces, and without the
// index's quotes when it is digits (commentLen).
var (
	titleAnnotation       = newAnnotation("item:title", "")
	linkAnnotation        = newAnnotation("item:link", "")
	descriptionAnnotation = newAnnotation("item:description", "")
	dateAnnotation        = newAnnotation("item:extension", dateAttrs)
)

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

// appendOpen appends the comment opening s, as openComment writes it.
func (s *span) appendOpen(dst []byte) []byte {
	if s.field == nil {
		return append(dst, s.open...)
	}
	dst = append(append(dst, "<!-- <"...), s.field.name...)
	switch {
	case s.index != "":
		dst = append(append(append(dst, ` index="`...), s.index...), '"')
	case s.num > 0:
		dst = strconv.AppendInt(append(dst, ` index="`...), int64(s.num), 10)
		dst = append(dst, '"')
	}
	return append(append(dst, s.field.attrs...), "> -->"...)
}

// closes reports whether s has a closing comment.
func (s *span) closes() bool { return s.field != nil || s.close != "" }

// appendComment appends the span's opening or closing comment, written
// compactly when compact (compactComment).
func (s *span) appendComment(dst []byte, closing, compact bool) []byte {
	start := len(dst)
	switch {
	case closing && s.field != nil && compact:
		return append(dst, s.field.compactClose...)
	case closing && s.field != nil:
		return append(dst, s.field.close...)
	case closing:
		dst = append(dst, s.close...)
	default:
		dst = s.appendOpen(dst)
	}
	if compact {
		dst = dst[:start+len(compactInPlace(dst[start:]))]
	}
	return dst
}

// commentsLen returns the bytes of the span's comments in the text (a
// page in UTF-16 has twice as many), written compactly when compact. A
// field's comments with the suggester's index are counted without being
// written; the others are written aside.
func (s *span) commentsLen(compact bool) int {
	if s.field == nil || s.index != "" {
		var buf [192]byte
		n := len(s.appendComment(buf[:0], false, compact))
		if s.closes() {
			n += len(s.appendComment(buf[:0], true, compact))
		}
		return n
	}
	n := len("<!-- <") + len(s.field.name) + len(s.field.attrs) + len("> -->")
	if s.num > 0 {
		n += len(` index=""`) + digitsIn(int(s.num))
	}
	if !compact {
		return n + len(s.field.close)
	}
	n -= 2 // the spaces
	if s.num > 0 {
		n -= 2 // the quotes around its digits
	}
	return n + len(s.field.compactClose)
}

// digitsIn returns how many decimal digits n (above 0) has.
func digitsIn(n int) int {
	k := 1
	for ; n >= 10; n /= 10 {
		k++
	}
	return k
}

// insertion is one comment placed at an offset of the text: the opening
// or the closing comment of spans[span].
//
// Its offsets and sequence are int32, as the tree's are, and it names its
// span rather than holding its text: 20 bytes for each of the hundreds
// of thousands a dense page has.
type insertion struct {
	at, other int32 // other: the span's other end, to order insertions at one offset
	seq       int32
	span      int32
	closing   bool
}

// insert writes the page with the spans' comments inserted, compactly
// when compact (compactComment). At one offset, closing comments come
// before opening ones; the inner span closes first and the outer one
// opens first, so spans nest as the page does.
func insert(p *page, spans []span, compact bool) ([]byte, []Range) {
	ins := make([]insertion, 0, 2*len(spans))
	size := len(p.raw)
	for i := range spans {
		s := &spans[i]
		ins = append(ins, insertion{at: int32(s.start), other: int32(s.end), seq: s.seq, span: int32(i)})
		if s.closes() {
			ins = append(ins, insertion{at: int32(s.end), closing: true, other: int32(s.start), seq: s.seq, span: int32(i)})
		}
		k := s.commentsLen(compact)
		if p.utf16 {
			k *= 2 // two bytes a character: comments are ASCII
		}
		size += k
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
	// Made rather than grown in a bytes.Buffer, which clears what it
	// grows by: the page is written here once.
	out := make([]byte, 0, size)
	inserted := make([]Range, 0, len(ins))
	last := 0
	var buf [192]byte
	for _, in := range ins {
		at := p.toRaw(int(in.at))
		out = append(out, p.raw[last:at]...)
		last = at
		start := len(out)
		s := &spans[in.span]
		if p.utf16 {
			c := s.appendComment(buf[:0], in.closing, compact)
			out = append(out, p.encode(string(c))...)
		} else {
			out = s.appendComment(out, in.closing, compact) // ASCII, as every encoding but UTF-16 writes it
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
