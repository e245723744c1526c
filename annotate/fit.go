package annotate

import (
	"bytes"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
)

// leftOutFirst are the fields left out of the annotations, in this order,
// when the annotated page would be larger than Options.MaxBytes even with
// its comments written compactly: the date first, the longest annotation
// (121 bytes an item, compact, with its index), then the description
// (58). An item's title and link are never left out: without them there
// is no item.
var leftOutFirst = []struct{ name, close string }{
	{"dates", compactComment(closeComment("item:extension"))},
	{"descriptions", compactComment(closeComment("item:description"))},
}

// annotatedBytes is the size of the page with the spans' comments
// inserted, as insert writes them (compactly when compact).
func annotatedBytes(p *page, spans []span, compact bool) int {
	n := len(p.raw)
	for i := range spans {
		n += commentBytes(p, &spans[i], compact)
	}
	return n
}

// commentBytes is the bytes the span's comments add to the page.
func commentBytes(p *page, s *span, compact bool) int {
	k := s.commentsLen(compact)
	if p.utf16 {
		k *= 2 // two bytes a character: comments are ASCII
	}
	return k
}

// fit makes the annotated page fit in limit bytes. It first has every
// comment written compactly (compactComment: the same annotations, 12
// bytes an item fewer for a title and a link), which loses nothing, and
// says so in compact; then it leaves out of spans, in leftOutFirst's
// order, each optional field of every item until the page fits, and says
// what it did and why. It fails, as dynamo.CheckAnnotated, when the
// titles and links alone do not fit.
func fit(p *page, spans []span, limit int) (_ []span, compact bool, _ []string, _ error) {
	size := annotatedBytes(p, spans, false)
	if size <= limit {
		return spans, false, nil, nil
	}
	full := size
	size = annotatedBytes(p, spans, true)
	notes := []string{fmt.Sprintf("the annotations are written compactly, without spaces or quoted indexes (%d bytes fewer): in full the annotated page would have %d bytes, more than the %d (%d MiB) that Dynamo reads of a page",
		full-size, full, limit, limit>>20)}
	for _, f := range leftOutFirst {
		if size <= limit {
			break
		}
		kept, left, saved := spans[:0], 0, 0
		for i := range spans {
			s := &spans[i]
			if compactCloseOf(s) == f.close {
				left++
				saved += commentBytes(p, s, true)
				continue
			}
			kept = append(kept, *s)
		}
		if left == 0 {
			continue
		}
		notes = append(notes, fmt.Sprintf("the items' %s were left out (%d annotations, %d bytes): with them the annotated page would have %d bytes, more than the %d (%d MiB) that Dynamo reads of a page; every item keeps its title and link",
			f.name, left, saved, size, limit, limit>>20))
		spans, size = kept, size-saved
	}
	if err := dynamo.CheckAnnotated(len(p.raw), size, limit); err != nil {
		return nil, false, nil, err
	}
	return spans, true, notes, nil
}

// compactCloseOf returns the span's closing comment written compactly.
func compactCloseOf(s *span) string {
	if s.field != nil {
		return s.field.compactClose
	}
	return compactComment(s.close)
}

// compactComment writes an inserted comment as the wrapper reads it with
// the fewest bytes: `<!--<item:title index=3>-->` for
// `<!-- <item:title index="3"> -->`. An index of digits is left unquoted;
// other attribute values keep their quotes.
//
// It edits a copy on the stack and allocates once, for the result: a
// page that needs compact comments has hundreds of thousands, and three
// copies of each were 5 % of its suggestion. FuzzCompactComment checks
// it against the same edits made by strings.Replace.
func compactComment(c string) string {
	var buf [192]byte
	return string(compactInPlace(append(buf[:0], c...)))
}

// compactInPlace is compactComment of b, edited in place: the result is
// b, shortened.
func compactInPlace(b []byte) []byte {
	b = cutFirst(b, "<!-- <", 4)
	b = cutFirst(b, "> -->", 1)
	const attr = ` index="`
	i := bytes.Index(b, []byte(attr))
	if i < 0 {
		return b
	}
	q := i + len(attr) - 1 // the opening quote
	j := bytes.IndexByte(b[q+1:], '"')
	if j <= 0 || len(bytes.Trim(b[q+1:q+1+j], "0123456789")) != 0 {
		return b
	}
	copy(b[q:], b[q+1:q+1+j]) // the digits over the opening quote
	copy(b[q+j:], b[q+j+2:])  // the rest over the closing one
	return b[:len(b)-2]
}

// cutFirst removes from b the byte at offset at of the first occurrence of
// old, if any: strings.Replace(b, old, old without that byte, 1).
func cutFirst(b []byte, old string, at int) []byte {
	k := bytes.Index(b, []byte(old))
	if k < 0 {
		return b
	}
	copy(b[k+at:], b[k+at+1:])
	return b[:len(b)-1]
}
