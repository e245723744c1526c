package sanitize

import (
	"bytes"
	"io"
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLText returns what HTML(fragment, base) and Text of its result
// return, in one tokenization of the fragment instead of three (HTML's
// tree-building parse and render, then Text's tokenizer) before
// bluemonday's own.
//
// The one pass resolves URL attributes, balances the fragment and collects
// its text, and hands its output to bluemonday, which stays the only
// authority on what is allowed. It is taken only when the fragment is
// markup the HTML tree builder would leave as it is: elements from a short
// list of common ones (simpleElements), each closed by its own end tag or
// left open at the end, with none of the implied closings the tree builder
// performs (a block inside a <p>, an <li> in an <li>, an <a> in an <a>).
// Anything else (tables, misnested tags, scripts, unknown elements, a
// doctype) is handed to HTML and Text as before, so the result is the same
// byte for byte either way; FuzzHTMLText checks that it is.
//
// bluemonday cannot make URLs absolute itself (its RewriteSrc hook sees
// only src attributes, and its scheme policies only absolute URLs), so
// it cannot be the one tokenization; docs/benchmarks/wrapper.md measures
// what this pass gains.
//
// Nor does bluemonday always read the one pass's markup again: while the
// pass writes it, it also writes what bluemonday would make of it (see
// known), from bluemonday's own output for each of its tags (or, for a tag
// with plain URLs, for its shape), kept in decisions. Only when a tag's
// fate is one this does not follow does bluemonday read the whole markup.
//
// The one pass reads plain markup with a byte scanner (plainScan) and
// anything else with x/net/html's tokenizer; both give it the same tokens.
func HTMLText(fragment string, base *url.URL) (string, string) {
	if base == nil {
		h := HTML(fragment, nil)
		return h, Text(h)
	}
	bufs := bufferPool.Get().(*buffers)
	defer bufferPool.Put(bufs)
	if !bufs.onePass(fragment, base) {
		h := HTML(fragment, base)
		return h, Text(h)
	}
	if !bufs.known {
		bufs.clean.Reset()
		if err := policy.SanitizeReaderToWriter(bytes.NewReader(bufs.markup.Bytes()), &bufs.clean); err != nil {
			h := HTML(fragment, base) // writing to a bytes.Buffer does not fail; be safe anyway
			return h, Text(h)
		}
	}
	return string(bytes.TrimSpace(WithoutBidi(bufs.clean.Bytes()))), collapse(bufs.text.Bytes())
}

// buffers are one call's working space, pooled: the balanced markup with
// resolved URLs, bluemonday's output (written as the markup is, while
// known), the text and the open elements.
type buffers struct {
	markup, clean, text bytes.Buffer
	open                []atom.Atom
	// urls are where the start tag being written holds plain URLs, which
	// its decision's key leaves out (see shapeKey).
	urls []urlSpan
	// attrs and scratch are plainScan's: a start tag's attributes, read
	// before any is written, and the bytes handed to the handlers.
	attrs   []plainAttr
	scratch []byte
	// key is the start tag's decision key being built.
	key []byte
	// resolver makes the fragment's URLs absolute.
	resolver Resolver
	// known is true while clean holds what bluemonday makes of the markup
	// so far; skip is then bluemonday's stack of end tags to drop.
	known bool
	skip  []atom.Atom
	// counts are how many elements of each watched class (watched) are
	// open, so that a start tag is checked in constant time however deep
	// the nesting.
	counts [numWatched]int
}

// The classes of open elements that opens checks for.
const (
	openP = iota
	openA
	openHeading
	openLi
	openDtDd
	numWatched
)

// watched returns the class of element a, or -1.
func watched(a atom.Atom) int {
	switch a {
	case atom.P:
		return openP
	case atom.A:
		return openA
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return openHeading
	case atom.Li:
		return openLi
	case atom.Dt, atom.Dd:
		return openDtDd
	}
	return -1
}

func (b *buffers) push(a atom.Atom) {
	b.open = append(b.open, a)
	if c := watched(a); c >= 0 {
		b.counts[c]++
	}
}

func (b *buffers) pop() {
	a := b.open[len(b.open)-1]
	b.open = b.open[:len(b.open)-1]
	if c := watched(a); c >= 0 {
		b.counts[c]--
	}
}

var bufferPool = sync.Pool{New: func() any { return &buffers{open: make([]atom.Atom, 0, 16)} }}

// maxPooled is the largest buffer kept in the pool: one huge description
// should not pin its memory for good.
const maxPooled = 64 << 10

func (b *buffers) reset() {
	for _, buf := range []*bytes.Buffer{&b.markup, &b.clean, &b.text} {
		if buf.Cap() > maxPooled {
			*buf = bytes.Buffer{}
		}
		buf.Reset()
	}
	if cap(b.open) > maxPooled/4 { // atoms are 4 bytes
		b.open = nil
	}
	b.open = b.open[:0]
	b.counts = [numWatched]int{}
	b.known, b.skip = true, b.skip[:0]
	b.urls, b.attrs = b.urls[:0], b.attrs[:0]
}

// element kinds in simpleElements.
const (
	inline   = iota + 1 // phrasing content: no implied closings
	block               // closes an open <p> in the tree builder
	void                // no content, no end tag
	listItem            // <li>, <dt>, <dd>: close an open one of their kind
)

// simpleElements are the elements the one pass handles: common markup of
// descriptions for which the tree builder's only work, when the fragment
// is well nested, is to close what is left open at the end. Elements
// bluemonday removes keep their text in its output; none of those is a
// block element for Text, so the text is the same whether or not
// bluemonday keeps them.
var simpleElements = map[atom.Atom]int{
	atom.A: inline, atom.Abbr: inline, atom.B: inline, atom.Big: inline, atom.Cite: inline,
	atom.Code: inline, atom.Del: inline, atom.Dfn: inline, atom.Em: inline, atom.Font: inline,
	atom.I: inline, atom.Ins: inline, atom.Kbd: inline, atom.Mark: inline, atom.Q: inline,
	atom.S: inline, atom.Samp: inline, atom.Small: inline, atom.Span: inline, atom.Strike: inline,
	atom.Strong: inline, atom.Sub: inline, atom.Sup: inline, atom.Time: inline, atom.Tt: inline,
	atom.U: inline, atom.Var: inline,
	atom.Blockquote: block, atom.Div: block, atom.Dl: block, atom.H1: block, atom.H2: block,
	atom.H3: block, atom.H4: block, atom.H5: block, atom.H6: block, atom.Ol: block, atom.P: block,
	atom.Ul: block,
	atom.Br: void, atom.Hr: void, atom.Img: void, atom.Wbr: void,
	atom.Li: listItem, atom.Dt: listItem, atom.Dd: listItem,
}

// onePass writes the fragment's balanced markup, URLs resolved, to
// b.markup and its text to b.text, and reports false when the fragment is
// not simple enough (see HTMLText) for the result to be HTML's. It reads
// the fragment with plainScan, and with x/net/html's tokenizer when
// plainScan meets markup it does not read.
func (b *buffers) onePass(fragment string, base *url.URL) bool {
	b.reset()
	if ok, read := b.plainScan(fragment, base); read {
		return ok
	}
	b.reset()
	return b.tokenize(fragment, base)
}

// tokenize is onePass over x/net/html's tokens.
func (b *buffers) tokenize(fragment string, base *url.URL) bool {
	z := html.NewTokenizer(strings.NewReader(fragment))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return false
			}
			b.end()
			return true
		case html.TextToken:
			if !b.textToken(z.Text()) {
				return false
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			kind, from, ok := b.startTag(a)
			if !ok {
				return false
			}
			for hasAttr {
				var key, val []byte
				key, val, hasAttr = z.TagAttr()
				b.attr(a, key, val, base)
			}
			b.closeStartTag(a, kind, from)
		case html.EndTagToken:
			name, _ := z.TagName()
			if !b.endTagToken(atom.Lookup(name)) {
				return false
			}
		case html.CommentToken:
			// bluemonday drops comments and Text skips them.
		default: // a doctype
			return false
		}
	}
}

// textToken handles a text token, its entities decoded; false when the
// tree builder would change it.
func (b *buffers) textToken(t []byte) bool {
	if bytes.IndexByte(t, 0) >= 0 { // the tree builder drops NULs
		return false
	}
	from := b.markup.Len()
	escape(&b.markup, t)
	if b.known { // bluemonday writes text as it reads it back, escaped alike
		b.clean.Write(b.markup.Bytes()[from:])
	}
	b.text.Write(t)
	return true
}

// startTag begins a start tag of element a, whose attributes follow (attr)
// and which closeStartTag ends; ok is false when the one pass does not
// take the element there. from is where the tag begins in b.markup.
func (b *buffers) startTag(a atom.Atom) (kind, from int, ok bool) {
	kind = simpleElements[a]
	if kind == 0 || !b.opens(a, kind) {
		return 0, 0, false
	}
	from = b.markup.Len()
	b.markup.WriteByte('<')
	b.markup.WriteString(a.String())
	b.urls = b.urls[:0]
	return kind, from, true
}

// closeStartTag ends the start tag that startTag began at from.
func (b *buffers) closeStartTag(a atom.Atom, kind, from int) {
	if kind == void {
		b.markup.WriteString("/>") // as html.Render writes it: bluemonday keeps the form
	} else {
		b.markup.WriteByte('>')
		b.push(a)
	}
	if b.known {
		b.sanitizeStart(b.markup.Bytes()[from:], from, a, kind == void)
	}
	if blockElements[a] {
		b.text.WriteByte(' ')
	}
}

// endTagToken handles an end tag of element a; false when it does not
// close the innermost open element (the tree builder's adoption and
// recovery rules).
func (b *buffers) endTagToken(a atom.Atom) bool {
	if len(b.open) == 0 || b.open[len(b.open)-1] != a {
		return false
	}
	b.pop()
	b.endTag(a)
	return true
}

// end closes what the fragment left open, at its end.
func (b *buffers) end() {
	for i := len(b.open) - 1; i >= 0; i-- {
		b.endTag(b.open[i])
	}
}

// opens reports whether a start tag of element a leaves the open elements
// as the tree builder would: it would close an open <p> before a block or
// list item, an <li> (or <dt>, <dd>) before another in the same list, a
// heading before a heading, an <a> before an <a>.
func (b *buffers) opens(a atom.Atom, kind int) bool {
	n := &b.counts
	switch {
	case n[openP] > 0 && (kind == block || kind == listItem || a == atom.Hr),
		n[openA] > 0 && a == atom.A,
		n[openHeading] > 0 && watched(a) == openHeading,
		n[openLi] > 0 && a == atom.Li,
		n[openDtDd] > 0 && watched(a) == openDtDd:
		return false
	}
	return true
}

func (b *buffers) endTag(a atom.Atom) {
	from := b.markup.Len()
	b.markup.WriteString("</")
	b.markup.WriteString(a.String())
	b.markup.WriteByte('>')
	if b.known {
		b.sanitizeEnd(b.markup.Bytes()[from:], a)
	}
	if blockElements[a] {
		b.text.WriteByte(' ')
	}
}

// attr writes one attribute of element a, its URL resolved as
// resolveTree resolves it, and notes where a plain URL (see plainURL) of
// an attribute in shapeURLAttrs went.
func (b *buffers) attr(a atom.Atom, key, val []byte, base *url.URL) {
	b.markup.WriteByte(' ')
	b.markup.Write(key)
	b.markup.WriteString(`="`)
	switch k := string(key); {
	case urlAttrs[k]:
		v, plain := b.resolver.Resolve(base, string(val))
		from := b.markup.Len()
		escapeString(&b.markup, v)
		if shapeURLAttrs[elementAttr{a, k}] && (plain || plainURL(v)) {
			b.urls = append(b.urls, urlSpan{from, b.markup.Len(), strings.HasPrefix(v, "https:")})
		}
	case k == "srcset":
		escapeString(&b.markup, resolveSrcset(base, string(val)))
	default:
		escape(&b.markup, val)
	}
	b.markup.WriteByte('"')
}

// escape writes s escaped as html.Render escapes text and attribute
// values, so that bluemonday reads back exactly what the tokenizer read.
func escape(w *bytes.Buffer, s []byte) {
	for len(s) > 0 {
		i := bytes.IndexAny(s, escaped)
		if i < 0 {
			w.Write(s)
			return
		}
		w.Write(s[:i])
		w.WriteString(escapeOf(s[i]))
		s = s[i+1:]
	}
}

// escapeString is escape of a string.
func escapeString(w *bytes.Buffer, s string) {
	for len(s) > 0 {
		i := strings.IndexAny(s, escaped)
		if i < 0 {
			w.WriteString(s)
			return
		}
		w.WriteString(s[:i])
		w.WriteString(escapeOf(s[i]))
		s = s[i+1:]
	}
}

// escaped are the bytes that escape replaces, each by escapeOf.
const escaped = "&'<>\"\r"

func escapeOf(c byte) string {
	switch c {
	case '&':
		return "&amp;"
	case '\'':
		return "&#39;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	case '"':
		return "&#34;"
	default: // '\r'
		return "&#13;"
	}
}

// collapse is Text's rule (SingleLine): runs of white space, as
// unicode.IsSpace says, become one space, none at the ends, bidi controls
// are dropped and each byte that is not valid UTF-8 becomes U+FFFD (so
// that dropping a control never joins its neighbours into a new
// character). It builds the result with one allocation.
func collapse(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	space := false // a space is pending, written before the next word
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf { // ASCII: unicode.IsSpace's six, no bidi control
			if asciiSpace[c] {
				space = sb.Len() > 0
				i++
				continue
			}
			j := i + 1 // a run of ASCII that is not space, written at once
			for j < len(b) && b[j] < utf8.RuneSelf && !asciiSpace[b[j]] {
				j++
			}
			if space {
				sb.WriteByte(' ')
				space = false
			}
			sb.Write(b[i:j])
			i = j
			continue
		}
		c, size := utf8.DecodeRune(b[i:])
		if unicode.IsSpace(c) {
			space = sb.Len() > 0
		} else if !IsBidiControl(c) {
			if space {
				sb.WriteByte(' ')
				space = false
			}
			sb.WriteRune(c)
		}
		i += size
	}
	return sb.String()
}

// asciiSpace are the ASCII bytes unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
