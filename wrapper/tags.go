package wrapper

import (
	"html"
	"strings"

	"github.com/dynamo-feeds/dynamo/internal/editdist"
)

// tagKind tells opening, closing and empty-element annotation tags apart.
type tagKind int

const (
	openTag  tagKind = iota // <item:title index="1">
	closeTag                // </item:title>
	emptyTag                // <item:image index="1" url="…"/>
)

// attr is one attribute of an annotation tag: its name lower-cased (names
// are case-insensitive, as in HTML), its value with entities decoded.
type attr struct {
	name, value string
}

// tag is one annotation tag found inside a comment.
type tag struct {
	kind       tagKind
	name       string // canonical: "item:title"
	attrs      []attr
	start, end int // offsets in the text of '<' and just after '>'
	line       int
	comment    int // index of the comment holding it
}

func (t *tag) attr(name string) (string, bool) {
	for _, a := range t.attrs {
		if a.name == name {
			return a.value, true
		}
	}
	return "", false
}

// isPrefix and isField say what annotation names are: a prefix and a field
// of the language, both prefixes taking every field but enclosure, which
// only items have.
func isPrefix(prefix string) bool { return prefix == "channel" || prefix == "item" }

func isField(prefix, local string) bool {
	switch local {
	case "title", "link", "description", "image", "extension":
		return true
	case "enclosure":
		return prefix == "item"
	}
	return false
}

// knownAttrs returns the attributes the annotation of this canonical
// name takes (a switch: it runs for every attribute of every tag).
func knownAttrs(name string) []string {
	switch name {
	case "channel:image":
		return imageAttrs
	case "channel:extension":
		return extensionAttrs
	case "item:title", "item:link", "item:description":
		return indexAttrs
	case "item:image":
		return itemImageAttrs
	case "item:extension":
		return itemExtensionAttrs
	case "item:enclosure":
		return enclosureAttrs
	}
	return nil // channel:title, channel:link, channel:description
}

var (
	indexAttrs         = []string{"index"}
	imageAttrs         = []string{"url", "link", "title"}
	itemImageAttrs     = []string{"index", "url", "link", "title"}
	extensionAttrs     = []string{"uri", "prefix", "localname"}
	itemExtensionAttrs = []string{"index", "uri", "prefix", "localname"}
	enclosureAttrs     = []string{"index", "url", "type", "length"}
)

// tagParser reads the annotation tags of one comment body. Text in the body
// that is not an annotation tag is left alone: it is either the content of
// a whole element (<channel:extension …>en</channel:extension>) or the
// webmaster's own remark.
type tagParser struct {
	body   string // the comment's body
	offset int    // where body starts in the text
	line   func(offset int) int
	warn   *warnings
	// unknownOpen remembers unknown tags already reported, so that their
	// closing tags are not reported a second time.
	unknownOpen map[string]bool
	// attrs holds the attributes of the tags parsed, each tag's attrs a
	// stretch of it: one allocation for many tags rather than one each.
	attrs []attr
}

// parse appends the annotation tags of the body, in order, to tags.
func (p *tagParser) parse(comment int, tags []tag) []tag {
	for k := 0; k < len(p.body); {
		j := strings.IndexByte(p.body[k:], '<')
		if j < 0 {
			break
		}
		j += k
		t, next, ok := p.tagAt(j)
		if ok {
			t.comment = comment
			tags = append(tags, t)
		}
		k = next
	}
	return tags
}

// tagAt reads the tag whose '<' is at j, and returns where to go on
// scanning. ok is false when the '<' does not open an annotation tag.
func (p *tagParser) tagAt(j int) (t tag, next int, ok bool) {
	b := p.body
	i := j + 1
	kind := openTag
	if i < len(b) && b[i] == '/' {
		kind = closeTag
		i = skipSpace(b, i+1) // "</ item:title>" is read as meant
	}
	nameStart := i
	for i < len(b) && isNameByte(b[i]) {
		i++
	}
	raw := b[nameStart:i]
	name, known := p.classify(raw, kind, j)
	if !known {
		return tag{}, j + 1, false
	}
	t = tag{kind: kind, name: name, start: p.offset + j, line: p.line(p.offset + j)}
	i, t.kind = p.attributes(&t, i, kind)
	t.end = p.offset + i
	return t, i, true
}

// classify returns the canonical name of an annotation tag and whether it
// is one. Names that are nearly annotations (an unknown field of a known
// prefix, a name one or two letters off any annotation name, a dash for
// the colon) are reported with the name meant, since they are most likely
// mistakes; other names (commented-out markup such as <o:p>) are not.
func (p *tagParser) classify(raw string, kind tagKind, j int) (string, bool) {
	if raw == "" {
		return "", false
	}
	lower := strings.ToLower(raw)
	prefix, local, hasColon := strings.Cut(lower, ":")
	if hasColon && isPrefix(prefix) && isField(prefix, local) {
		return lower, true
	}
	guess, near := nearestName(lower)
	switch {
	case near:
		p.reportUnknown(lower, kind, j, "did you mean <"+slashOf(kind)+guess+">?")
	case hasColon && prefix == "item":
		p.reportUnknown(lower, kind, j, "item annotations are "+itemFieldList)
	case hasColon && isPrefix(prefix):
		p.reportUnknown(lower, kind, j, prefix+" annotations are "+fieldList)
	}
	return "", false
}

// annotationNames are the names of the annotation language.
var annotationNames = []string{
	"channel:title", "channel:link", "channel:description", "channel:image", "channel:extension",
	"item:title", "item:link", "item:description", "item:image", "item:extension", "item:enclosure",
}

// nearestName returns the annotation name closest to name by edit distance
// (a letter added, dropped, changed, or two swapped), counting a dash, dot
// or underscore in place of the colon as no difference; near is false when
// the closest is more than two edits away, or more than a quarter of the
// name.
func nearestName(name string) (guess string, near bool) {
	if !strings.Contains(name, ":") {
		if i := strings.IndexAny(name, "-_."); i > 0 {
			name = name[:i] + ":" + name[i+1:]
		}
	}
	return editdist.Nearest(name, annotationNames)
}

// reportUnknown warns about a tag that is nearly an annotation, once per
// name: the closing tag of a reported opening tag is not reported again.
func (p *tagParser) reportUnknown(name string, kind tagKind, j int, hint string) {
	if kind == closeTag && p.unknownOpen[name] {
		return
	}
	if kind != closeTag {
		if p.unknownOpen == nil {
			p.unknownOpen = map[string]bool{}
		}
		p.unknownOpen[name] = true
	}
	p.warn.add(p.line(p.offset+j), "unknown annotation <%s%s> ignored; %s", slashOf(kind), name, hint)
}

// fieldList and itemFieldList name the fields for the unknown-annotation
// warning.
const (
	fieldList     = "title, link, description, image and extension"
	itemFieldList = "title, link, description, image, extension and enclosure"
)

// attributes reads the attributes of the tag from i up to its '>', and
// returns the offset just after the tag and its kind (an opening tag ending
// in "/>" is an empty element). Values may be quoted with " or ', or not at
// all. A quote left open runs to the end of the comment, as does a tag
// without its '>'; both are reported.
func (p *tagParser) attributes(t *tag, i int, kind tagKind) (int, tagKind) {
	b := p.body
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			p.warn.add(t.line, "<%s%s> is not closed with '>' before the end of its comment", slashOf(kind), t.name)
			return i, kind
		}
		switch {
		case b[i] == '>':
			return i + 1, kind
		case strings.HasPrefix(b[i:], "/>"):
			if kind == openTag {
				kind = emptyTag
			}
			return i + 2, kind
		case b[i] == '/' || b[i] == '=' || b[i] == '"' || b[i] == '\'' || b[i] == '<':
			if b[i] == '<' { // a new tag begins: this one lacks its '>'
				p.warn.add(t.line, "<%s%s> is not closed with '>'", slashOf(kind), t.name)
				return i, kind
			}
			i++
			continue
		}
		var a attr
		var end bool
		a, i, end = p.attribute(t, i)
		p.addAttr(t, a, kind)
		if end {
			return i, kind
		}
	}
}

// attribute reads one attribute starting at i. end reports that a quote
// left open consumed the rest of the comment.
func (p *tagParser) attribute(t *tag, i int) (a attr, next int, end bool) {
	b := p.body
	start := i
	for i < len(b) && !isSpace(b[i]) && b[i] != '=' && b[i] != '>' && !strings.HasPrefix(b[i:], "/>") {
		i++
	}
	a.name = attrName(b[start:i], knownAttrs(t.name))
	j := skipSpace(b, i)
	if j >= len(b) || b[j] != '=' {
		return a, i, false // an attribute without a value
	}
	i = skipSpace(b, j+1)
	if i >= len(b) {
		return a, i, false
	}
	if q := b[i]; q == '"' || q == '\'' {
		closing := strings.IndexByte(b[i+1:], q)
		if closing < 0 {
			p.warn.add(t.line, "<%s>: the quote of attribute %s is not closed; its value runs to the end of the comment", t.name, a.name)
			v := strings.TrimSpace(b[i+1:])
			v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(v, ">"), "/"))
			a.value = html.UnescapeString(v)
			return a, len(b), true
		}
		a.value = html.UnescapeString(b[i+1 : i+1+closing])
		return a, i + 2 + closing, false
	}
	start = i
	for i < len(b) && !isSpace(b[i]) && b[i] != '>' && !strings.HasPrefix(b[i:], "/>") {
		i++
	}
	a.value = html.UnescapeString(b[start:i])
	return a, i, false
}

// attrName returns the attribute name lower-cased. A name the tag takes
// (known, from knownAttrs) written with capitals, as localName is on every
// extension the documentation shows, is given as the language's own
// string rather than as a new lower-cased copy.
func attrName(raw string, known []string) string {
	for _, n := range known {
		if len(n) == len(raw) && strings.EqualFold(n, raw) {
			return n
		}
	}
	return strings.ToLower(raw)
}

// addAttr keeps the first of repeated attributes, as HTML does, and reports
// attributes the annotation does not take (closing tags may carry any:
// they are ignored, but for the index, which pair checks).
func (p *tagParser) addAttr(t *tag, a attr, kind tagKind) {
	if a.name == "" {
		return
	}
	if kind == closeTag { // only its index is kept, to check it against the opening tag's
		if _, dup := t.attr(a.name); a.name == "index" && !dup {
			p.keep(t, a)
		}
		return
	}
	if _, dup := t.attr(a.name); dup {
		p.warn.add(t.line, "<%s>: attribute %s is repeated; the first value is used", t.name, a.name)
		return
	}
	known := false
	for _, k := range knownAttrs(t.name) {
		known = known || k == a.name
	}
	if !known {
		takes := strings.Join(knownAttrs(t.name), ", ")
		if takes == "" {
			takes = "none"
		}
		p.warn.add(t.line, "<%s>: unknown attribute %s (it takes: %s); ignored", t.name, a.name, takes)
		return
	}
	p.keep(t, a)
}

// keep appends a to t's attributes. They are the last stretch of p.attrs,
// capped so that no other tag's append writes over them.
func (p *tagParser) keep(t *tag, a attr) {
	p.attrs = append(p.attrs, a)
	n := len(p.attrs)
	t.attrs = p.attrs[n-len(t.attrs)-1 : n : n]
}

func slashOf(kind tagKind) string {
	if kind == closeTag {
		return "/"
	}
	return ""
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ':' || c == '-' || c == '_' || c == '.'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}
