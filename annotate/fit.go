package annotate

import (
	"fmt"

	"github.com/dynamo-feeds/dynamo"
)

// leftOutFirst are the fields left out of the annotations, in this order,
// when the annotated page would be larger than Options.MaxBytes: the
// date first, the longest annotation (128 bytes an item, with its
// index), then the description (64). An item's title and link are never
// left out: without them there is no item.
var leftOutFirst = []struct{ name, close string }{
	{"dates", closeComment("item:extension")},
	{"descriptions", closeComment("item:description")},
}

// annotatedBytes is the size of the page with the spans' comments
// inserted, as insert writes it.
func annotatedBytes(p *page, spans []span) int {
	n := len(p.raw)
	for _, s := range spans {
		k := len(s.open) + len(s.close)
		if p.utf16 {
			k *= 2 // two bytes a character: comments are ASCII
		}
		n += k
	}
	return n
}

// fit leaves out of spans, in leftOutFirst's order, each optional field of
// every item until the annotated page has at most limit bytes, and says
// what was left out and why. It fails, as dynamo.CheckAnnotated, when the
// titles and links alone do not fit.
func fit(p *page, spans []span, limit int) ([]span, []string, error) {
	size := annotatedBytes(p, spans)
	var notes []string
	for _, f := range leftOutFirst {
		if size <= limit {
			break
		}
		kept, left, saved := spans[:0], 0, 0
		for _, s := range spans {
			if s.close == f.close {
				left++
				saved += annotatedBytes(p, []span{s}) - len(p.raw)
				continue
			}
			kept = append(kept, s)
		}
		if left == 0 {
			continue
		}
		notes = append(notes, fmt.Sprintf("the items' %s were left out (%d annotations, %d bytes): with them the annotated page would have %d bytes, more than the %d (%d MiB) that Dynamo reads of a page; every item keeps its title and link",
			f.name, left, saved, size, limit, limit>>20))
		spans, size = kept, size-saved
	}
	if err := dynamo.CheckAnnotated(len(p.raw), size, limit); err != nil {
		return nil, nil, err
	}
	return spans, notes, nil
}
