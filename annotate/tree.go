package annotate

import (
	"bytes"
	"hash/maphash"
	"math/bits"
	"strings"
	"unsafe"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// node is an element or a run of text of the page, with its byte offsets
// in the text the suggester reads. Annotations are inserted at these
// offsets, so the tree keeps them exactly; html.Parse, which does not, is
// therefore not used. The tree is built as browsers build theirs in the
// cases list pages depend on (implied end tags of li, dt, dd, p, tr, td,
// stray end tags ignored, void elements), not in every corner of the HTML
// standard.
type node struct {
	// The fields the walks read (what kind of node, whether it is shown,
	// its children and its subtree's counts) come first, so that they
	// share a cache line: a long page's nodes are far more than the
	// caches hold, and each first read of a node waits for memory.
	//
	// A node holds no pointer, so that the collector never scans the
	// blocks of nodes (a tree of a 10 MiB page is 40 MB of them): its
	// look, parent, children and href are indexes into the tables of its
	// tree, which the block it lies in points to (see slab).
	lookID int32 // in tables.looks: 0 for text, 1 for the root
	kidsAt int32 // its children are tables.kids[kidsAt : kidsAt+kids]
	kids   int32

	// Aggregates over the subtree, filled once the tree is built. They,
	// the offsets and depth are int32 to keep the node small: pages (the
	// wrapper reads at most 10 MiB) are far below the 1 GiB at which
	// twice a count would overflow.
	textBytes     int32 // bytes of visible, non-space text
	linkTextBytes int32 // of which inside <a href>
	links         int32 // <a href> elements
	headings      int32 // h1–h6 elements
	images        int32

	hidden bool // in <head>, <script>, <style>, <template>… : never annotated
	raw    bool // an element whose content the tokenizer reads as text (script, title, noscript…)
	skip   bool // an element in skipRecordTags, which holds no item on its own
	inNav  bool // in nav, header, footer, aside, or a block named like them
	inMain bool // in main, [role=main], or a block named content or main

	// Kept once asked: whether its href leads to a page (usableLink: 0
	// not asked, 1 yes, 2 no).
	linkOK uint8

	idx   int32 // its index in the tree (tables.node)
	up    int32 // its parent's index; -1 for the root
	depth int32 // the root's children are at depth 1

	// start is the '<' of the start tag (text: its first byte); open is
	// just after the start tag's '>' (text: start); close is the '<' of the
	// end tag, or where the element ended without one (text: its end); end
	// is just after the end tag (close when there is none).
	start, open, close, end int32

	// The href of an <a>: the tables' href hrefAt-1; none when 0. One
	// index rather than an offset and a length in the text keeps the node
	// at 80 bytes (five cache lines hold four nodes): a page of 10 MiB
	// has up to a million nodes, each of them memory the kernel clears.
	hrefAt int32

	pathKey uint64 // hash of the keys (look.key) from the root to the node
}

// tables are what a tree's nodes point to, by index: a node holds no
// pointer (see node).
type tables struct {
	text  string
	looks []*look // by node.lookID
	kids  []*node // every node's children, each node's in a row
	// The hrefs, by node.hrefAt-1, in blocks of hrefBlock (a slice
	// grown by doubling left as much garbage as it kept): where each is
	// in the text, or, with n -1, its index in copies (an href the page
	// does not hold as is).
	hrefs  [][]hrefRef
	copies []string
	slabs  []*slab // the blocks of nodes, by node.idx / nodeBlock
	// numHrefs counts the hrefs.
	numHrefs int32
}

// slab is a block of nodes, with the tables of their tree. Its one
// pointer comes first, so that the collector, which scans an object
// only up to its last pointer, reads the pointer and none of the nodes.
type slab struct {
	t     *tables
	nodes [nodeBlock]node
}

// nodeBlock is how many nodes a slab holds: as many as fill 32 KiB, the
// largest size the allocator keeps in a class of its own, with the
// slab's pointer and the allocator's header of a type with pointers.
const nodeBlock = (32<<10 - 16) / int(unsafe.Sizeof(node{}))

// tables returns the tables of the node's tree, from the slab it lies
// in (one allocation: the pointer arithmetic stays inside it).
func (n *node) tables() *tables {
	off := int(n.idx)%nodeBlock*int(unsafe.Sizeof(node{})) + int(unsafe.Offsetof(slab{}.nodes))
	return (*slab)(unsafe.Add(unsafe.Pointer(n), -off)).t
}

// node returns the node of index i.
func (t *tables) node(i int32) *node {
	return &t.slabs[int(i)/nodeBlock].nodes[int(i)%nodeBlock]
}

// look returns the node's look.
func (n *node) look() *look { return n.tables().looks[n.lookID] }

// parent returns the node's parent; nil for the root.
func (n *node) parent() *node {
	if n.up < 0 {
		return nil
	}
	return n.tables().node(n.up)
}

// children returns the node's children, in document order.
func (n *node) children() []*node {
	if n.kids == 0 {
		return nil
	}
	return n.tables().kids[n.kidsAt : n.kidsAt+n.kids : n.kidsAt+n.kids]
}

// href returns the href of an <a>; "" when none.
func (n *node) href() string {
	if n.hrefAt == 0 {
		return ""
	}
	t := n.tables()
	i := int(n.hrefAt) - 1
	return t.hrefText(t.hrefs[i/hrefBlock][i%hrefBlock])
}

// hrefText returns the href r is the place of.
func (t *tables) hrefText(r hrefRef) string {
	if r.n < 0 {
		return t.copies[r.at]
	}
	return t.text[r.at : r.at+r.n]
}

// hrefRef is where an href is: text[at:at+n], or copies[at] when n is -1.
type hrefRef struct{ at, n int32 }

// hrefBlock is how many hrefRefs a block holds: 8 KiB of them.
const hrefBlock = 1024

// addHref adds the href r to the table, and returns its index there.
func (t *tables) addHref(r hrefRef) int32 {
	i := int(t.numHrefs)
	if i%hrefBlock == 0 {
		t.hrefs = append(t.hrefs, make([]hrefRef, hrefBlock))
	}
	t.hrefs[i/hrefBlock][i%hrefBlock] = r
	t.numHrefs++
	return int32(i)
}

// setHref sets the node's href to s, a copy of what the page holds.
func (n *node) setHref(s string) {
	t := n.tables()
	t.copies = append(t.copies, s)
	n.hrefAt = t.addHref(hrefRef{at: int32(len(t.copies) - 1), n: -1}) + 1
}

// decodeHrefs replaces each href by decode of it, reading the table
// rather than the nodes (a link's is its node's alone). The href as read
// stays in the table, at a place of its own, as setHref of the decoded
// one would leave it: mayLinkTo compares every href the table holds.
func (t *tables) decodeHrefs(decode func(string) string) {
	for i := range int(t.numHrefs) {
		r := &t.hrefs[i/hrefBlock][i%hrefBlock]
		if h := t.hrefText(*r); h != "" {
			if d := decode(h); d != h {
				read := *r
				t.copies = append(t.copies, d)
				*r = hrefRef{at: int32(len(t.copies) - 1), n: -1}
				t.addHref(read)
			}
		}
	}
}

// look is what an element's name, id and class give. The records of a
// list repeat them, so elements alike share one look: a node the
// collector follows one pointer into rather than five.
type look struct {
	tag       string    // lower-case element name; "" for text
	atom      atom.Atom // its tag, when the atom table knows it
	id, class string
	key       uint64   // hash of the tag, the id and the stable classes (keyOf)
	index     int32    // its index in the tree's looks (node.lookID)
	classes   []string // stableClasses of class
	// nav: the element looks like navigation, mainish like the main
	// content (isNavLike, isMainLike); raw, hide and skip: its tag is
	// in rawTextElements (or is noscript), hides its content, or is in
	// skipRecordTags; void and endsP: its tag is in voidElements, or in
	// closesP. The tree builder asks the last two of every start tag.
	nav, mainish, raw, hide, skip, void, endsP bool
	// step is the element's step in a relative key (stepName), kept once
	// asked.
	step string
	// hintsAsked has the bit of each set of hints hasHint was asked
	// about, hintsFound of those the look is named by.
	hintsAsked, hintsFound uint8
}

// textLook is every text node's look; rootLook the root's. Both are
// shared by every tree, and never changed: their steps are set here.
var textLook, rootLook = &look{key: 1, step: "#text", index: 0}, &look{tag: "#root", step: "#root", index: 1}

// tag returns the node's lower-case element name; "" for text.
func (n *node) tag() string {
	if n.lookID == textLook.index {
		return ""
	}
	return n.look().tag
}

func (n *node) isText() bool { return n.lookID == textLook.index }

// recordable reports whether n may be (or start) a record: a visible
// element that can hold an item on its own.
func (n *node) recordable() bool { return !n.isText() && !n.skip && !n.hidden }

// inner returns the offsets of the element's content: from its first
// child to its last, so that stray end tags the parser ignored before its
// end (a "</div>" with no div open) stay out.
func (n *node) inner() (int, int) {
	if n.kids == 0 {
		return int(n.open), int(n.open)
	}
	k := n.children()
	return int(k[0].start), int(k[len(k)-1].end)
}

// voidElements have no content and no end tag.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "param": true, "source": true, "track": true,
	"wbr": true, "basefont": true, "bgsound": true, "frame": true, "keygen": true, "image": true,
}

// rawTextElements hold text, not markup; a "<!--" inside them is no
// comment, so nothing is ever inserted there.
var rawTextElements = map[string]bool{
	"script": true, "style": true, "textarea": true, "title": true, "xmp": true,
	"iframe": true, "noembed": true, "noframes": true, "plaintext": true,
}

// hiddenElements are not page content.
var hiddenElements = map[string]bool{
	"script": true, "style": true, "template": true, "title": true,
	"select": true, "option": true, "textarea": true,
}

// closesP are the start tags that end an open <p>.
var closesP = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "center": true, "details": true,
	"dialog": true, "dir": true, "div": true, "dl": true, "fieldset": true, "figcaption": true, "figure": true,
	"footer": true, "form": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"header": true, "hgroup": true, "hr": true, "main": true, "menu": true, "nav": true, "ol": true, "p": true,
	"pre": true, "section": true, "summary": true, "table": true, "ul": true, "li": true, "dd": true, "dt": true,
}

// scopeBoundaries stop the search for the element an end tag closes, as
// the HTML standard's "has an element in scope" does.
var scopeBoundaries = map[string]bool{
	"td": true, "th": true, "table": true, "caption": true, "marquee": true, "object": true,
	"applet": true, "template": true, "#root": true,
}

var tableParts = map[string]bool{
	"td": true, "th": true, "tr": true, "tbody": true, "thead": true, "tfoot": true, "caption": true, "table": true,
	"colgroup": true,
}

// treeBuilder builds the tree from the tokens of the text.
type treeBuilder struct {
	text  string
	t     *tables
	made  int // the nodes made (newNode)
	root  *node
	stack []*node
	// pending holds the children of the open elements, each element's
	// in a row, until it ends (closeNode).
	pending []*node
	paths   pathMixer
	foreign int // open svg and math elements
	// open counts the open elements by name, so that looking for one that
	// is not open costs nothing however deep the page nests.
	open openCounts
	seed maphash.Seed
	// comments are the comments holding annotation tags, for pages
	// annotated in part.
	comments []annotationComment
	// metaDescription is the page's <meta name="description">, which the
	// wrapper uses as the channel's description.
	metaDescription string
	// attrs are every element's attributes, undecoded, when the tree
	// keeps them (for selectors).
	attrs map[*node][]html.Attribute
	// looks keeps the looks made (lookOf), by tag, id and class joined
	// with NULs (lookKey is the buffer they are joined in).
	looks   map[string]*look
	lookKey []byte
	recent  [recentLooks]*look // looks the map gave (lookOfName)
	// numbered keeps a look made for each key with its digits read as 0s
	// (post-1, post-2…: numbered records), whose id and class are the
	// only parts of the look its alikes do not share.
	numbered map[string]*look
	zeroKey  []byte
	attrBuf  []rawAttr // the attributes of the tag read last
	// nameBuf and attrBytes hold the tag name and the attribute keys
	// and values of the tag read last that are not as the page writes
	// them: lower-cased (<TD VALIGN=top>) or decoded (href="?a=1&amp;b=2").
	nameBuf, attrBytes []byte
}

// maxLooks bounds the looks kept, and the numbered looks: a page whose
// every element has its own class (post-1, post-2…) gains nothing from
// keeping them, and one whose every element has its own kind of class
// nothing from keeping those.
const maxLooks = 4096

// annotationComment is an annotation comment already in the page.
type annotationComment struct {
	start, end int
	tags       []existingTag
}

// buildTree reads text into a tree. It never fails: any text is some tree.
//
// keepAttrs keeps every attribute of every element, which selectors need
// and the suggester does not.
func buildTree(text string, seed maphash.Seed, readComment func(body string) []existingTag, keepAttrs bool) *treeBuilder {
	b := &treeBuilder{text: text, seed: seed, paths: newPathMixer(seed)}
	b.t = newTables(text)
	// Every node but the root is a child, and each starts at a '<' or
	// before one (a text ends at a tag, or at the end): the children
	// laid out never outgrow this.
	b.t.kids = make([]*node, 0, 2*strings.Count(text, "<")+1)
	if keepAttrs {
		b.attrs = map[*node][]html.Attribute{}
	}
	b.root = b.newNode()
	b.root.lookID, b.root.up = rootLook.index, -1
	b.root.close, b.root.end = int32(len(text)), int32(len(text))
	b.stack = []*node{b.root}
	// The scanner reads the text in place: src is never written.
	src := unsafe.Slice(unsafe.StringData(text), len(text))
	s := newScanner(src, keepAttrs)
	pos := 0
	for {
		tt, raw := s.next()
		if tt == html.ErrorToken {
			break
		}
		start, end := pos, pos+len(raw)
		pos = end
		switch tt {
		case html.TextToken:
			b.addText(start, end)
		case html.StartTagToken, html.SelfClosingTagToken:
			// "<p>" has no attribute to read; most other tags' are read
			// from their raw text, without the copies TagAttr makes.
			attrs := b.attrBuf[:0]
			var name []byte
			var after int
			var plain, copied bool
			name, after, b.nameBuf, plain = plainTagName(raw, 1, b.nameBuf)
			read := plain && raw[after] == '>'
			if plain && !read && !keepAttrs {
				attrs, b.attrBytes, copied, read = readRawAttrs(attrs, raw, after, b.attrBytes)
			}
			// The attributes are slices of text when read from a tag the
			// scanner read in place (the tokenizer's tags are in its
			// buffer) and none was decoded.
			inPlace := read && s.z == nil && !copied
			if !read {
				z := s.tokenizer(raw)
				var hasAttr bool
				name, hasAttr = z.TagName()
				for hasAttr {
					var a rawAttr
					a.key, a.val, hasAttr = z.TagAttr()
					attrs = append(attrs, a)
				}
			}
			b.attrBuf = attrs
			link := string(name) == "a"
			n := b.newNode()
			n.start, n.open = int32(start), int32(end)
			var metaName, metaContent string
			var id, class []byte
			for _, a := range attrs {
				k, v := a.key, a.val
				if keepAttrs {
					b.attrs[n] = append(b.attrs[n], html.Attribute{Key: string(k), Val: string(v)})
				}
				switch string(k) {
				case "id":
					id = v
				case "class":
					class = v
				case "href":
					if link {
						b.setHref(n, v, inPlace)
					}
				case "role":
					if string(v) == "main" {
						n.inMain = true
					}
				case "name":
					metaName = string(v)
				case "content":
					metaContent = string(v)
				}
			}
			lk := b.lookOfName(name, id, class)
			n.lookID = lk.index
			if lk.tag == "meta" && strings.EqualFold(metaName, "description") && b.metaDescription == "" {
				b.metaDescription = strings.TrimSpace(metaContent)
			}
			b.startTag(n, lk, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			var name []byte
			var ok bool
			name, _, b.nameBuf, ok = plainTagName(raw, 2, b.nameBuf)
			if !ok {
				name, _ = s.tokenizer(raw).TagName()
			}
			a := atom.Lookup(name)
			b.endTag(internTag(name, a), a, start, end)
		case html.CommentToken:
			if readComment != nil && len(raw) > 7 {
				body := string(raw[4:])
				body = strings.TrimSuffix(strings.TrimSuffix(body, "-->"), "--!>")
				if tags := readComment(body); len(tags) > 0 {
					b.comments = append(b.comments, annotationComment{start: start, end: end, tags: tags})
				}
			}
		}
	}
	// The elements left open end where the last token does: a tag the
	// page's end cuts short ("<meta a='b' ") is no token, and an
	// annotation ending such an element after it would be read as part
	// of that tag.
	for len(b.stack) > 1 {
		b.pop(pos)
	}
	b.closeNode(b.root)
	return b
}

// newTables returns the tables of a tree of text, holding the looks
// every tree shares.
func newTables(text string) *tables {
	return &tables{text: text, looks: []*look{textLook, rootLook}}
}

// setHref sets the href of n to v: when inPlace, v is a slice of the
// text the tree is built from, and n keeps its offsets there (an href
// per link was a copy, and one more object for the collector);
// otherwise a copy in the tables.
func (b *treeBuilder) setHref(n *node, v []byte, inPlace bool) {
	switch {
	case len(v) == 0:
		n.hrefAt = 0
	case inPlace:
		at := int(uintptr(unsafe.Pointer(&v[0])) - uintptr(unsafe.Pointer(unsafe.StringData(b.text))))
		n.hrefAt = b.t.addHref(hrefRef{at: int32(at), n: int32(len(v))}) + 1
	default:
		n.setHref(string(v))
	}
}

// plainTagName reads the name of a start tag (from 1, after "<") or an
// end tag (from 2, after "</") from the tag's raw text, where the tokenizer
// would end it (at white space, '/' or '>'), and returns it with the offset
// after it. It says ok only when the name is plain, ASCII letters and
// digits as nearly every tag's is: then it is what the tokenizer's TagName
// gives, without the copy TagName makes of every name (it replaces NULs
// and lower-cases into a new slice). A name written in lower case is a
// slice of raw; one with capitals (<TD>, legacy pages' way) is lower-cased
// into buf, which is returned for the next call. Otherwise the caller asks
// TagName. FuzzPlainTagName checks it against TagName.
func plainTagName(raw []byte, from int, buf []byte) (name []byte, after int, _ []byte, ok bool) {
	upper := false
	for i := from; i < len(raw); i++ {
		switch c := raw[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z':
			upper = true
		case c == ' ', c == '\n', c == '\r', c == '\t', c == '\f', c == '/', c == '>':
			if !upper {
				return raw[from:i], i, buf, i > from
			}
			buf = appendLower(buf[:0], raw[from:i])
			return buf, i, buf, true
		default:
			return nil, 0, buf, false
		}
	}
	return nil, 0, buf, false
}

// appendLower appends b to dst with its ASCII capitals lower-cased, as the
// tokenizer lower-cases names and keys.
func appendLower(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// rawAttr is an attribute as TagAttr gives it: its key lower-cased, its
// value decoded.
type rawAttr struct{ key, val []byte }

// maxRawAttrs bounds the attributes readRawAttrs reads: it finds repeated
// keys by comparing each with those before it.
const maxRawAttrs = 32

// readRawAttrs appends to attrs the attributes of a start tag, read from
// the tag's raw text from offset at (after its name) as the tokenizer reads
// them (readTag, readTagAttrKey and readTagAttrVal in golang.org/x/net/html):
// a key repeated is dropped, and so is an empty one. It reads in place what
// TagAttr copies, but for keys written with capitals, which it lower-cases
// as TagAttr does, and values holding "&amp;" (a link's query string), which
// it decodes: those are written into buf (returned for the next call), and
// copied says so. It says ok only when what it read is what TagAttr gives:
// when the tag holds no NUL (TagAttr replaces it) or '\r' (it converts
// newlines), no '&' but in a value's "&amp;" (it decodes the other
// entities, by rules of its own in attributes), and at most maxRawAttrs
// attributes. Otherwise the caller asks TagAttr. FuzzRawAttrs checks it
// against TagAttr.
func readRawAttrs(attrs []rawAttr, raw []byte, at int, buf []byte) (_ []rawAttr, _ []byte, copied, ok bool) {
	if bytes.ContainsAny(raw, "\x00\r") {
		return attrs, buf, false, false
	}
	amp := bytes.IndexByte(raw, '&') >= 0
	// What is written into buf is never longer than raw: sized once, it
	// is never moved, and the slices of it stay valid.
	if cap(buf) < len(raw) {
		buf = make([]byte, 0, max(len(raw), 256))
	}
	buf = buf[:0]
	first := len(attrs)
	// The tag ends at its last byte, '>': the tokenizer gives no start tag
	// that the input ends in.
	end := len(raw) - 1
	pos := skipTagSpace(raw, at, end)
	for pos < end {
		// The key: up to white space, '/', '>' or '=', though a '=' that
		// starts it is part of it.
		keyStart := pos
		if raw[pos] == '=' {
			pos++
		}
		for c := raw[pos]; c != '=' && c != '/' && c != '>' && !isTagSpace(c); c = raw[pos] {
			pos++ // raw[end] is '>': the key ends there at the latest
		}
		key := raw[keyStart:pos]
		// The value, after '=' and white space; a '/' after the key is
		// passed over.
		var val []byte
		pos = skipTagSpace(raw, pos, end)
		switch c := raw[pos]; {
		case pos == end:
		case c == '/':
			pos++
		case c == '=':
			pos = skipTagSpace(raw, pos+1, end)
			switch q := raw[pos]; q {
			case '>':
			case '"', '\'':
				i := bytes.IndexByte(raw[pos+1:end], q)
				if i < 0 { // the tag ends within the quotes: no such start tag
					return attrs[:first], buf, false, false
				}
				val, pos = raw[pos+1:pos+1+i], pos+2+i
			default:
				valStart := pos
				for pos < end && !isTagSpace(raw[pos]) {
					pos++
				}
				val = raw[valStart:pos]
				if pos < end {
					pos++ // the white space ending it
				}
			}
		}
		if len(key) > 0 {
			if amp && bytes.IndexByte(key, '&') >= 0 {
				return attrs[:first], buf, false, false
			}
			for _, c := range key {
				if 'A' <= c && c <= 'Z' {
					from := len(buf)
					buf = appendLower(buf, key)
					key = buf[from:]
					break
				}
			}
			if amp && bytes.IndexByte(val, '&') >= 0 {
				from := len(buf)
				var ok bool
				if buf, ok = appendAmpDecoded(buf, val); !ok {
					return attrs[:first], buf[:0], false, false
				}
				val, copied = buf[from:], true
			}
			seen := false
			for _, a := range attrs[first:] {
				seen = seen || bytes.Equal(a.key, key)
			}
			if !seen {
				if len(attrs)-first == maxRawAttrs {
					return attrs[:first], buf, false, false
				}
				attrs = append(attrs, rawAttr{key, val})
			}
		}
		pos = skipTagSpace(raw, pos, end)
	}
	return attrs, buf, copied, true
}

// appendAmpDecoded appends val to dst with each "&amp;" read as '&', and
// says ok when every '&' in val starts one: the tokenizer decodes "&amp;"
// in a value always, the other entities by rules this does not mirror.
func appendAmpDecoded(dst, val []byte) (_ []byte, ok bool) {
	for {
		i := bytes.IndexByte(val, '&')
		if i < 0 {
			return append(dst, val...), true
		}
		if !bytes.HasPrefix(val[i:], []byte("&amp;")) {
			return dst, false
		}
		dst = append(append(dst, val[:i]...), '&')
		val = val[i+len("&amp;"):]
	}
}

// skipTagSpace returns the offset of the first byte from pos on, up to
// end, that is not white space in a tag.
func skipTagSpace(raw []byte, pos, end int) int {
	for pos < end && isTagSpace(raw[pos]) {
		pos++
	}
	return pos
}

// internTag returns a tag name without an allocation when it is one the
// atom table knows (every HTML element's): a page names a few elements
// over and over, and each copy would be garbage or, kept in its node,
// one more pointer for the collector to follow.
func internTag(name []byte, a atom.Atom) string {
	if a != 0 {
		return a.String()
	}
	return string(name)
}

func (b *treeBuilder) top() *node { return b.stack[len(b.stack)-1] }

// appendChild makes n, whose look is lk, the last child of the innermost
// open element, and sets what it takes from its parent and its look:
// its depth, path key and flags. While the tree is built, an element's
// kidsAt is the index of its last child; closeNode lays the children
// out in tables.kids.
func (b *treeBuilder) appendChild(n *node, lk *look) {
	p := b.top()
	n.up = p.idx
	p.kidsAt = n.idx
	p.kids++
	b.pending = append(b.pending, n)
	n.depth = p.depth + 1
	n.pathKey = b.paths.mix(p.pathKey, lk.key)
	n.raw, n.skip = lk.raw, lk.skip
	n.hidden = p.hidden || lk.hide
	n.inNav = p.inNav || lk.nav
	n.inMain = n.inMain || p.inMain || lk.mainish
}

func (b *treeBuilder) addText(start, end int) {
	p := b.top()
	if p.kids > 0 {
		if last := b.t.node(p.kidsAt); last.isText() && int(last.end) == start {
			last.close, last.end = int32(end), int32(end)
			return
		}
	}
	n := b.newNode()
	n.lookID = textLook.index
	n.start, n.open, n.close, n.end = int32(start), int32(start), int32(end), int32(end)
	b.appendChild(n, textLook)
}

// newNode returns a zero node with the next index, from a slab of them:
// a page has a node per element and text, which one allocation each made
// slow to build. A slab larger than 32 KiB would take whole pages of 8
// KiB: 256 nodes of 136 or 152 bytes took five (40 KiB) either way.
func (b *treeBuilder) newNode() *node {
	i := b.made
	if i%nodeBlock == 0 {
		b.t.slabs = append(b.t.slabs, &slab{t: b.t})
	}
	b.made++
	n := &b.t.slabs[i/nodeBlock].nodes[i%nodeBlock]
	n.idx, n.up = int32(i), notInTree
	return n
}

// notInTree is the parent index of a node made and left out of the tree
// (html, head and body, whose content belongs to the page).
const notInTree = -2

// all yields every node of the tree but the root, in document order:
// the order they were made in, which appendChild follows.
func (b *treeBuilder) all(yield func(*node) bool) {
	b.each(0, yield)
}

// withRoot yields the root, then every node of the tree as all does.
func (b *treeBuilder) withRoot(yield func(*node) bool) {
	b.each(-1, yield)
}

// each yields the nodes made whose parent index is at least minUp.
func (b *treeBuilder) each(minUp int32, yield func(*node) bool) {
	for i, s := range b.t.slabs {
		nodes := s.nodes[:min(nodeBlock, b.made-i*nodeBlock)]
		for j := range nodes {
			if n := &nodes[j]; n.up >= minUp && !yield(n) {
				return
			}
		}
	}
}

// startTag places a start tag, first ending the elements its start ends.
func (b *treeBuilder) startTag(n *node, lk *look, selfClosing bool) {
	switch lk.tag { // n's tag, read from its look as it is at hand
	case "html", "head", "body": // their content simply belongs to the page
		return
	}
	b.implyEnds(lk.tag, lk.endsP, int(n.start))
	b.appendChild(n, lk)
	if lk.void || (selfClosing && b.foreign > 0) {
		n.close, n.end = n.open, n.open
		b.closeNode(n)
		return
	}
	if lk.tag == "svg" || lk.tag == "math" {
		b.foreign++
	}
	b.stack = append(b.stack, n)
	b.open.add(lk.atom, lk.tag, 1)
}

// implyEnds ends the open elements that the start tag of tag ends; endsP
// says whether tag is in closesP.
func (b *treeBuilder) implyEnds(tag string, endsP bool, at int) {
	if b.foreign > 0 {
		return
	}
	if endsP {
		b.closeIfOpen(at, pStops, atom.P)
	}
	switch tag {
	case "li":
		b.closeIfOpen(at, liStops, atom.Li)
	case "dt", "dd":
		b.closeIfOpen(at, dlStops, atom.Dt, atom.Dd)
	case "tr":
		b.closeIfOpen(at, tableStops, atom.Tr)
	case "td", "th":
		b.closeIfOpen(at, rowStops, atom.Td, atom.Th)
	case "tbody", "thead", "tfoot":
		b.closeIfOpen(at, tableStops, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr)
	case "option":
		if b.top().tag() == "option" {
			b.pop(at)
		}
	case "h1", "h2", "h3", "h4", "h5", "h6":
		if isHeading(b.top().tag()) {
			b.pop(at)
		}
	case "a":
		b.closeIfOpen(at, scopeBoundaries, atom.A)
	}
}

var (
	tableStops = map[string]bool{"table": true, "#root": true}
	rowStops   = map[string]bool{"tr": true, "table": true, "#root": true}
	pStops     = withScope("button")
	liStops    = withScope("ul", "ol", "menu")
	dlStops    = withScope("dl")
)

// withScope returns the scope boundaries and the given elements.
func withScope(tags ...string) map[string]bool {
	m := make(map[string]bool, len(scopeBoundaries)+len(tags))
	for k := range scopeBoundaries {
		m[k] = true
	}
	for _, t := range tags {
		m[t] = true
	}
	return m
}

// closeIfOpen ends the innermost open element named one of tags (tags
// the atom table knows: an element is named one only when its atom is
// it), and everything open inside it, unless one of stops comes first.
func (b *treeBuilder) closeIfOpen(at int, stops map[string]bool, tags ...atom.Atom) {
	anyOpen := false
	for _, t := range tags {
		anyOpen = anyOpen || b.open.count(t, "") > 0
	}
	if !anyOpen {
		return
	}
	for i := len(b.stack) - 1; i > 0; i-- {
		n := b.stack[i]
		for _, want := range tags {
			if n.look().atom == want {
				for len(b.stack) > i {
					b.pop(at)
				}
				return
			}
		}
		if stops[n.tag()] {
			return
		}
	}
}

// openCounts counts the open elements by tag: those whose tag the atom
// table knows in a table of their own keyed by the atom (open addressing;
// a string-keyed map hashed the name at each start and end tag), the
// others (custom elements…) in a map by name.
type openCounts struct {
	slots [openSlots]struct {
		a atom.Atom // 0: free
		n int32
	}
	names map[string]int
}

// openSlots is the size of openCounts' table: a power of two more than
// twice the atoms there are, so that it never fills and a probe is short.
const openSlots = 1 << 10

// slot returns the count of the elements of atom a (not 0), taking a free
// slot for it when it has none.
func (o *openCounts) slot(a atom.Atom) *int32 {
	i := uint32(a) * 0x9e3779b1 >> (32 - 10)
	for {
		s := &o.slots[i]
		if s.a == a {
			return &s.n
		}
		if s.a == 0 {
			s.a = a
			return &s.n
		}
		i = (i + 1) % openSlots
	}
}

// count returns how many elements named tag, of atom a (0 when the atom
// table does not know it), are open.
func (o *openCounts) count(a atom.Atom, tag string) int {
	if a != 0 {
		return int(*o.slot(a))
	}
	return o.names[tag]
}

// add adds d to the count of the open elements named tag, of atom a.
func (o *openCounts) add(a atom.Atom, tag string, d int) {
	if a != 0 {
		*o.slot(a) += int32(d)
		return
	}
	if o.names == nil {
		o.names = map[string]int{}
	}
	o.names[tag] += d
}

// pop ends the innermost open element at offset at, without an end tag.
func (b *treeBuilder) pop(at int) {
	n := b.top()
	n.close, n.end = int32(at), int32(at)
	b.stack = b.stack[:len(b.stack)-1]
	b.closeNode(n)
	lk := n.look()
	b.open.add(lk.atom, lk.tag, -1)
	if lk.tag == "svg" || lk.tag == "math" {
		b.foreign--
	}
}

// endTag closes the element an end tag names, and the elements open inside
// it; an end tag with no such element open is ignored, as in HTML. a is
// the tag's atom (0 when the atom table does not know it).
func (b *treeBuilder) endTag(tag string, a atom.Atom, start, end int) {
	switch a {
	case atom.Html, atom.Head, atom.Body, atom.Br:
		return
	}
	if b.open.count(a, tag) == 0 {
		return
	}
	for i := len(b.stack) - 1; i > 0; i-- {
		n := b.stack[i]
		// The open element's look, from the tables at hand: an element
		// is named tag when its atom is a (or, for a name the atom table
		// does not know, its tag is tag).
		if lk := b.t.looks[n.lookID]; lk.atom == a && (a != 0 || lk.tag == tag) {
			for len(b.stack) > i+1 {
				b.pop(start)
			}
			n.close, n.end = int32(start), int32(end)
			b.stack = b.stack[:i]
			b.closeNode(n)
			b.open.add(a, tag, -1)
			if a == atom.Svg || a == atom.Math {
				b.foreign--
			}
			return
		}
		if tableParts[tag] {
			if n.tag() == "table" {
				return
			}
			continue
		}
		if scopeBoundaries[n.tag()] {
			return
		}
	}
}

// closeNode lays out the children of n, which has ended, and sums its
// subtree's aggregates: its children's (those that ended before it, and
// its texts, counted here) and its own. Each node is summed as it ends,
// while it and its children are fresh in the caches: a pass over the
// nodes of a long page once it was read, and another back, waited for
// memory at each node.
func (b *treeBuilder) closeNode(n *node) {
	t := b.t
	kids := b.pending[len(b.pending)-int(n.kids):]
	b.pending = b.pending[:len(b.pending)-int(n.kids)]
	n.kidsAt = int32(len(t.kids))
	t.kids = append(t.kids, kids...)
	if n.hidden {
		return // nothing hidden is counted
	}
	// Tags are read from the looks at hand, not through each node's slab.
	link := n.hrefAt != 0 && t.looks[n.lookID].atom == atom.A
	for _, c := range kids {
		if c.hidden {
			continue
		}
		if c.isText() {
			c.textBytes = int32(visibleBytes(b.text[c.start:c.end]))
			if link {
				c.linkTextBytes = c.textBytes
			}
		}
		n.textBytes += c.textBytes
		if !link {
			n.linkTextBytes += c.linkTextBytes
		}
		n.links += c.links
		n.headings += c.headings
		n.images += c.images
	}
	if n.up < 0 {
		return // the root is none of these
	}
	switch lk := t.looks[n.lookID]; {
	case link:
		n.links++
		n.linkTextBytes = n.textBytes
	case isHeading(lk.tag):
		n.headings++
	case lk.atom == atom.Img:
		n.images++
	}
}

func isHeading(tag string) bool {
	return len(tag) == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6'
}

// visibleBytes counts the bytes of text that are not whitespace. Below
// the space are white space and the controls the wrapper drops (XML
// forbids them): neither is text a reader sees.
//
// It reads eight bytes at a time (the texts of a long page are most of
// its bytes): a byte is above the space when its high bit is set, or
// when its low seven bits plus 0x5f carry into it; and whether any is
// '&', which the text needs to be "&nbsp;" alone, is the classic test
// for a zero byte in the word xored with '&'s.
func visibleBytes(s string) int {
	const ones, highs, spaceUp, amps = 0x0101010101010101, 0x8080808080808080, 0x5f5f5f5f5f5f5f5f, 0x2626262626262626
	n, amp := 0, false
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		n += bits.OnesCount64((x | (x&^highs + spaceUp)) & highs)
		y := x ^ amps
		amp = amp || (y-ones)&^y&highs != 0
	}
	for ; i < len(s); i++ {
		if c := s[i]; c > ' ' {
			n++
			amp = amp || c == '&'
		}
	}
	if amp && strings.Contains(s, "&nbsp;") && strings.TrimSpace(strings.ReplaceAll(s, "&nbsp;", "")) == "" {
		return 0
	}
	return n
}

// lookOfName is lookOf of the tag named name: the name is looked up
// in the atom table (and a copy made of one it does not know) only for
// a look not made before.
//
// The looks the map gave are kept in b.recent by a few of their bytes,
// and one found there with that very tag, id and class is the one the map
// holds for them (no look there is any other): most start tags are found
// so, without the key joined and hashed, which the map's lookup was a
// tenth of building a dense page's tree.
func (b *treeBuilder) lookOfName(name, id, class []byte) *look {
	slot := &b.recent[recentSlot(name, id, class)]
	if lk := *slot; lk != nil && lk.tag == string(name) && lk.id == string(id) && lk.class == string(class) {
		return lk
	}
	if lk := b.looks[string(b.keyOfLook(name, id, class))]; lk != nil {
		*slot = lk
		return lk
	}
	return b.lookOf(internTag(name, atom.Lookup(name)), id, class)
}

// recentLooks is the size of treeBuilder.recent: 1 << recentBits.
const (
	recentBits  = 8
	recentLooks = 1 << recentBits
)

// recentSlot returns the place in treeBuilder.recent of the look of a
// start tag: a hash of the lengths and end bytes of its name, id and class.
func recentSlot(name, id, class []byte) int {
	h := uint32(len(name)) | uint32(len(id))<<8 | uint32(len(class))<<16
	if len(name) > 0 {
		h = h*31 + uint32(name[0])<<8 + uint32(name[len(name)-1])
	}
	if len(id) > 0 {
		h = h*31 + uint32(id[0])<<8 + uint32(id[len(id)-1])
	}
	if len(class) > 0 {
		h = h*31 + uint32(class[0])<<8 + uint32(class[len(class)-1])
	}
	return int(h * 0x9e3779b1 >> (32 - recentBits))
}

// keyOfLook writes into b.lookKey, and returns, the key of a look in
// b.looks: the tag, the id and the class joined with NULs.
func (b *treeBuilder) keyOfLook(tag, id, class []byte) []byte {
	b.lookKey = append(append(append(append(b.lookKey[:0], tag...), 0), id...), 0)
	b.lookKey = append(b.lookKey, class...)
	return b.lookKey
}

// lookOf returns the look of an element of the given tag, id and class,
// the one made before for an element alike when there is one.
func (b *treeBuilder) lookOf(tag string, id, class []byte) *look {
	if lk := b.looks[string(b.keyOfLook([]byte(tag), id, class))]; lk != nil {
		return lk
	}
	if b.looks == nil {
		b.looks, b.numbered = map[string]*look{}, map[string]*look{}
	}
	numbered := b.zeroDigits(len(tag) + 1)
	var lk *look
	if like := b.numbered[string(b.zeroKey)]; numbered && like != nil {
		// Numbered alike: only the id and the class differ.
		c := *like
		c.id, c.class = string(id), string(class)
		lk = &c
	} else {
		lk = &look{tag: tag, atom: atom.Lookup([]byte(tag)), id: string(id), class: string(class)}
		lk.classes = stableClasses(lk.class)
		lk.key = b.keyOf(tag, lk.id, lk.classes)
		lk.nav, lk.mainish = isNavLike(tag, lk), isMainLike(tag, lk)
		lk.raw, lk.skip = rawTextElements[tag] || tag == "noscript", skipRecordTags[tag]
		lk.hide = hiddenElements[tag] || lk.raw
		lk.void, lk.endsP = voidElements[tag], closesP[tag]
		if numbered && len(b.numbered) < maxLooks {
			b.numbered[string(b.zeroKey)] = lk
		}
	}
	if b.t == nil {
		b.t = newTables("")
	}
	lk.index = int32(len(b.t.looks))
	b.t.looks = append(b.t.looks, lk)
	if len(b.looks) < maxLooks {
		b.looks[string(b.lookKey)] = lk
	}
	return lk
}

// zeroDigits writes b.lookKey into b.zeroKey with every ASCII digit from
// offset from on (the id and the class: h2 and h3 differ) made 0, and
// reports whether it made one. Elements whose ids and classes differ in
// their digits alone (post-1, post-2…) share all of a look but its id and class:
// keyOf drops the id's digits and stableClasses the classes holding one,
// and the words isNavLike and isMainLike look for hold none, so that a
// word holding a digit is never one of them, and ends like one only when
// it ends in the same letters. An ASCII digit is never part of another
// character in the encodings pages come in, so making each 0 changes no
// other character.
func (b *treeBuilder) zeroDigits(from int) bool {
	b.zeroKey = append(b.zeroKey[:0], b.lookKey...)
	found := false
	for i := from; i < len(b.zeroKey); i++ {
		if c := b.zeroKey[i]; isDigit(c) && c != '0' {
			b.zeroKey[i], found = '0', true
		}
	}
	return found
}

// keyOf hashes the tag, the id and the stable classes of an element:
// those without digits, and not among the words that mark a state or an
// alternation (odd, even, first, active…), which vary between records of
// one list.
func (b *treeBuilder) keyOf(tag, id string, classes []string) uint64 {
	var h maphash.Hash
	h.SetSeed(b.seed)
	h.WriteString(tag)
	if id != "" {
		// Ids tell apart the blocks of a layout (#alpha, #beta); their
		// digits are dropped so that numbered records (#post-412) agree.
		h.WriteByte('#')
		h.WriteString(strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, strings.ToLower(id)))
	}
	for _, c := range classes {
		h.WriteByte('.')
		h.WriteString(c)
	}
	return h.Sum64()
}

// stableClasses returns the class tokens that name a role rather than a
// state, lower-cased and sorted.
func stableClasses(class string) []string {
	if class == "" {
		return nil
	}
	var out []string
	for _, c := range strings.Fields(strings.ToLower(class)) {
		if strings.ContainsAny(c, "0123456789") || unstableClass[c] {
			continue
		}
		out = append(out, c)
	}
	sortStrings(out)
	return out
}

var unstableClass = map[string]bool{
	"odd": true, "even": true, "first": true, "last": true, "alt": true, "active": true, "current": true,
	"selected": true, "hover": true, "sticky": true, "new": true, "read": true, "unread": true, "hot": true,
	"open": true, "closed": true, "visible": true, "hidden": true, "show": true, "in": true, "clearfix": true,
	"sale": true, "instock": true, "outofstock": true, "featured": true, "no-image": true, "has-post-thumbnail": true,
	"is-active": true, "is-current": true, "lead": true, "self": true, "link": true, "locked": true,
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// pathMixer hashes two hashes into one: a node's path key from its
// parent's and its own key. It folds the 128-bit product of the two,
// each first xored with a secret drawn from the tree's seed (wyhash's
// mixing step): path keys are only compared with one another, and the
// runtime's hash of the pair (maphash.Comparable) was a tenth of
// building the tree of a page of a million nodes.
type pathMixer struct{ x, y uint64 }

func newPathMixer(seed maphash.Seed) pathMixer {
	return pathMixer{maphash.Comparable(seed, uint64(0x9e3779b97f4a7c15)), maphash.Comparable(seed, uint64(0xd6e8feb86659fd93))}
}

func (m pathMixer) mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a^m.x, b^m.y)
	return hi ^ lo
}

// navWords name the parts of a page around its content.
var navWords = []string{"nav", "menu", "footer", "header", "sidebar", "widget", "breadcrumb", "pager", "pagination",
	"toolbar", "tab", "social", "share", "cookie", "skip", "topbar", "masthead", "banner", "crumb", "facet", "filter"}

func isNavLike(tag string, lk *look) bool {
	switch tag {
	case "nav", "header", "footer", "aside", "select", "menu":
		return true
	}
	for _, s := range [2]string{lk.id, lk.class} {
		for tok := range strings.FieldsSeq(strings.ToLower(s)) {
			for word := range strings.FieldsFuncSeq(tok, func(r rune) bool { return r == '-' || r == '_' }) {
				word = strings.TrimSuffix(word, "s")
				for _, w := range navWords {
					if word == w || (w == "nav" || w == "menu") && strings.HasSuffix(word, w) {
						return true
					}
				}
			}
		}
	}
	return false
}

func isMainLike(tag string, lk *look) bool {
	if tag == "main" {
		return true
	}
	for _, s := range [2]string{lk.id, lk.class} {
		for tok := range strings.FieldsSeq(strings.ToLower(s)) {
			switch tok {
			case "content", "main", "main-content", "maincontent", "site-main", "page-content", "main-column", "content-area", "mw-content-text", "bodycontent":
				return true
			}
		}
	}
	return false
}
