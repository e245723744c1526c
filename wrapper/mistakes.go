package wrapper

import (
	"fmt"
	"strconv"
	"strings"
)

// This file catches the mistakes webmasters make that the annotation
// language itself allows: the page still means something, but most likely
// not what was meant.

// sameIndex reports whether two index attributes name one item: equal as
// integers (leading zeros and spaces ignored), or equal as text.
func sameIndex(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	na, errA := strconv.ParseInt(a, 10, 64)
	nb, errB := strconv.ParseInt(b, 10, 64)
	if errA == nil && errB == nil {
		return na == nb
	}
	return a == b
}

// warnClosingIndex reports a closing tag whose index differs from its
// opening tag's: the closing tag closes the open annotation of its name
// whatever its index says, which is seldom what the index meant.
func warnClosingIndex(closing *tag, a *annot, warn *warnings) {
	ci, hasCI := closing.attr("index")
	oi, hasOI := a.open.attr("index")
	if !hasCI || sameIndex(ci, oi) {
		return
	}
	if !hasOI {
		oi = "none"
	}
	warn.add(closing.line, "</%s index=%q> closes <%s> of line %d, whose index is %s: the indexes differ; the closing tag's index is ignored",
		closing.name, strings.TrimSpace(ci), a.name, a.open.line, quoteIndex(oi, hasOI))
}

func quoteIndex(s string, has bool) string {
	if !has {
		return s
	}
	return strconv.Quote(strings.TrimSpace(s))
}

// warnNeighbourIndexes reports an item with a title and no description
// next to an item with a description and no title whose index differs by
// one: the usual cause is a copied block whose index was changed in one
// place only, which makes two half items out of one.
func warnNeighbourIndexes(groups []*itemGroup, warn *warnings) {
	var titleOnly, descOnly []*itemGroup
	for _, g := range groups {
		if !g.numbered {
			continue
		}
		_, hasTitle := g.field("title")
		_, hasDesc := g.field("description")
		switch {
		case hasTitle && !hasDesc:
			titleOnly = append(titleOnly, g)
		case hasDesc && !hasTitle:
			descOnly = append(descOnly, g)
		}
	}
	used := map[*itemGroup]bool{}
	for _, t := range titleOnly {
		for _, d := range descOnly {
			if used[d] || (d.number != t.number+1 && d.number != t.number-1) {
				continue
			}
			ta, da := t.fields[slot("title")].a, d.fields[slot("description")].a
			if !apart(ta, da) || !adjacent(ta, da, groups, t, d) {
				continue
			}
			used[d] = true
			line := max(ta.open.line, da.open.line)
			warn.add(line, "<item:title index=%q> (line %d) has no description and <item:description index=%q> (line %d) has no title: indexes differing by one, each alone in its item, are probably one item with a mistyped index",
				t.label, ta.open.line, d.label, da.open.line)
			break
		}
	}
}

// apart reports whether neither annotation holds the other: nesting is
// reported on its own.
func apart(a, b *annot) bool { return a.end <= b.start || b.end <= a.start }

// adjacent reports whether no annotation of a third item lies between a
// and b: a block whose index was mistyped keeps its annotations together.
func adjacent(a, b *annot, groups []*itemGroup, ga, gb *itemGroup) bool {
	lo, hi := min(a.start, b.start), max(a.start, b.start)
	for _, g := range groups {
		if g == ga || g == gb {
			continue
		}
		for _, m := range g.members {
			if m.Start > lo && m.Start < hi {
				return false
			}
		}
	}
	return true
}

// blockTags are the elements that start a block: a plain value (a title,
// a link, an extension) that holds them, or an unclosed annotation that
// runs over them, took more of the page than was meant.
var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "dd": true, "div": true, "dl": true,
	"dt": true, "fieldset": true, "figcaption": true, "figure": true, "footer": true, "form": true, "h1": true,
	"h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hr": true, "li": true,
	"main": true, "nav": true, "ol": true, "p": true, "pre": true, "section": true, "table": true, "tbody": true,
	"td": true, "th": true, "thead": true, "tr": true, "ul": true,
}

// blockMarkup looks at an annotation's content for block-level markup and
// returns the first block tag met and its offset, and whether the content
// crosses a block boundary: it ends a block it did not start, or holds
// more than one block. A content that is one block (<h2>Title</h2>) does
// not cross.
func blockMarkup(text string, spans []span) (first string, at int, crosses bool) {
	depth, blocks := 0, 0
	at = -1
	for _, sp := range spans {
		s := text[sp.start:sp.end]
		for i := 0; i < len(s); {
			k := strings.IndexByte(s[i:], '<')
			if k < 0 {
				break
			}
			i += k + 1
			closing := i < len(s) && s[i] == '/'
			if closing {
				i++
			}
			if i >= len(s) || !isLetter(s[i]) {
				continue
			}
			// The whole tag name, as the tokenizer reads it (up to a space,
			// '/' or '>'): </li7> and <h7> are not </li> and <h>.
			start, j := i, i
			for j < len(s) && !strings.ContainsRune(" \t\n\f\r/>", rune(s[j])) {
				j++
			}
			name := strings.ToLower(s[i:j])
			i = htmlTagEnd(s, j) // what lies inside a tag is not markup (</div <div >, title="<p>")
			if !blockTags[name] {
				continue
			}
			if at < 0 {
				first, at = name, sp.start+start-1
				if closing {
					first = "/" + name
					at--
				}
			}
			switch {
			case closing && depth == 0:
				crosses = true
			case closing:
				depth--
			default:
				if depth == 0 {
					blocks++
				}
				depth++
			}
		}
	}
	return first, at, crosses || blocks > 1
}

// describeNeverClosed says where an annotation without its closing tag
// ended, and what it took that it should not have.
func describeNeverClosed(a *annot, text string, ln *lines) string {
	msg := fmt.Sprintf("<%s> is never closed; ", a.name)
	if a.end >= len(text) {
		msg += "with no annotation after it, its content runs to the end of the page"
	} else {
		msg += fmt.Sprintf("its content is taken up to the next annotation (line %d)", ln.at(a.end))
	}
	if first, at, _ := blockMarkup(text, a.spans); at >= 0 {
		msg += fmt.Sprintf(" and swallowed block-level markup (<%s> on line %d)", first, ln.at(at))
	}
	return msg + ": add its closing tag where the value ends"
}

// warnSwallowedBlocks reports a plain value (a title, an extension) that
// holds block-level markup across blocks: its closing tag is most likely
// in the wrong place, and the value runs on into the next paragraph or
// heading.
func warnSwallowedBlocks(a *annot, text string, ln *lines, warn *warnings) {
	if !a.closed || a.empty {
		return
	}
	switch {
	case strings.HasSuffix(a.name, ":title"), strings.HasSuffix(a.name, ":extension"):
	default:
		return
	}
	if first, at, crosses := blockMarkup(text, a.spans); crosses {
		warn.add(a.open.line, "<%s> holds block-level markup (<%s> on line %d): is its closing tag in the right place?", a.name, first, ln.at(at))
	}
}
