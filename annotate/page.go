package annotate

import (
	"errors"
	"hash/maphash"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"

	"github.com/dynamo-feeds/dynamo/internal/ascii"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// page is the page as the suggester reads it. Annotations are inserted into
// the bytes as given, so the suggester reads the bytes themselves whenever
// the encoding allows: in every ASCII-compatible encoding, markup is ASCII
// and no byte of a multi-byte character can be taken for '<', '>', '=' or
// a quote. Only text values (titles, dates) are decoded. A UTF-16 page is
// decoded for reading, with a map from the text's offsets back to the
// page's, and annotations are inserted in UTF-16.
type page struct {
	raw     []byte
	text    string // what the tree is built from
	charset string
	enc     encoding.Encoding // nil for UTF-8 and for UTF-16 (text is decoded then)
	single  [256]rune         // for single-byte encodings, each byte's character; 0 when not single-byte
	utf16   bool
	bigEnd  bool
	rawOff  []int // for UTF-16: rawOff[i] is the page offset of text offset i
}

// errStateful is returned for the one encoding the suggester cannot edit
// in place.
var errStateful = errors.New("the page is encoded in ISO-2022-JP, whose bytes cannot be edited in place; convert it to UTF-8 first")

func newPage(raw []byte, contentType string) (*page, error) {
	enc, name, bom := wrapper.Encoding(raw, contentType)
	p := &page{raw: raw, charset: name}
	switch {
	case name == "iso-2022-jp":
		return nil, errStateful
	case strings.HasPrefix(name, "utf-16"):
		p.utf16, p.bigEnd = true, name == "utf-16be"
		p.text, p.rawOff = decodeUTF16(raw[bom:], bom, p.bigEnd)
	default:
		p.text = string(raw) // a UTF-8 BOM is text the tokenizer passes over
		p.enc = enc
		if enc != nil {
			p.fillSingleByte()
		}
	}
	return p, nil
}

// fillSingleByte fills the byte table when the encoding maps every byte to
// one character (windows-1252, ISO-8859-x, KOI8…), so that positions in a
// decoded text map back to bytes.
func (p *page) fillSingleByte() {
	dec := p.enc.NewDecoder()
	for b := 0; b < 256; b++ {
		out, err := dec.String(string([]byte{byte(b)}))
		r, size := utf8.DecodeRuneInString(out)
		if err != nil || size != len(out) || out == "" {
			p.single = [256]rune{}
			return
		}
		p.single[b] = r
	}
}

// decodeUTF16 decodes UTF-16 and records, for each byte of the result, the
// offset of the code unit it came from.
func decodeUTF16(b []byte, base int, bigEnd bool) (string, []int) {
	var sb strings.Builder
	off := make([]int, 0, len(b)+1)
	unit := func(i int) uint16 {
		if bigEnd {
			return uint16(b[i])<<8 | uint16(b[i+1])
		}
		return uint16(b[i+1])<<8 | uint16(b[i])
	}
	var buf [4]byte
	for i := 0; i+1 < len(b); {
		u := unit(i)
		r, n := rune(u), 2
		if utf16.IsSurrogate(r) && i+3 < len(b) {
			if dec := utf16.DecodeRune(r, rune(unit(i+2))); dec != utf8.RuneError {
				r, n = dec, 4
			}
		}
		if utf16.IsSurrogate(r) {
			r = utf8.RuneError
		}
		k := utf8.EncodeRune(buf[:], r)
		sb.Write(buf[:k])
		for j := 0; j < k; j++ {
			off = append(off, base+i)
		}
		i += n
	}
	off = append(off, base+len(b)-len(b)%2)
	return sb.String(), off
}

// toRaw maps an offset in the text to the page's bytes.
func (p *page) toRaw(i int) int {
	if p.utf16 {
		return p.rawOff[i]
	}
	return i
}

// encode writes an inserted comment in the page's encoding. Comments are
// ASCII, which every encoding but UTF-16 writes as is.
func (p *page) encode(s string) []byte {
	if !p.utf16 {
		return []byte(s)
	}
	out := make([]byte, 0, 2*len(s))
	for _, u := range utf16.Encode([]rune(s)) {
		if p.bigEnd {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// decode returns a stretch of the text as UTF-8.
func (p *page) decode(s string) string {
	if p.enc == nil {
		// ToValidUTF8 returns valid text as it is, but finds it valid
		// rune by rune; ValidString reads ASCII eight bytes at a time.
		if utf8.ValidString(s) {
			return s
		}
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	if p.single['a'] != 0 {
		var sb strings.Builder
		for i := 0; i < len(s); i++ {
			sb.WriteRune(p.single[s[i]])
		}
		return sb.String()
	}
	out, err := p.enc.NewDecoder().String(s)
	if err != nil {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return out
}

// plain returns the visible text of a stretch of markup, decoded, with
// entities decoded and whitespace collapsed, as the wrapper reads a title.
func (p *page) plain(s string) string {
	s = p.decode(s)
	if !strings.ContainsAny(s, "<&") {
		return joinFields(s)
	}
	if text, ok := plainSimple(s); ok {
		return text
	}
	return plainTokenized(s)
}

// textCounts is what the suggester asks of a long text, counted as its
// markup is read rather than from the text made: its letters, its other
// runes that are no space, its words (as strings.Fields splits them) and
// the bytes of those words. The text joinFields makes of it has
// words-1 more runes and bytes (one space between words), and the same
// letters and other runes.
type textCounts struct {
	letters, other, words, wordBytes int
	inWord                           bool // the last rune added was no space
}

// add counts the runes of s, which follow those added before.
func (c *textCounts) add(s string) {
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r < utf8.RuneSelf {
			// ASCII, most of a page: its classes by hand.
			i++
			switch {
			case r == ' ' || '\t' <= r && r <= '\r':
				c.inWord = false
				continue
			case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
				c.letters++
			default:
				c.other++
			}
			if !c.inWord {
				c.words++
				c.inWord = true
			}
			c.wordBytes++
			continue
		}
		r, size = utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsSpace(r) {
			c.inWord = false
			continue
		}
		if !c.inWord {
			c.words++
			c.inWord = true
		}
		c.wordBytes += size
		if unicode.IsLetter(r) {
			c.letters++
		} else {
			c.other++
		}
	}
}

// joined returns the runes and bytes of the text joinFields makes.
func (c *textCounts) joined() (runes, bytes int) {
	spaces := max(c.words-1, 0)
	return c.letters + c.other + spaces, c.wordBytes + spaces
}

// prose reports whether the text reads like a sentence: five words or
// more, mostly letters (isProse).
func (c *textCounts) prose() bool {
	return c.words >= 5 && c.letters >= 20 && c.letters >= 3*c.other
}

// countsOf returns the textCounts of textOf(n), read without making the
// text: a whole list's node holds megabytes of it. ok is false when the
// markup is read by the tokenizer only (plainTokenized).
func (p *page) countsOf(n *node) (c textCounts, ok bool) {
	s := p.text[n.open:n.close]
	if n.isText() {
		s = p.text[n.start:n.end]
	}
	s = p.decode(s)
	if !strings.ContainsAny(s, "<&") {
		c.add(s)
		return c, true
	}
	if _, ok := plainSimpleTo(s, &c); ok {
		return c, true
	}
	return textCounts{}, false
}

// plainSimple is plainTokenized for the markup most pages hold, read
// without a tokenizer (which costs a 4 KiB buffer a call). ok is false,
// for the tokenizer to read it, when the markup holds anything but text
// and whole start and end tags (a comment, a tag cut off by the end), an
// element whose content the tokenizer reads as text (script, style,
// title…), a NUL, or a tag that adds a space and may be self-closing
// ("<br/>", which the tokenizer does not count as a <br>). Tags are read
// as the tokenizer reads them (readTag in golang.org/x/net/html).
func plainSimple(s string) (string, bool) {
	return plainSimpleTo(s, nil)
}

// plainSimpleTo is plainSimple, or when counts is not nil, plainSimple
// counting the text into counts (textCounts.add) without making it: ""
// is then returned.
func plainSimpleTo(s string, counts *textCounts) (string, bool) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", false
	}
	var sb strings.Builder
	if counts == nil {
		sb.Grow(len(s)) // the text is most often no longer than its markup: one allocation
	}
	put := func(t string) {
		if counts != nil {
			counts.add(t)
		} else {
			sb.WriteString(t)
		}
	}
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			put(html.UnescapeString(s))
			break
		}
		if i+1 < len(s) && !isASCIILetter(s[i+1]) && s[i+1] != '/' && s[i+1] != '!' && s[i+1] != '?' {
			// A "<" that opens nothing is text.
			put(html.UnescapeString(s[:i+1]))
			s = s[i+1:]
			continue
		}
		put(html.UnescapeString(s[:i]))
		end := i+1 < len(s) && s[i+1] == '/'
		nameAt := i + 1
		if end {
			nameAt++
		}
		if nameAt >= len(s) || !isASCIILetter(s[nameAt]) {
			return "", false
		}
		name, after, ok := readTag(s, nameAt+1)
		if !ok {
			return "", false
		}
		selfClosing := after >= 2 && s[after-2] == '/'
		s = s[after:]
		switch ascii.Lower(name) {
		case "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext":
			return "", false
		case "br", "tr":
			if !end {
				if selfClosing {
					return "", false
				}
				put(" ")
			}
		case "p", "div", "li", "td":
			if !end && selfClosing {
				return "", false
			}
			put(" ")
		}
	}
	if counts != nil {
		return "", true
	}
	return joinFields(sb.String()), true
}

// readTag reads a tag as the tokenizer does, from just after the first
// letter of its name (at): its name, and the offset just after its ">".
// ok is false when the text ends first.
func readTag(s string, at int) (name string, after int, ok bool) {
	pos := at
	nameStart := at - 1
	read := func() (byte, bool) {
		if pos >= len(s) {
			return 0, false
		}
		pos++
		return s[pos-1], true
	}
	skipSpace := func() bool {
		for {
			c, ok := read()
			if !ok {
				return false
			}
			if !isTagSpace(c) {
				pos--
				return true
			}
		}
	}
	// The name.
	for {
		c, ok := read()
		if !ok {
			return "", 0, false
		}
		if isTagSpace(c) {
			name = s[nameStart : pos-1]
			break
		}
		if c == '/' || c == '>' {
			pos--
			name = s[nameStart:pos]
			break
		}
	}
	if !skipSpace() {
		return "", 0, false
	}
	for {
		c, ok := read()
		if !ok {
			return "", 0, false
		}
		if c == '>' {
			return name, pos, true
		}
		pos--
		// An attribute's name.
		keyStart := pos
		for {
			c, ok := read()
			if !ok {
				return "", 0, false
			}
			if c == '=' && keyStart+1 == pos {
				continue
			}
			if c == '=' || isTagSpace(c) || c == '/' || c == '>' {
				pos--
				break
			}
		}
		// Its value.
		if !skipSpace() {
			return "", 0, false
		}
		c, ok = read()
		if !ok {
			return "", 0, false
		}
		switch {
		case c == '/':
		case c != '=':
			pos--
		default:
			if !skipSpace() {
				return "", 0, false
			}
			q, ok := read()
			if !ok {
				return "", 0, false
			}
			switch q {
			case '>':
				pos--
			case '\'', '"':
				k := strings.IndexByte(s[pos:], q)
				if k < 0 {
					return "", 0, false
				}
				pos += k + 1
			default:
				for {
					c, ok := read()
					if !ok {
						return "", 0, false
					}
					if isTagSpace(c) {
						break
					}
					if c == '>' {
						pos--
						break
					}
				}
			}
		}
		if !skipSpace() {
			return "", 0, false
		}
	}
}

func isTagSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' }

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// plainTokenized is plain for any markup, read with the tokenizer.
func plainTokenized(s string) string {
	var sb strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return joinFields(sb.String())
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style":
				skip++
			case "br", "p", "div", "li", "td", "tr":
				sb.WriteByte(' ')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style":
				if skip > 0 {
					skip--
				}
			case "p", "div", "li", "td":
				sb.WriteByte(' ')
			}
		}
	}
}

// textOf returns the plain text of a node's content.
func (p *page) textOf(n *node) string {
	if n.isText() {
		return p.plain(p.text[n.start:n.end])
	}
	return p.plain(p.text[n.open:n.close])
}

// byteOffsets maps a range of runes in the decoded form of the text
// p.text[start:end] back to offsets in p.text. It works when the text is
// UTF-8 (as given, or decoded from UTF-16) or a single-byte encoding;
// ok is false otherwise, and for text holding markup. Entities are not
// decoded in that form: a caller that reads them decoded maps its runes
// back first (dateIn).
func (p *page) byteOffsets(start, end, fromRune, toRune int) (int, int, bool) {
	s := p.text[start:end]
	if strings.IndexByte(s, '<') >= 0 {
		return 0, 0, false
	}
	switch {
	case p.enc == nil:
		i, r := 0, 0
		from, to := -1, -1
		for i <= len(s) {
			if r == fromRune {
				from = i
			}
			if r == toRune {
				to = i
				break
			}
			if i == len(s) {
				break
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			r++
		}
		if from < 0 || to < 0 {
			return 0, 0, false
		}
		return start + from, start + to, true
	case p.single['a'] != 0:
		if toRune > len(s) {
			return 0, 0, false
		}
		return start + fromRune, start + toRune, true
	}
	return 0, 0, false
}

// tree builds the page's tree with each link's href as the wrapper reads
// it, decoded from the page's encoding: byte 0xA0 of a windows-1252 page is
// a no-break space, which the wrapper trims, so that such a link is empty
// for both (FuzzSuggest finding).
func (p *page) tree(readComment func(body string) []existingTag, keepAttrs bool) *treeBuilder {
	t := buildTree(p.text, maphash.MakeSeed(), readComment, keepAttrs)
	t.t.decodeHrefs(p.decode)
	return t
}

// keepsText reports whether the sanitizer (values.Description) surely
// keeps some of the text of markup s: an ASCII letter or digit read as
// text before any tag but whole start and end tags of the elements in
// keepContent. Running the sanitizer on every description of a long page
// costs a tokenizer's buffer a call, for an answer this reading gives on
// the markup most descriptions hold. false says nothing: the sanitizer
// is to be asked. Entities are passed over with the letters after them,
// as "&nbsp;" is no text a reader sees.
func keepsText(s string) bool {
	if strings.IndexByte(s, 0) >= 0 {
		return false // as in plainSimple: the tokenizer's NUL rules are not mirrored
	}
	for {
		i := strings.IndexByte(s, '<')
		text := s
		if i >= 0 {
			text = s[:i]
		}
		if hasPlainLetter(text) {
			return true
		}
		if i < 0 || i+1 >= len(s) {
			return false
		}
		c := s[i+1]
		switch {
		case isASCIILetter(c):
			name, after, ok := readTag(s, i+2)
			if !ok || !keepContent[ascii.Lower(name)] {
				return false
			}
			s = s[after:]
		case c == '/' && i+2 < len(s) && isASCIILetter(s[i+2]):
			// An end tag starts no element whose content is dropped.
			_, after, ok := readTag(s, i+3)
			if !ok {
				return false
			}
			s = s[after:]
		case c == '/' || c == '!' || c == '?':
			return false // a comment, a doctype or "</>": left to the sanitizer
		default:
			s = s[i+1:] // a "<" that opens nothing is text
		}
	}
}

// hasPlainLetter reports whether text holds an ASCII letter or digit
// outside entity references.
func hasPlainLetter(text string) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '&' {
			for i+1 < len(text) && (isASCIILetter(text[i+1]) || isDigit(text[i+1]) || text[i+1] == '#') {
				i++
			}
			continue
		}
		if isASCIILetter(c) || isDigit(c) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// keepContent are elements that the tokenizer reads as markup (not raw
// text such as script, style, title, textarea, noscript) and whose content
// the sanitizer keeps, allowed or not (it drops that of iframe, object,
// noscript, frameset…): the common elements of a description.
var keepContent = map[string]bool{
	"a": true, "abbr": true, "address": true, "article": true, "aside": true, "b": true, "bdi": true,
	"blockquote": true, "br": true, "center": true, "cite": true, "code": true, "dd": true, "del": true,
	"dfn": true, "div": true, "dl": true, "dt": true, "em": true, "figcaption": true, "figure": true,
	"font": true, "footer": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"header": true, "hr": true, "i": true, "img": true, "ins": true, "kbd": true, "label": true, "li": true,
	"main": true, "mark": true, "nav": true, "ol": true, "p": true, "pre": true, "q": true, "s": true,
	"section": true, "small": true, "span": true, "strike": true, "strong": true, "sub": true, "sup": true,
	"table": true, "tbody": true, "td": true, "tfoot": true, "th": true, "thead": true, "time": true,
	"tr": true, "tt": true, "u": true, "ul": true, "var": true, "wbr": true,
}

// joinFields is strings.Join(strings.Fields(s), " "): the words of s, one
// space between. Text that is so already (no space but single ASCII ones
// between words), as most titles and dates are, is returned as it is,
// without the two allocations. That holds for text outside ASCII too,
// whose runes are read only to learn that none is a space: a line of a
// podcast's episode ("12 March 2005 · notes", a middle dot), split and
// joined again, was a fifth of the time spent finding its date.
func joinFields(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				return strings.Join(strings.Fields(s), " ")
			}
			i += size
			continue
		}
		if c < ' ' && isFieldSpace(c) || c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return joinFieldsFrom(s, i)
		}
		i++
	}
	return s
}

// joinFieldsFrom is joinFields of s, whose first i bytes hold no space
// to change (nor any space outside ASCII). ASCII text from there (a
// title ending in a line break, as Pipermail writes them) is joined in
// one pass and one allocation.
func joinFieldsFrom(s string, i int) string {
	for j := i; j < len(s); j++ {
		if s[j] >= utf8.RuneSelf {
			return strings.Join(strings.Fields(s), " ")
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	word := false // whether a word was written
	for j := 0; j < len(s); {
		for j < len(s) && isFieldSpace(s[j]) {
			j++
		}
		k := j
		for k < len(s) && !isFieldSpace(s[k]) {
			k++
		}
		if k > j {
			if word {
				b.WriteByte(' ')
			}
			b.WriteString(s[j:k])
			word = true
		}
		j = k
	}
	return b.String()
}

// isFieldSpace is the ASCII white space strings.Fields splits at.
func isFieldSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
