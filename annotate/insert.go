package annotate

import (
	"bytes"
	"slices"
	"strconv"
)

// span is a stretch of the text that one annotation encloses.
//
// The comments of an item's fields are not kept as text: a dense page
// has hundreds of thousands, each a string made here and, when the page
// is written compactly, made again. Such a span names its annotation
// (field) and the index the suggester gave its item (num) instead, and
// insert writes its comments straight into the annotated page. Other
// spans (the channel's, a field of an item the page gave an index, a
// value the selectors read) keep their comments as text in open and
// close. A span is 64 bytes.
type span struct {
	start, end int
	open       string // the comment inserted at start, when field is nil
	close      string // the comment inserted at end, when field is nil; "" for none
	field      *annotation
	num        int32 // the index of the item, when field is not nil; none when 0
	seq        int32 // creation order, the last tie-breaker
}

// fieldSpan returns the span annotating an item's field from start to
// end, with the item's index: the page's own when not "", else num.
func fieldSpan(start, end int, field *annotation, index string, num int32) span {
	if index != "" {
		return span{start: start, end: end, open: openComment(field.name, index, field.attrs), close: field.close}
	}
	return span{start: start, end: end, field: field, num: num}
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
// quotes around the index's digits (appendComment, commentsLen).
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

// closes reports whether s has a closing comment.
func (s *span) closes() bool { return s.field != nil || s.close != "" }

// appendComment appends the span's opening or closing comment, written
// compactly when compact (compactComment).
func (s *span) appendComment(dst []byte, closing, compact bool) []byte {
	f := s.field
	if f == nil {
		start := len(dst)
		if closing {
			dst = append(dst, s.close...)
		} else {
			dst = append(dst, s.open...)
		}
		if compact {
			dst = dst[:start+len(compactInPlace(dst[start:]))]
		}
		return dst
	}
	switch {
	case closing && compact:
		return append(dst, f.compactClose...)
	case closing:
		return append(dst, f.close...)
	case compact:
		dst = append(append(dst, "<!--<"...), f.name...)
		if s.num > 0 {
			dst = strconv.AppendInt(append(dst, ` index=`...), int64(s.num), 10)
		}
		return append(append(dst, f.attrs...), ">-->"...)
	}
	// As openComment writes it.
	dst = append(append(dst, "<!-- <"...), f.name...)
	if s.num > 0 {
		dst = strconv.AppendInt(append(dst, ` index="`...), int64(s.num), 10)
		dst = append(dst, '"')
	}
	return append(append(dst, f.attrs...), "> -->"...)
}

// commentsLen returns the bytes of the span's comments in the text (a
// page in UTF-16 has twice as many), written compactly when compact. A
// field's comments are counted without being written; the others are
// written aside.
func (s *span) commentsLen(compact bool) int {
	f := s.field
	if f == nil {
		var buf [192]byte
		n := len(s.appendComment(buf[:0], false, compact))
		if s.closes() {
			n += len(s.appendComment(buf[:0], true, compact))
		}
		return n
	}
	n := len("<!-- <") + len(f.name) + len(f.attrs) + len("> -->")
	if s.num > 0 {
		n += len(` index=""`) + digitsIn(int(s.num))
	}
	if !compact {
		return n + len(f.close)
	}
	n -= 2 // the spaces
	if s.num > 0 {
		n -= 2 // the quotes around its digits
	}
	return n + len(f.compactClose)
}

// digitsIn returns how many decimal digits n (above 0) has.
func digitsIn(n int) int {
	k := 1
	for ; n >= 10; n /= 10 {
		k++
	}
	return k
}

// insert writes the page with the spans' comments inserted, compactly
// when compact (compactComment). At one offset, closing comments come
// before opening ones; the inner span closes first and the outer one
// opens first, so spans nest as the page does (then the span made first
// opens first and closes last).
//
// The openings and the closings are each put in that order apart, as
// indexes of spans, and merged as the page is written: a dense page has
// hundreds of thousands, whose spans come nearly in order already, and
// one list of both, sorted, was 40 bytes a span and a sort that moved
// every one.
func insert(p *page, spans []span, compact bool) ([]byte, []Range) {
	opens := make([]int32, len(spans))
	closes := make([]int32, 0, len(spans))
	size := len(p.raw)
	for i := range spans {
		opens[i] = int32(i)
		if spans[i].closes() {
			closes = append(closes, int32(i))
		}
		size += commentBytes(p, &spans[i], compact)
	}
	sortNearly(opens, func(a, b int32) bool {
		x, y := &spans[a], &spans[b]
		switch {
		case x.start != y.start:
			return x.start < y.start
		case x.end != y.end:
			return x.end > y.end
		case x.seq != y.seq:
			return x.seq < y.seq
		}
		return a < b
	})
	sortNearly(closes, func(a, b int32) bool {
		x, y := &spans[a], &spans[b]
		switch {
		case x.end != y.end:
			return x.end < y.end
		case x.start != y.start:
			return x.start > y.start
		case x.seq != y.seq:
			return x.seq > y.seq
		}
		return a < b
	})
	// Made rather than grown in a bytes.Buffer, which clears what it
	// grows by: the page is written here once.
	out := make([]byte, 0, size)
	inserted := make([]Range, 0, len(opens)+len(closes))
	last := 0
	var buf [192]byte
	for i, j := 0, 0; i < len(opens) || j < len(closes); {
		closing := j < len(closes) && (i == len(opens) || spans[closes[j]].end <= spans[opens[i]].start)
		var s *span
		var at int
		if closing {
			s, at = &spans[closes[j]], spans[closes[j]].end
			j++
		} else {
			s, at = &spans[opens[i]], spans[opens[i]].start
			i++
		}
		at = p.toRaw(at)
		out = append(out, p.raw[last:at]...)
		last = at
		start := len(out)
		if p.utf16 {
			c := s.appendComment(buf[:0], closing, compact)
			out = append(out, p.encode(string(c))...)
		} else {
			out = s.appendComment(out, closing, compact) // ASCII, as every encoding but UTF-16 writes it
		}
		inserted = append(inserted, Range{Start: start, End: len(out)})
	}
	return append(out, p.raw[last:]...), inserted
}

// sortNearly sorts idx by less, a total order. It moves each index back
// past those it goes before (an insertion sort, which costs a pass when
// few are out of place, as insert's spans), and sorts what is left with
// a merge sort once that has moved them more than a few places each.
func sortNearly(idx []int32, less func(a, b int32) bool) {
	budget := 8*len(idx) + 64
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
			if budget--; budget == 0 {
				slices.SortStableFunc(idx, func(a, b int32) int {
					switch {
					case less(a, b):
						return -1
					case less(b, a):
						return 1
					}
					return 0
				})
				return
			}
		}
	}
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
