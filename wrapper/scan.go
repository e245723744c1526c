package wrapper

import (
	"strings"
	"sync"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo/values"
)

// comment is an HTML comment holding annotation tags.
type comment struct {
	start, end         int // offsets of "<!--" and just after "-->"
	bodyStart, bodyEnd int
	firstTag, lastTag  int // the range of its tags in scanned.tags, lastTag exclusive
}

// scanned is what one pass over the page finds: the annotation comments and
// their tags, and the few page elements the defaults need.
type scanned struct {
	comments []comment
	tags     []tag
	// all are the stretches of the page that are comments, annotations or
	// not, each [start, end): what the wrapper does not read as page text.
	// Only NotPageText needs them; Wrap's scan leaves them out.
	all             []commentSpan
	title           string // the first <title>'s text
	base            string // the first <base href>
	metaDescription string // <meta name="description" content>
	// attrs backs the tags' attributes (see tagParser.attrs).
	attrs []attr
}

// scans keeps the slices of finished scans for the next one: the tags,
// comments and attributes of a page were most of what finding its
// annotations allocated.
var scans = sync.Pool{New: func() any { return new(scanned) }}

// maxPooledTags bounds the scans kept: one of a page with many more
// annotations than usual is left to the garbage collector rather than
// held for every later page.
const maxPooledTags = 4096

// newScanned returns an empty scanned, from the pool when it has one.
func newScanned() *scanned {
	sc := scans.Get().(*scanned)
	sc.comments, sc.tags, sc.all, sc.attrs = sc.comments[:0], sc.tags[:0], sc.all[:0], sc.attrs[:0]
	return sc
}

// reserve makes room for the annotations of text, when it has more than
// the pool's slices hold: a page annotated by the suggester or through
// selectors has hundreds of thousands of tags, and slices grown a quarter
// at a time to that size allocated five times what they keep. The tags
// are counted by their names as written ("item:", "channel:"): a
// capitalized name or a text mentioning one only makes the room a little
// short or long.
func (sc *scanned) reserve(text string) {
	n := strings.Count(text, "item:") + strings.Count(text, "channel:")
	if n <= maxPooledTags {
		return
	}
	if cap(sc.tags) < n {
		sc.tags = make([]tag, 0, n)
	}
	if cap(sc.comments) < n {
		sc.comments = make([]comment, 0, n)
	}
	if cap(sc.attrs) < n {
		sc.attrs = make([]attr, 0, n)
	}
}

// release hands sc back to the pool. Nothing may use sc, its tags or
// their attributes afterwards. Its slices are cleared first, so that the
// pool does not keep the page's text alive.
func (sc *scanned) release() {
	if cap(sc.tags) > maxPooledTags || cap(sc.attrs) > maxPooledTags || cap(sc.comments) > maxPooledTags || cap(sc.all) > maxPooledTags {
		return
	}
	clear(sc.tags)
	clear(sc.attrs)
	*sc = scanned{comments: sc.comments[:0], tags: sc.tags[:0], all: sc.all[:0], attrs: sc.attrs[:0]}
	scans.Put(sc)
}

// commentSpan is a comment's stretch of the page, and whether its "-->"
// was found; or the content of a raw-text element.
type commentSpan struct {
	start, end int
	closed     bool
	raw        bool // the content of a raw-text element, not a comment
}

// scanner finds annotations without tokenizing the page: it jumps from '<'
// to '<' (strings.IndexByte is vectorized) and only looks closer at
// comments, at the elements whose content is not markup (script, style,
// title, textarea…) so that a "<!--" inside them is not taken for a comment
// as a browser would not, and at <base>, <meta> and <title>. Every search
// moves forward, or is cached when it may be repeated from many places, so
// the work is linear in the page whatever it holds.
type scanner struct {
	text  string
	lines *lines
	warn  *warnings
	tags  tagParser
	out   *scanned

	commentEnd, gt, newline finder
	// stretches says whether to record out.all.
	stretches bool
	// unclosedReported limits the unclosed-comment warning to one: after
	// the first, later "<!--" find no "-->" either.
	unclosedReported bool
}

// scan finds the annotation comments and their tags, and with stretches
// also every stretch of the page that is not page text (out.all).
func scan(text string, ln *lines, warn *warnings, stretches bool) *scanned {
	s := &scanner{text: text, lines: ln, warn: warn, stretches: stretches, out: newScanned()}
	s.out.reserve(text)
	s.tags = tagParser{line: ln.at, warn: warn, attrs: s.out.attrs}
	s.commentEnd = finder{text: text, needle: "-->", from: -1}
	s.gt = finder{text: text, needle: ">", from: -1}
	s.newline = finder{text: text, needle: "\n", from: -1}
	for pos := 0; pos < len(text); {
		i := strings.IndexByte(text[pos:], '<')
		if i < 0 || pos+i+1 >= len(text) {
			break
		}
		i += pos
		switch c := text[i+1]; {
		case c == '!' && strings.HasPrefix(text[i:], "<!--"):
			pos = s.comment(i)
		case mayBeNeeded(c, text, i+2):
			pos = s.startTag(i)
		default:
			pos = i + 1
		}
	}
	s.out.attrs = s.tags.attrs
	return s.out
}

// finder finds the next occurrence of a needle at or after a position,
// remembering the last answer: asked again from any position up to that
// occurrence, it answers without searching. A page of many unclosed
// comments would otherwise search to its end from each of them.
type finder struct {
	text, needle string
	from, at     int // at is the first occurrence at or after from; -1: none
}

func (f *finder) next(from int) int {
	if f.from >= 0 && from >= f.from && (f.at < 0 || f.at >= from) {
		return f.at
	}
	f.from, f.at = from, strings.Index(f.text[from:], f.needle)
	if f.at >= 0 {
		f.at += from
	}
	return f.at
}

// mayBeNeeded reports whether a '<' followed by c and the byte at j may
// open an element the scan looks at (see startTag): its first two letters,
// case-insensitively, begin one of their names. Most tags of a page (td,
// tr, table, img, span, b…) are passed over on these two bytes alone.
func mayBeNeeded(c byte, text string, j int) bool {
	if j >= len(text) {
		return false
	}
	switch d := text[j] | 0x20; c | 0x20 { // |0x20 lower-cases letters, and turns no other byte into one
	case 's':
		return d == 'c' || d == 't' // script, style
	case 't':
		return d == 'e' || d == 'i' // textarea, title
	case 'x':
		return d == 'm' // xmp
	case 'i':
		return d == 'f' // iframe
	case 'n':
		return d == 'o' // noembed, noframes
	case 'b':
		return d == 'a' // base
	case 'm':
		return d == 'e' // meta
	}
	return false
}

// stretch records a stretch that is not page text, when they are wanted.
func (s *scanner) stretch(c commentSpan) {
	if s.stretches {
		s.out.all = append(s.out.all, c)
	}
}

// comment handles the comment starting at i and returns where to go on.
func (s *scanner) comment(i int) int {
	bodyStart := i + 4
	rest := s.text[bodyStart:]
	switch {
	case strings.HasPrefix(rest, ">"): // <!--> is an empty comment in HTML
		s.stretch(commentSpan{start: i, end: bodyStart + 1, closed: true})
		return bodyStart + 1
	case strings.HasPrefix(rest, "->"): // so is <!--->
		s.stretch(commentSpan{start: i, end: bodyStart + 2, closed: true})
		return bodyStart + 2
	}
	bodyEnd := s.commentEnd.next(bodyStart)
	if bodyEnd < 0 {
		return s.unclosedComment(i)
	}
	s.addComment(i, bodyStart, bodyEnd, bodyEnd+3)
	s.stretch(commentSpan{start: i, end: bodyEnd + 3, closed: true})
	return bodyEnd + 3
}

// unclosedComment handles a "<!--" that no "-->" follows. A browser hides
// the rest of the page; Dynamo reports it and, when the comment starts
// with annotation tags, takes those on its line (or up to the first '>'),
// so that one missing "-->" does not lose every annotation after it.
func (s *scanner) unclosedComment(i int) int {
	line := s.lines.at(i)
	bodyStart := i + 4
	if strings.HasPrefix(strings.TrimLeft(s.text[bodyStart:min(len(s.text), bodyStart+256)], " \t\r\n\f"), "<") {
		end := s.newline.next(bodyStart)
		if gt := s.gt.next(bodyStart); end < 0 || gt > end {
			end = gt + 1 // no '>' on the line: up to the first one (none: nothing)
		}
		if end > bodyStart && s.addComment(i, bodyStart, end, end) {
			s.warn.add(line, "comment is not closed with -->; the annotation tags on its line are used, the rest is read as page text")
			s.stretch(commentSpan{start: i, end: end, closed: false})
			return end
		}
	}
	if !s.unclosedReported {
		s.unclosedReported = true
		s.warn.add(line, "comment is not closed with -->; browsers hide the rest of the page, Dynamo reads it as page text")
	}
	s.stretch(commentSpan{start: i, end: bodyStart, closed: false})
	return bodyStart
}

// addComment records a comment if it holds annotation tags, and reports
// whether it did.
func (s *scanner) addComment(start, bodyStart, bodyEnd, end int) bool {
	p := &s.tags
	p.body, p.offset = s.text[bodyStart:bodyEnd], bodyStart
	first := len(s.out.tags)
	s.out.tags = p.parse(len(s.out.comments), s.out.tags)
	if len(s.out.tags) == first {
		return false
	}
	if nested := strings.Index(p.body, "<!--"); nested >= 0 {
		s.warn.add(s.lines.at(bodyStart+nested), "\"<!--\" inside an annotation comment: a \"-->\" is probably missing before it")
	}
	s.out.comments = append(s.out.comments, comment{
		start: start, end: end, bodyStart: bodyStart, bodyEnd: bodyEnd,
		firstTag: first, lastTag: len(s.out.tags),
	})
	return true
}

// startTag looks at the start tag at i when it is one the wrapper needs,
// and returns where to go on: the raw-text elements (script, style,
// textarea, title, xmp, iframe, noembed, noframes), which hold text, not
// markup, so that a "<!--" inside them is not a comment and their content
// runs to their end tag; and <base> and <meta>. Other tags are not read:
// the scan resumes just after their '<'.
func (s *scanner) startTag(i int) int {
	j := i + 1
	for j < len(s.text) && j-i <= len("noframes") && isLetter(s.text[j]) {
		j++
	}
	if j < len(s.text) && !isSpace(s.text[j]) && s.text[j] != '>' && s.text[j] != '/' {
		return i + 1
	}
	name := neededElement(s.text[i+1 : j])
	switch name {
	case "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes":
		return s.rawText(i, name)
	case "base", "meta":
		end := htmlTagEnd(s.text, j)
		s.headTag(name, s.text[i:end])
		return end
	}
	return i + 1
}

// neededElements are the elements startTag looks at.
var neededElements = []string{"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "base", "meta"}

// neededElement returns the element of neededElements that name is,
// case-insensitively, or "".
func neededElement(name string) string {
	for _, e := range neededElements {
		if len(e) == len(name) && strings.EqualFold(e, name) {
			return e
		}
	}
	return ""
}

// rawText skips the element of the given name starting at i, noting the
// page's title and annotations that cannot work there.
func (s *scanner) rawText(i int, name string) int {
	contentStart := htmlTagEnd(s.text, i+1+len(name))
	contentEnd, end := endTag(s.text, contentStart, name)
	content := s.text[contentStart:contentEnd]
	s.stretch(commentSpan{start: contentStart, end: contentEnd, closed: true, raw: true})
	if name == "title" && s.out.title == "" {
		s.out.title = values.CollapseSpace(html.UnescapeString(content))
	}
	s.annotationsInRawText(content, contentStart, name)
	return end
}

// annotationsInRawText reports annotation comments inside an element whose
// content is text: browsers show them (or run them) rather than treat them
// as comments, so they are not annotations. One report per element is
// enough to point the webmaster at it.
func (s *scanner) annotationsInRawText(content string, offset int, name string) {
	for k := 0; ; {
		c := strings.Index(content[k:], "<!--")
		if c < 0 {
			return
		}
		c += k
		bodyEnd := strings.Index(content[c+4:], "-->")
		if bodyEnd < 0 {
			bodyEnd = len(content)
		} else {
			bodyEnd += c + 4
		}
		probe := tagParser{body: content[c+4 : bodyEnd], offset: offset + c + 4, line: noLine, warn: &warnings{}}
		if len(probe.parse(0, nil)) > 0 {
			s.warn.add(s.lines.at(offset+c), "annotation inside <%s> ignored: there \"<!--\" is not a comment but %s text", name, name)
			return
		}
		k = bodyEnd
	}
}

// headTag notes the first <base href> and the <meta name="description">.
func (s *scanner) headTag(name, raw string) {
	attrs := htmlAttrs(raw)
	switch name {
	case "base":
		if href, ok := attrs["href"]; ok && s.out.base == "" {
			s.out.base = href
		}
	case "meta":
		if strings.EqualFold(strings.TrimSpace(attrs["name"]), "description") && s.out.metaDescription == "" {
			s.out.metaDescription = values.CollapseSpace(attrs["content"])
		}
	}
}

// htmlTagEnd returns the offset just after the '>' of the HTML tag whose
// attributes start at i, reading them as the HTML tokenizer does (a quote
// opens a value only after "name="; an "=" where a name starts is part of
// the name, as in <meta =">); the end of the text when the tag is not
// closed.
func htmlTagEnd(s string, i int) int {
	const (
		beforeName = iota
		inName
		afterName
		beforeValue
		inValue
	)
	state := beforeName
	for ; i < len(s); i++ {
		c := s[i]
		if c == '>' {
			return i + 1
		}
		space := isSpace(c)
		switch state {
		case beforeName:
			if !space && c != '/' {
				state = inName
			}
		case inName:
			switch {
			case space:
				state = afterName
			case c == '/':
				state = beforeName
			case c == '=':
				state = beforeValue
			}
		case afterName:
			switch {
			case c == '/':
				state = beforeName
			case c == '=':
				state = beforeValue
			case !space:
				state = inName
			}
		case beforeValue:
			switch {
			case c == '"' || c == '\'':
				q := strings.IndexByte(s[i+1:], c)
				if q < 0 {
					return len(s)
				}
				i += q + 1
				state = beforeName
			case !space:
				state = inValue
			}
		case inValue:
			if space {
				state = beforeName
			}
		}
	}
	return len(s)
}

// endTag finds the end tag </name …> at or after from, case-insensitively,
// and returns the offsets of its '<' and just after its '>'; both are the
// end of the text when there is none (the element then runs to the end,
// as in HTML).
func endTag(s string, from int, name string) (start, end int) {
	for k := from; ; {
		j := strings.Index(s[k:], "</")
		if j < 0 {
			return len(s), len(s)
		}
		j += k
		n := j + 2 + len(name)
		if n <= len(s) && strings.EqualFold(s[j+2:n], name) && (n == len(s) || isSpace(s[n]) || s[n] == '>' || s[n] == '/') {
			return j, htmlTagEnd(s, n)
		}
		k = j + 2
	}
}

// htmlAttrs returns the attributes of one HTML start tag, decoded by the
// HTML tokenizer (first value wins, as in HTML).
func htmlAttrs(raw string) map[string]string {
	z := html.NewTokenizer(strings.NewReader(raw))
	attrs := map[string]string{}
	if tt := z.Next(); tt != html.StartTagToken && tt != html.SelfClosingTagToken {
		return attrs
	}
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if k == nil {
			break
		}
		if _, seen := attrs[string(k)]; !seen {
			attrs[string(k)] = string(v)
		}
	}
	return attrs
}

func noLine(int) int { return 0 }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
