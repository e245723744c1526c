package wrapper

import "strings"

// span is a range of the text, [start, end).
type span struct{ start, end int }

// annot is one annotation: an opening tag with its closing tag, or an empty
// element, and the content between them.
type annot struct {
	name    string
	open    *tag
	comment int  // the comment of the opening tag
	closed  bool // a closing tag matched it
	empty   bool // <x …/>
	ended   bool // during the sweep: no more content comes
	spans   []span
	first   [1]span // spans' first backing: most contents are one span
	start   int     // the opening comment's start
	end     int     // the closing comment's end, or where the content stops
}

// content returns the annotation's content as one string.
func (a *annot) content(text string) string {
	if len(a.spans) == 1 {
		return text[a.spans[0].start:a.spans[0].end]
	}
	var sb strings.Builder
	for _, sp := range a.spans {
		sb.WriteString(text[sp.start:sp.end])
	}
	return sb.String()
}

func (a *annot) add(start, end int) {
	if end <= start {
		return
	}
	if n := len(a.spans); n > 0 && a.spans[n-1].end == start {
		a.spans[n-1].end = end
		return
	}
	a.spans = append(a.spans, span{start, end})
}

// pair matches closing tags with opening tags and returns the annotations
// in the order they open. A closing tag closes the open annotation of the
// same name, whatever is open inside it (annotations may cross); one with
// nothing to close is reported and ignored. An annotation cannot hold one
// of its own name (a title in a title means nothing), so an opening tag
// leaves an open annotation of its name unclosed rather than nest in it:
// a forgotten closing tag then costs one annotation, not every one up to
// some stray closing tag further down. Unclosed annotations end at the
// next annotation comment (see sweep).
func pair(tags []tag, warn *warnings) (annots []*annot, closes []*annot) {
	closes = make([]*annot, len(tags)) // for each closing tag, what it closes
	opening := 0
	for i := range tags {
		if tags[i].kind != closeTag {
			opening++
		}
	}
	all := make([]annot, opening) // one allocation for them all
	annots = make([]*annot, 0, opening)
	var open openAnnots
	for i := range tags {
		t := &tags[i]
		switch t.kind {
		case openTag, emptyTag:
			a := &all[len(annots)]
			*a = annot{name: t.name, open: t, comment: t.comment, empty: t.kind == emptyTag}
			a.spans = a.first[:0]
			annots = append(annots, a)
			if !a.empty {
				open.set(a)
			}
		case closeTag:
			a := open.take(t.name)
			if a == nil {
				warn.add(t.line, "</%s> closes nothing: no <%s> is open; ignored", t.name, t.name)
				continue
			}
			a.closed = true
			closes[i] = a
			warnClosingIndex(t, a, warn)
		}
	}
	return annots, closes
}

// openAnnots are the open annotations during pair, at most one per name:
// there are eleven names, so a list beats a map.
type openAnnots []*annot

// set makes a the open annotation of its name.
func (o *openAnnots) set(a *annot) {
	for i, b := range *o {
		if b.name == a.name {
			(*o)[i] = a
			return
		}
	}
	*o = append(*o, a)
}

// take returns the open annotation of the name, nil when none, and
// removes it.
func (o *openAnnots) take(name string) *annot {
	for i, a := range *o {
		if a.name == name {
			last := len(*o) - 1
			(*o)[i] = (*o)[last]
			*o = (*o)[:last]
			return a
		}
	}
	return nil
}

// sweep distributes the page text among the annotations. Between two
// annotation comments, the text belongs to the innermost annotation open
// there, so that a nested annotation's text is not its parent's. Inside an
// annotation comment, text belongs to an annotation only between its
// opening and its closing tag in that same comment (the whole-element
// form); other text in an annotation comment is the webmaster's remark.
// An annotation never closed takes the text up to the next annotation
// comment (or the end of the page).
func sweep(text string, sc *scanned, annots []*annot, closes []*annot, warn *warnings) {
	var stack []*annot      // open annotations, innermost last; ended ones are removed lazily
	var pending []*annot    // unclosed annotations, to end at the next annotation comment
	var openedHere []*annot // the annotations opened in the comment at hand
	top := func() *annot {
		for len(stack) > 0 && stack[len(stack)-1].ended {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1]
	}
	next := 0 // the next annotation to open, in annots
	prevEnd := 0
	for ci := range sc.comments {
		c := &sc.comments[ci]
		if a := top(); a != nil {
			a.add(prevEnd, c.start)
		}
		for _, a := range pending {
			a.ended, a.end = true, c.start
		}
		pending = pending[:0]
		textFrom := c.bodyStart
		openedHere = openedHere[:0]
		for ti := c.firstTag; ti < c.lastTag; ti++ {
			t := &sc.tags[ti]
			if a := top(); a != nil && a.comment == ci {
				a.add(textFrom, t.start)
			}
			textFrom = t.end
			switch t.kind {
			case openTag, emptyTag:
				a := annots[next]
				next++
				a.start = c.start
				if a.empty {
					a.ended, a.end = true, c.end
					continue
				}
				warnNesting(a, top(), warn)
				stack = append(stack, a)
				openedHere = append(openedHere, a)
				if !a.closed {
					pending = append(pending, a)
				}
			case closeTag:
				if a := closes[ti]; a != nil {
					a.ended, a.end = true, c.end
				}
			}
		}
		if a := top(); a != nil && a.comment == ci {
			a.add(textFrom, c.bodyEnd)
		}
		for _, a := range openedHere {
			if !a.ended {
				a.spans = a.spans[:0] // remarks after an opening tag are not content
			}
		}
		prevEnd = c.end
	}
	if a := top(); a != nil {
		a.add(prevEnd, len(text))
	}
	for _, a := range pending {
		a.ended, a.end = true, len(text)
	}
}

// warnNesting reports an item annotation inside another item's annotation,
// and channel and item annotations inside each other: the text is split as
// for any nesting, but such nesting is most often a closing tag forgotten.
func warnNesting(inner, outer *annot, warn *warnings) {
	if outer == nil {
		return
	}
	innerItem, outerItem := strings.HasPrefix(inner.name, "item:"), strings.HasPrefix(outer.name, "item:")
	switch {
	case innerItem && outerItem:
		in, _ := inner.open.attr("index")
		out, _ := outer.open.attr("index")
		if strings.TrimSpace(in) != strings.TrimSpace(out) {
			warn.add(inner.open.line, "<%s index=%q> is inside <%s index=%q> of line %d (a closing tag missing?); its text is not part of it",
				inner.name, in, outer.name, out, outer.open.line)
		}
	case innerItem != outerItem:
		warn.add(inner.open.line, "<%s> is inside <%s> of line %d (a closing tag missing?); its text is not part of it",
			inner.name, outer.name, outer.open.line)
	}
}
