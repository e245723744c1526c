package annotate

import (
	"errors"
	"fmt"
	"html"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/andybalholm/cascadia"
	"github.com/antchfx/htmlquery"
	"github.com/antchfx/xpath"
	nethtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// Selectors say where the items of a page that cannot be annotated are,
// and where each item's fields are, as CSS selectors or XPath 1.0
// expressions (one syntax for all). Item is matched in the whole page; the
// fields are matched from each item. A selector source is read by
// inserting, where the selectors match, the annotations a webmaster would
// have written, and reading the result with the wrapper: the defaults,
// sanitizing, dates and warnings are those of an annotated page, and the
// warnings' lines are the page's.
type Selectors struct {
	Syntax      string // SyntaxCSS (the default) or SyntaxXPath
	Item        string
	Title       string
	Link        string
	Description string
	Date        string
	Author      string // becomes a dc:creator extension
	Image       string
	Enclosure   string // becomes a dynamo:enclosure extension, an absolute URL
}

// SourceSelectors are a selectors source's selectors.
func SourceSelectors(src *dynamo.Source) Selectors {
	return Selectors{
		Syntax: src.SelectorSyntax, Item: src.ItemSelector, Title: src.TitleSelector, Link: src.LinkSelector,
		Description: src.DescriptionSelector, Date: src.DateSelector, Author: src.AuthorSelector,
		Image: src.ImageSelector, Enclosure: src.EnclosureSelector,
	}
}

// SetOn makes src a selectors source reading the page through s.
func (s Selectors) SetOn(src *dynamo.Source) {
	src.Kind = dynamo.KindSelectors
	src.SelectorSyntax, src.ItemSelector, src.TitleSelector, src.LinkSelector = s.Syntax, s.Item, s.Title, s.Link
	src.DescriptionSelector, src.DateSelector, src.AuthorSelector = s.Description, s.Date, s.Author
	src.ImageSelector, src.EnclosureSelector = s.Image, s.Enclosure
}

// The selector syntaxes.
const (
	SyntaxCSS   = "css"
	SyntaxXPath = "xpath"
)

// MaxSelectorLength bounds one selector.
const MaxSelectorLength = 1024

// ErrNoItems is returned when the item selector matches nothing: a page
// redesigned under its selectors, which should not become an empty feed.
var ErrNoItems = errors.New("the item selector matches nothing on the page")

// fieldNames are the fields in the order they are annotated.
var fieldNames = []string{"title", "link", "description", "date", "author", "image", "enclosure"}

func (s Selectors) field(name string) string {
	switch name {
	case "title":
		return s.Title
	case "link":
		return s.Link
	case "description":
		return s.Description
	case "date":
		return s.Date
	case "author":
		return s.Author
	case "image":
		return s.Image
	case "enclosure":
		return s.Enclosure
	}
	return ""
}

// Compiled are selectors ready to apply.
type Compiled struct {
	src    Selectors
	item   query
	fields map[string]query
}

// query finds matches from a node: for the item, in the whole document;
// for a field, from an item.
type query interface {
	all(doc *nethtml.Node) []match
	first(at *cursor, from *nethtml.Node) (match, bool)
}

// match is what a selector found: an element or a text node, or a value
// (an attribute's, or what an XPath expression computes) with the element
// it came from, if any.
type match struct {
	node  *nethtml.Node
	value string
	isVal bool // the match is value, not node's content
}

// Compile checks the selectors and prepares them. The error says which
// selector is wrong and why.
func (s Selectors) Compile() (*Compiled, error) {
	syntax := strings.ToLower(strings.TrimSpace(s.Syntax))
	if syntax == "" {
		syntax = SyntaxCSS
	}
	if syntax != SyntaxCSS && syntax != SyntaxXPath {
		return nil, fmt.Errorf("selector syntax %q is unknown: want css or xpath", s.Syntax)
	}
	s.Syntax = syntax
	c := &Compiled{src: s, fields: map[string]query{}}
	compile := func(name, expr string) (query, error) {
		expr = strings.TrimSpace(expr)
		if len(expr) > MaxSelectorLength {
			return nil, fmt.Errorf("%s selector: longer than %d bytes", name, MaxSelectorLength)
		}
		if syntax == SyntaxXPath {
			e, err := xpath.Compile(expr)
			if err != nil {
				return nil, fmt.Errorf("%s selector %q is not XPath 1.0: %v", name, expr, err)
			}
			return xpathQuery{e}, nil
		}
		if expr == "&" && name != "item" {
			return selfQuery{}, nil
		}
		g, err := cascadia.ParseGroup(expr)
		if err != nil {
			return nil, fmt.Errorf("%s selector %q is not a CSS selector: %v", name, expr, err)
		}
		return cssQuery{g}, nil
	}
	if strings.TrimSpace(s.Item) == "" {
		return nil, errors.New("item selector is required: it says where the items are")
	}
	var err error
	if c.item, err = compile("item", s.Item); err != nil {
		return nil, err
	}
	for _, name := range fieldNames {
		if expr := s.field(name); strings.TrimSpace(expr) != "" {
			if c.fields[name], err = compile(name, expr); err != nil {
				return nil, err
			}
		}
	}
	if c.fields["title"] == nil && c.fields["description"] == nil && c.fields["link"] == nil {
		return nil, errors.New("a title, link or description selector is required: an item needs one of them")
	}
	return c, nil
}

// Selectors returns the selectors, normalized.
func (c *Compiled) Selectors() Selectors { return c.src }

type cssQuery struct{ m cascadia.Matcher }

func (q cssQuery) all(doc *nethtml.Node) []match {
	var out []match
	for _, n := range cascadia.QueryAll(doc, q.m) {
		out = append(out, match{node: n})
	}
	return out
}

func (q cssQuery) first(_ *cursor, from *nethtml.Node) (match, bool) {
	n := cascadia.Query(from, q.m)
	return match{node: n}, n != nil
}

// selfQuery is the CSS field selector "&": the item itself.
type selfQuery struct{}

func (selfQuery) all(*nethtml.Node) []match { return nil }
func (selfQuery) first(_ *cursor, from *nethtml.Node) (match, bool) {
	return match{node: from}, true
}

type xpathQuery struct{ e *xpath.Expr }

func (q xpathQuery) all(doc *nethtml.Node) []match {
	var out []match
	nav := htmlquery.CreateXPathNavigator(doc)
	if it, ok := q.e.Evaluate(nav).(*xpath.NodeIterator); ok {
		for it.MoveNext() {
			if m, ok := navMatch(it.Current()); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func (q xpathQuery) first(at *cursor, from *nethtml.Node) (match, bool) {
	nav := at.navigatorAt(from)
	switch v := q.e.Evaluate(nav).(type) {
	case *xpath.NodeIterator:
		for v.MoveNext() {
			if m, ok := navMatch(v.Current()); ok {
				return m, true
			}
		}
	case string:
		if strings.TrimSpace(v) != "" {
			return match{value: v, isVal: true}, true
		}
	case float64:
		return match{value: strconv.FormatFloat(v, 'f', -1, 64), isVal: true}, true
	}
	return match{}, false
}

func navMatch(n xpath.NodeNavigator) (match, bool) {
	hn, ok := n.(*htmlquery.NodeNavigator)
	if !ok {
		return match{}, false
	}
	switch hn.NodeType() {
	case xpath.AttributeNode:
		return match{node: hn.Current(), value: hn.Value(), isVal: true}, true
	case xpath.ElementNode, xpath.TextNode:
		return match{node: hn.Current()}, true
	}
	return match{}, false
}

// cursor keeps a navigator rooted at the document, moved from one item
// to the next: items come in page order, so it moves on among siblings,
// where a navigator started at the root for every item would pass every
// earlier sibling of each of the item's ancestors, quadratic in a long
// list.
type cursor struct {
	doc *nethtml.Node
	nav *htmlquery.NodeNavigator
}

// navigatorAt returns a navigator on n whose root is the document's, so
// that absolute paths in a field's expression start at the page, as in
// FreshRSS, and not at the item.
func (c *cursor) navigatorAt(n *nethtml.Node) *htmlquery.NodeNavigator {
	var chain []*nethtml.Node // n and its ancestors below the document
	a := n
	for ; a != nil && a != c.doc; a = a.Parent {
		chain = append(chain, a)
	}
	if a == nil { // not in the document
		return htmlquery.CreateXPathNavigator(n)
	}
	if c.nav == nil {
		c.nav = htmlquery.CreateXPathNavigator(c.doc)
	}
	nav := c.nav
	if len(chain) == 0 {
		nav.MoveToRoot()
		return nav.Copy().(*htmlquery.NodeNavigator)
	}
	// k is the level to move to next: the navigator is on a child of
	// chain[k] (of the document when k is len(chain)), and looks among
	// its siblings for chain[k-1].
	k := len(chain)
	if nav.Current() == c.doc {
		if !nav.MoveToChild() {
			return htmlquery.CreateXPathNavigator(n)
		}
	} else {
		for {
			p := nav.Current().Parent
			if p == c.doc {
				break
			}
			// Not at n itself: from inside n, the navigator climbs to it.
			if i := slices.Index(chain[1:], p); i >= 0 {
				k = i + 1
				break
			}
			nav.MoveToParent()
		}
	}
	for k > 0 {
		target := chain[k-1]
		for nav.Current() != target && nav.MoveToNext() {
		}
		if nav.Current() != target { // it lies before: look from the first sibling
			nav.MoveToParent()
			nav.MoveToChild()
			for nav.Current() != target && nav.MoveToNext() {
			}
			if nav.Current() != target {
				return htmlquery.CreateXPathNavigator(n)
			}
		}
		k--
		if k > 0 && !nav.MoveToChild() {
			return htmlquery.CreateXPathNavigator(n)
		}
	}
	return nav.Copy().(*htmlquery.NodeNavigator)
}

// dom is the x/net/html tree the selector engines read, made from the
// suggester's tree (domOf). Its nodes lie in one slice, by the index of
// the suggester's node each is made from: the way from one to the other
// is an index, where two maps of a node each cost a long page (a million
// nodes) seconds and hundreds of megabytes.
type dom struct {
	doc   *nethtml.Node
	t     *treeBuilder
	nodes []nethtml.Node // by node.idx; the root's, and those of nodes left out of the tree, unused
}

// domOf builds the x/net/html tree the selector engines read from the
// suggester's tree. The page is as written: <html>, <head> and <body> are
// made as browsers make them, so that /html/body/… works, but no <tbody>
// is inserted, as FreshRSS's libxml2 inserts none.
func domOf(p *page, t *treeBuilder) *dom {
	d := &dom{doc: &nethtml.Node{Type: nethtml.DocumentNode}, t: t, nodes: make([]nethtml.Node, t.made)}
	htmlEl := element("html")
	head, body := element("head"), element("body")
	d.doc.AppendChild(htmlEl)
	htmlEl.AppendChild(head)
	htmlEl.AppendChild(body)
	inBody := false
	for n := range t.all {
		hn := &d.nodes[n.idx]
		if n.isText() {
			raw := p.decode(p.text[n.start:n.end])
			if !n.parent().raw {
				raw = html.UnescapeString(raw)
			}
			*hn = nethtml.Node{Type: nethtml.TextNode, Data: raw}
		} else {
			*hn = nethtml.Node{Type: nethtml.ElementNode, Data: n.tag(), DataAtom: atom.Lookup([]byte(n.tag())), Attr: decodedAttrs(p, t.attrs[n])}
		}
		if n.up > 0 { // below an element; the root (index 0) has none made
			d.nodes[n.up].AppendChild(hn)
			continue
		}
		switch {
		case !inBody && (headElements[n.tag()] || n.isText() && n.textBytes == 0):
			head.AppendChild(hn)
		default:
			inBody = true
			body.AppendChild(hn)
		}
	}
	return d
}

// decodedAttrs returns the attributes with their values decoded: attrs
// themselves when decoding changes none (a UTF-8 page's), else a copy.
func decodedAttrs(p *page, attrs []nethtml.Attribute) []nethtml.Attribute {
	for i, a := range attrs {
		if v := p.decode(a.Val); v != a.Val {
			out := slices.Clone(attrs)
			out[i].Val = v
			for j := i + 1; j < len(out); j++ {
				out[j].Val = p.decode(out[j].Val)
			}
			return out
		}
	}
	return attrs
}

// nodeOf returns the x/net/html node made from n.
func (d *dom) nodeOf(n *node) *nethtml.Node { return &d.nodes[n.idx] }

// back returns the suggester's node an x/net/html node was made from; nil
// for the document, <html>, <head> and <body>, which lie outside nodes.
func (d *dom) back(hn *nethtml.Node) *node {
	if hn == nil || len(d.nodes) == 0 {
		return nil
	}
	size := unsafe.Sizeof(nethtml.Node{})
	at, first := uintptr(unsafe.Pointer(hn)), uintptr(unsafe.Pointer(&d.nodes[0]))
	if at < first || at >= first+uintptr(len(d.nodes))*size {
		return nil
	}
	return d.t.t.node(int32((at - first) / size))
}

var headElements = map[string]bool{"title": true, "meta": true, "link": true, "script": true, "style": true, "base": true}

func element(tag string) *nethtml.Node {
	return &nethtml.Node{Type: nethtml.ElementNode, Data: tag, DataAtom: atom.Lookup([]byte(tag))}
}

// Followed is a page read through selectors.
type Followed struct {
	// Page is the page with the selectors' matches inserted as
	// annotations, and Inserted where; the playground shows it.
	Page     []byte
	Inserted []Range
	// Wrapped is Page read by the wrapper: the XMLData.
	Wrapped *wrapper.Result
	// Warnings are the selectors' warnings and the wrapper's, in line
	// order; their lines are the page's. SelectorWarnings are the first
	// alone.
	Warnings         []dynamo.Warning
	SelectorWarnings []dynamo.Warning
}

// Follow reads a page through selectors. It fails when the page cannot be
// edited in place (ISO-2022-JP) or the item selector matches nothing.
func Follow(raw []byte, c *Compiled, opts Options) (*Followed, error) {
	p, err := newPage(raw, opts.ContentType)
	if err != nil {
		return nil, err
	}
	t, d := selectorsTree(p)
	return follow(p, t, d, c, opts)
}

// selectorsTree reads the page as selectors read it: the suggester's tree
// with every attribute and the page's own annotations, and the x/net/html
// tree made from it.
func selectorsTree(p *page) (*treeBuilder, *dom) {
	t := p.tree(func(body string) []existingTag { return wrapper.CommentTags(body) }, true)
	return t, domOf(p, t)
}

// follow is Follow on a page read already: Result.Selectors reads the
// page once for finding the item selector and following the selectors.
// Neither changes the trees.
func follow(p *page, t *treeBuilder, d *dom, c *Compiled, opts Options) (*Followed, error) {
	f := follower{p: p, t: t, dom: d, c: c, g: newGuard(p.text), lines: newLineCounter(p.text), cursor: cursor{doc: d.doc},
		chooser: &chooser{p: p, loc: opts.Location}}
	if f.chooser.loc == nil {
		f.chooser.loc = time.UTC
	}
	items := f.items()
	if len(items) == 0 {
		return nil, fmt.Errorf("%w (%s)", ErrNoItems, c.src.Item)
	}
	ex := existingAnnotations(t)
	if len(ex.comments) > 0 {
		f.warn(0, "the page has annotations of its own, which are read too: a source of kind html reads them alone")
	}
	spans := make([]span, 0, len(items)*len(c.fields))
	for i, it := range items {
		spans = f.itemSpans(spans, it, strconv.Itoa(ex.maxIndex+i+1), i+1)
	}
	for i := range spans {
		spans[i].seq = int32(i)
	}
	out := &Followed{}
	out.Page, out.Inserted = insert(p, spans, false)
	out.Wrapped = wrapper.Wrap(out.Page, wrapper.Options{URL: opts.URL, ContentType: opts.ContentType, Location: f.chooser.loc, RSSID: opts.RSSID, Now: opts.Now})
	out.SelectorWarnings = f.warnings
	out.Warnings = append(append([]dynamo.Warning(nil), f.warnings...), out.Wrapped.Warnings...)
	sort.SliceStable(out.Warnings, func(i, j int) bool { return out.Warnings[i].Line < out.Warnings[j].Line })
	return out, nil
}

// follower applies compiled selectors to one page.
type follower struct {
	p        *page
	t        *treeBuilder
	dom      *dom
	c        *Compiled
	g        *guard
	lines    *lineCounter
	chooser  *chooser
	warnings []dynamo.Warning
	used     map[string][]takenSpan // spans taken, by field, in page order
	cursor   cursor
}

func (f *follower) warn(line int, format string, args ...any) {
	if len(f.warnings) < maxSelectorWarnings {
		f.warnings = append(f.warnings, dynamo.Warning{Line: line, Message: fmt.Sprintf(format, args...)})
	}
}

// maxSelectorWarnings bounds the selectors' own warnings: one kind of
// mismatch repeats on every item.
const maxSelectorWarnings = 200

// items returns the item matches as the suggester's nodes, in page order;
// an item inside another is dropped (an item selector such as //div that
// matches nested blocks), with a warning.
func (f *follower) items() []*node {
	var out []*node
	nested, texts := 0, 0
	for _, m := range f.c.item.all(f.dom.doc) {
		n := f.dom.back(m.node)
		switch {
		case n == nil:
			continue // <html>, <head>, <body>
		case n.isText() || m.isVal:
			texts++
			continue
		}
		if len(out) > 0 && isAncestor(out[len(out)-1], n) {
			nested++
			continue
		}
		out = append(out, n)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	if nested > 0 {
		f.warn(0, "the item selector matches %d elements inside other items; they are left out", nested)
	}
	if texts > 0 {
		f.warn(0, "the item selector matches %d texts or attributes, which are not items; left out", texts)
	}
	return out
}

// itemSpans lays out one item's annotations, appended to spans: a slice
// made once for every item's, where one slice an item cost a long list
// as many allocations.
func (f *follower) itemSpans(spans []span, item *node, index string, position int) []span {
	line := f.lines.at(int(item.start))
	for _, name := range fieldNames {
		q := f.c.fields[name]
		if q == nil {
			continue
		}
		from := f.dom.nodeOf(item)
		m, ok := q.first(&f.cursor, from)
		if !ok {
			if name == "title" || name == "link" {
				f.warn(line, "item %d: the %s selector matches nothing in it", position, name)
			}
			continue
		}
		sp, ok := f.fieldSpan(name, m, item, index)
		if !ok {
			continue
		}
		if sp.close != "" {
			if prev, clash := f.taken(name, sp.start, sp.end); clash {
				f.warn(line, "item %d: the %s selector matches what an earlier item's did (line %d); left out", position, name, f.lines.at(prev))
				continue
			}
		}
		spans = append(spans, sp)
	}
	return spans
}

// takenSpan is a field's span taken by an item, and how many were
// taken before it.
type takenSpan struct{ start, end, seq int }

// taken records a field's span, and reports a clash with one taken by an
// earlier item (then the offset of the earliest such). The spans taken
// do not overlap, so in the order of their starts their ends are in order
// too, and those that may clash are found by a binary search.
func (f *follower) taken(name string, start, end int) (int, bool) {
	if f.used == nil {
		f.used = map[string][]takenSpan{}
	}
	spans := f.used[name]
	clash := -1
	for j := sort.Search(len(spans), func(j int) bool { return spans[j].end >= start }); j < len(spans) && spans[j].start <= end; j++ {
		u := spans[j]
		if start < u.end && u.start < end || start == u.start && end == u.end {
			if clash < 0 || u.seq < spans[clash].seq {
				clash = j
			}
		}
	}
	if clash >= 0 {
		return spans[clash].start, true
	}
	k := sort.Search(len(spans), func(k int) bool {
		return spans[k].start > start || spans[k].start == start && spans[k].end > end
	})
	f.used[name] = slices.Insert(spans, k, takenSpan{start, end, len(spans)})
	return 0, false
}

// fieldAnnotation names each field's annotation and its extra attributes.
var fieldAnnotation = map[string]struct{ name, attrs string }{
	"title":       {"item:title", ""},
	"link":        {"item:link", ""},
	"description": {"item:description", ""},
	"date":        {"item:extension", dateAttrs},
	"author":      {"item:extension", ` uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="creator"`},
	"enclosure":   {"item:extension", ` uri="` + dynamo.NamespaceDynamo + `" prefix="dynamo" localName="enclosure"`},
}

// fieldSpan makes the annotation of one field's match: around the matched
// element's content (the start tag of a link), around a text, or, for a
// value with no place in the page (an attribute, a computed string), a
// whole annotation element holding it, placed before the item.
func (f *follower) fieldSpan(name string, m match, item *node, index string) (span, bool) {
	n := f.dom.back(m.node)
	if name == "image" {
		return f.imageSpan(m, n, item, index)
	}
	ann := fieldAnnotation[name]
	whole := func(value string) (span, bool) {
		value = strings.TrimSpace(value)
		if value == "" {
			return span{}, false
		}
		text := "<!-- <" + ann.name + ` index="` + index + `"` + ann.attrs + ">" + escapeComment(value) + "</" + ann.name + "> -->"
		return span{start: int(item.start), end: int(item.start), open: text}, true
	}
	switch {
	case n == nil && !m.isVal:
		return span{}, false
	case m.isVal && (name != "link" || n == nil || n.tag() != "a" || !strings.EqualFold(attrName(m), "href")):
		return whole(m.value)
	case name == "enclosure":
		return whole(enclosureURL(f.p, f.t.attrs[n], n))
	}
	var s, e int
	switch {
	case name == "link" && n.tag() == "a" && n.href() != "":
		s, e = int(n.start), int(n.open)
	case name == "date" && f.chooser.holdsMachineDate(n):
		s, e = int(n.start), int(n.end) // the element, whose attribute the wrapper reads
	case name == "date" && !n.isText():
		if ds, de, ok := f.dateWithin(n); ok {
			s, e = ds, de
		} else {
			s, e = n.inner()
		}
	case name == "date" || name == "author" && n.isText():
		s, e = int(n.start), int(n.end)
		if ds, de, ok := f.chooser.dateIn(n); ok && name == "date" {
			s, e = ds, de
		}
	case n.isText():
		s, e = int(n.start), int(n.end)
	case name == "title":
		s, e = narrowTitle(n).inner()
	default:
		s, e = n.inner()
	}
	if !f.g.spanSafe(s, e) || name == "title" && wrapper.CrossesBlocks(f.p.text[s:e]) {
		return whole(f.p.textOf(n))
	}
	return span{start: s, end: e, open: openComment(ann.name, index, ann.attrs), close: closeComment(ann.name)}, true
}

// attrName is the matched attribute's name, when the match is one: the
// name is not kept, so the value is compared with the element's href.
func attrName(m match) string {
	if m.node == nil {
		return ""
	}
	for _, a := range m.node.Attr {
		if a.Key == "href" && a.Val == m.value {
			return "href"
		}
	}
	return ""
}

// dateWithin finds a date in an element: its whole text when that reads
// as one, else the first of its texts that holds one ("Posted on 3 July
// 2024 by Ann").
func (f *follower) dateWithin(n *node) (int, int, bool) {
	if f.chooser.isDate(f.p.textOf(n)) {
		s, e := n.inner()
		return s, e, true
	}
	var s, e int
	found := false
	walk(record{nodes: []*node{n}}, func(c *node) bool {
		if found {
			return false
		}
		if c.isText() {
			s, e, found = f.chooser.dateIn(c)
		}
		return true
	})
	return s, e, found
}

// imageSpan annotates an image: an <img> (or an attribute, a value) by its
// URL, another element by its content, where the wrapper takes the first
// <img>.
func (f *follower) imageSpan(m match, n *node, item *node, index string) (span, bool) {
	src := ""
	switch {
	case m.isVal:
		src = m.value
	case n != nil && n.tag() == "img":
		for _, a := range f.t.attrs[n] {
			if a.Key == "src" {
				src = f.p.decode(a.Val)
			}
		}
	case n != nil && !n.isText():
		s, e := n.inner()
		if f.g.spanSafe(s, e) {
			return span{start: s, end: e, open: openComment("item:image", index, ""), close: closeComment("item:image")}, true
		}
	}
	if strings.TrimSpace(src) == "" {
		return span{}, false
	}
	text := `<!-- <item:image index="` + index + `" url="` + html.EscapeString(strings.TrimSpace(src)) + `"/> -->`
	return span{start: int(item.start), end: int(item.start), open: text}, true
}

// enclosureURL is the URL an enclosure's element names: a link's href, a
// media element's src, else its text.
func enclosureURL(p *page, attrs []nethtml.Attribute, n *node) string {
	for _, key := range []string{"href", "src"} {
		for _, a := range attrs {
			if a.Key == key && strings.TrimSpace(a.Val) != "" {
				return p.decode(a.Val)
			}
		}
	}
	return p.textOf(n)
}

// escapeComment writes a value as the text of a whole annotation element
// in a comment: entities for the markup characters, so that no "-->" or
// tag can come of it.
func escapeComment(s string) string { return html.EscapeString(s) }

// lineCounter gives the line of an offset of the text as the wrapper
// counts lines: a line ends at "\n", "\r\n" or "\r".
type lineCounter struct {
	text         string
	offset, line int
}

func newLineCounter(text string) *lineCounter { return &lineCounter{text: text, line: 1} }

func (l *lineCounter) at(offset int) int {
	offset = min(max(offset, 0), len(l.text))
	if offset < l.offset {
		l.offset, l.line = 0, 1
	}
	for i := l.offset; i < offset; i++ {
		if c := l.text[i]; c == '\n' || c == '\r' && (i+1 >= len(l.text) || l.text[i+1] != '\n') {
			l.line++
		}
	}
	l.offset = offset
	return l.line
}
