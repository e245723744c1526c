package nativefeed

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/wlynxg/chardet"

	"github.com/dynamo-feeds/dynamo/encodings"
)

// repairs collects what was repaired, for the warnings.
type repairs struct{ notes []string }

func (r *repairs) add(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// toUTF8 decodes a feed to UTF-8. For XML the encoding is, in RFC 7303
// §3.2's order (feedparser's too): a byte order mark; UTF-16 recognized
// from its first bytes; the Content-Type charset; the XML declaration's;
// and when none is declared, UTF-8 if the bytes are UTF-8, else what the
// detector finds (detectLegacy). JSON is always UTF-8. Real feeds often
// misdeclare it, so the bytes have the last word: a feed declared in a
// legacy encoding that is valid UTF-8 (with non-ASCII in it) is read as
// UTF-8, and bytes that are not UTF-8 in a feed read as UTF-8 are read as
// windows-1252, which is what such stray bytes nearly always are.
func toUTF8(body []byte, contentType string, isXML bool, rep *repairs) string {
	switch {
	case bytes.HasPrefix(body, []byte{0xEF, 0xBB, 0xBF}):
		return utf8Lenient(body[3:], rep)
	case bytes.HasPrefix(body, []byte{0xFE, 0xFF}), bytes.HasPrefix(body, []byte{0x00, '<', 0x00, '?'}):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.UseBOM), "utf-16be", body, rep)
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE}), bytes.HasPrefix(body, []byte{'<', 0x00, '?', 0x00}):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "utf-16le", body, rep)
	}
	if !isXML {
		return utf8Lenient(body, rep)
	}
	label, from := encodings.HTTPCharset(contentType), "the Content-Type header"
	if label == "" {
		label, from = xmlDeclEncoding(body), "the XML declaration"
	}
	if label == "" {
		return detectLegacy(body, rep)
	}
	enc, name := charset.Lookup(label)
	switch {
	case enc == nil:
		rep.add("%s names an unknown encoding %q", from, label)
		return detectLegacy(body, rep)
	case name == "utf-8", strings.HasPrefix(name, "utf-16"): // a declaration readable as ASCII is not UTF-16
		return utf8Lenient(body, rep)
	case utf8.Valid(body) && encodings.HasHighBit(body):
		rep.add("%s says %s but the feed is UTF-8; read as UTF-8", from, name)
		return string(body)
	}
	return decodeWith(enc, name, body, rep)
}

// Detection of undeclared encodings.
const (
	// detectLimit bounds the bytes the detector reads: enough text for
	// its statistics, a bounded cost whatever the feed's size.
	detectLimit = 64 << 10
	// sureConfidence is the detector's confidence below which its answer
	// is not used. Its answers on legacy feeds are 0.8–0.99 (feedparser's
	// Big5, EUC-JP, EUC-KR, GB2312, KOI8-R, Shift_JIS, TIS-620 and
	// windows-1255 samples); mostly-ASCII text with a few stray bytes
	// scores far lower.
	sureConfidence = 0.5
)

// detectLegacy reads a feed that declares no encoding. XML's default is
// UTF-8, so valid UTF-8 is read so, as is text that is mostly UTF-8 with a
// few stray bytes (utf8Lenient). Anything else is in a legacy encoding
// that the detector (wlynxg/chardet, a port of the detector feedparser
// uses) names; when it is unsure, the bytes are read as windows-1252 and a
// warning says so.
func detectLegacy(body []byte, rep *repairs) string {
	if utf8.Valid(body) || mostlyUTF8(body) {
		return utf8Lenient(body, rep)
	}
	guess := chardet.Detect(body[:min(len(body), detectLimit)])
	enc, name := charset.Lookup(guess.Encoding)
	if enc == nil || guess.Confidence < sureConfidence {
		rep.add("the feed declares no encoding and is not UTF-8; the detector is unsure (%q, confidence %.2f): read as windows-1252",
			guess.Encoding, guess.Confidence)
		return decodeWith(charmap.Windows1252, "windows-1252", body, rep)
	}
	rep.add("the feed declares no encoding and is not UTF-8; detected %s (confidence %.2f)", name, guess.Confidence)
	if name == "utf-8" {
		return utf8Lenient(body, rep)
	}
	return decodeWith(enc, name, body, rep)
}

// mostlyUTF8 reports whether b has more valid multi-byte UTF-8 sequences
// than bytes that are not UTF-8: a UTF-8 feed with stray legacy bytes in
// it, rather than a legacy feed.
func mostlyUTF8(b []byte) bool {
	multi, bad := 0, 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size == 1:
			bad++
		case size > 1:
			multi++
		}
		b = b[size:]
	}
	return multi > bad
}

func decodeWith(enc encoding.Encoding, name string, body []byte, rep *repairs) string {
	text, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		rep.add("decoding as %s failed (%v); read as UTF-8", name, err)
		return utf8Lenient(body, rep)
	}
	return strings.ToValidUTF8(string(text), "\uFFFD")
}

// utf8Lenient reads b as UTF-8, reading each byte that is not part of a
// valid sequence as windows-1252 (the usual culprit: a CMS that pastes
// legacy text into a UTF-8 feed).
func utf8Lenient(b []byte, rep *repairs) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	bad := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			bad++
			r = charmap.Windows1252.DecodeByte(b[0])
		}
		sb.WriteRune(r)
		b = b[size:]
	}
	rep.add("bytes that are not UTF-8, read as windows-1252: %d", bad)
	return sb.String()
}

var (
	xmlDecl         = regexp.MustCompile(`^\s*<\?xml[^>]*?\?>`)
	encodingPseudo  = regexp.MustCompile(`\sencoding\s*=\s*("[^"]*"|'[^']*')`)
	maxDeclarations = 512 // bytes in which the XML declaration is looked for
)

// xmlDeclEncoding returns the encoding named in the XML declaration.
func xmlDeclEncoding(body []byte) string {
	head := body[:min(len(body), maxDeclarations)]
	decl := xmlDecl.Find(head)
	if decl == nil {
		return ""
	}
	m := encodingPseudo.FindSubmatch(decl)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(string(m[1][1 : len(m[1])-1]))
}

// dropEncodingDecl removes the encoding from the XML declaration: the text
// is UTF-8 now, whatever the declaration said.
func dropEncodingDecl(text string) string {
	loc := xmlDecl.FindStringIndex(text[:min(len(text), maxDeclarations)])
	if loc == nil {
		return text
	}
	decl := encodingPseudo.ReplaceAllString(text[loc[0]:loc[1]], "")
	return text[:loc[0]] + decl + text[loc[1]:]
}

// legalXMLChar reports whether XML 1.0 allows r in a document.
func legalXMLChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// stripIllegal removes the characters that XML 1.0 forbids (C0 controls
// other than tab and line breaks, U+FFFE, U+FFFF), which a strict parser
// rejects and which feeds carry from text pasted out of word processors.
func stripIllegal(text string, rep *repairs) string {
	n := 0
	for _, r := range text {
		if !legalXMLChar(r) {
			n++
		}
	}
	if n == 0 {
		return text
	}
	rep.add("characters that XML does not allow (control characters), removed: %d", n)
	return strings.Map(func(r rune) rune {
		if legalXMLChar(r) {
			return r
		}
		return -1
	}, text)
}

// fixMarkup repairs the XML outside CDATA sections, comments, processing
// instructions and the DOCTYPE: an HTML entity that XML does not define
// (&nbsp;, &eacute;) becomes its character reference; an ampersand that
// starts no reference becomes &amp;; a character reference to a character
// XML forbids is removed, except that &#128;–&#159;, which HTML reads as
// windows-1252, are read so. Entities the DOCTYPE declares are left alone.
func fixMarkup(text string, rep *repairs) string {
	if !strings.Contains(text, "&") {
		return text
	}
	var sb strings.Builder
	sb.Grow(len(text) + 64)
	var declared map[string]bool
	var entities, bare, badRefs, cp1252 int
	for i := 0; i < len(text); {
		c := text[i]
		if c == '<' {
			end, doctype := skipSpecial(text, i)
			if doctype {
				declared = declaredEntities(text[i:end])
			}
			if end > i {
				sb.WriteString(text[i:end])
				i = end
				continue
			}
		}
		if c != '&' {
			j := i + 1
			for j < len(text) && text[j] != '&' && text[j] != '<' {
				j++
			}
			sb.WriteString(text[i:j])
			i = j
			continue
		}
		ref, n := reference(text[i:])
		switch ref.kind {
		case refXML:
			sb.WriteString(text[i : i+n])
		case refDeclared:
			if declared[ref.name] {
				sb.WriteString(text[i : i+n])
			} else {
				sb.WriteString("&amp;")
				bare++
				n = 1
			}
		case refHTML:
			writeCharRefs(&sb, ref.value)
			entities++
		case refIllegal:
			badRefs++
		case refCP1252:
			writeCharRefs(&sb, ref.value)
			cp1252++
		default:
			sb.WriteString("&amp;")
			bare++
			n = 1
		}
		i += n
	}
	if entities > 0 {
		rep.add("HTML entities that XML does not define (such as &nbsp;), read as characters: %d", entities)
	}
	if bare > 0 {
		rep.add("bare ampersands, read as a literal '&': %d", bare)
	}
	if badRefs > 0 {
		rep.add("character references to characters XML does not allow, removed: %d", badRefs)
	}
	if cp1252 > 0 {
		rep.add("character references in the range &#128;–&#159;, read as windows-1252 as browsers do: %d", cp1252)
	}
	return sb.String()
}

func writeCharRefs(sb *strings.Builder, s string) {
	for _, r := range s {
		sb.WriteString("&#" + strconv.Itoa(int(r)) + ";")
	}
}

// skipSpecial returns the end of the CDATA section, comment, processing
// instruction or DOCTYPE starting at text[i] (i itself when none starts
// there), and whether it is a DOCTYPE. An unterminated one runs to the end.
func skipSpecial(text string, i int) (int, bool) {
	rest := text[i:]
	for _, s := range []struct {
		open, close string
		doctype     bool
	}{
		{"<![CDATA[", "]]>", false}, {"<!--", "-->", false}, {"<?", "?>", false}, {"<!DOCTYPE", "", true},
	} {
		if !strings.HasPrefix(rest, s.open) {
			continue
		}
		if s.doctype {
			return i + doctypeEnd(rest), true
		}
		end := strings.Index(rest[len(s.open):], s.close)
		if end < 0 {
			return len(text), false
		}
		return i + len(s.open) + end + len(s.close), false
	}
	return i, false
}

// doctypeEnd finds the '>' that closes a DOCTYPE, past any internal subset.
func doctypeEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '>':
			if depth <= 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

var entityDecl = regexp.MustCompile(`<!ENTITY\s+([A-Za-z_][-A-Za-z0-9._:]*)`)

func declaredEntities(doctype string) map[string]bool {
	m := map[string]bool{}
	for _, d := range entityDecl.FindAllStringSubmatch(doctype, -1) {
		m[d[1]] = true
	}
	return m
}

type refKind int

const (
	refNone     refKind = iota // not a reference: a bare ampersand
	refXML                     // one XML reads: a predefined entity or a legal character reference
	refDeclared                // a name that only a DTD could declare
	refHTML                    // an HTML entity; value holds its characters
	refIllegal                 // a character reference to a character XML forbids
	refCP1252                  // &#128;–&#159;; value holds the windows-1252 character
)

type ref struct {
	kind  refKind
	name  string
	value string
}

// maxRefLen bounds the scan for a reference's ';'. The longest HTML entity
// name is 31 characters.
const maxRefLen = 40

// reference classifies the reference starting at s[0] == '&' and returns
// its length.
func reference(s string) (ref, int) {
	end := strings.IndexByte(s[:min(len(s), maxRefLen)], ';')
	if end < 2 {
		return ref{}, 1
	}
	body := s[1:end]
	if body[0] == '#' {
		return charRef(body[1:]), end + 1
	}
	if !isName(body) {
		return ref{}, 1
	}
	switch body {
	case "amp", "lt", "gt", "quot", "apos":
		return ref{kind: refXML}, end + 1
	}
	if v := html.UnescapeString("&" + body + ";"); v != "&"+body+";" && (!strings.HasSuffix(v, ";") || body == "semi") {
		return ref{kind: refHTML, name: body, value: v}, end + 1
	}
	return ref{kind: refDeclared, name: body}, end + 1
}

func charRef(digits string) ref {
	base := 10
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base = digits[1:], 16
	}
	if digits == "" || strings.ContainsAny(digits, "+-") {
		return ref{}
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return ref{kind: refIllegal}
		}
		return ref{}
	}
	r := rune(n)
	switch {
	case r >= 0x80 && r <= 0x9F:
		return ref{kind: refCP1252, value: string(charmap.Windows1252.DecodeByte(byte(r)))}
	case !legalXMLChar(r):
		return ref{kind: refIllegal}
	}
	return ref{kind: refXML}
}

func isName(s string) bool {
	for i, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// repairJSON escapes raw control characters inside JSON strings, which
// JSON forbids but hand-built JSON feeds carry (a literal tab or newline
// pasted into content_text), and removes the escapes of characters XML
// does not allow (\u0000, \ufffe), which XMLData could not carry: what
// stripIllegal does to an XML feed's text. It expects the text through
// stripIllegal already, so that the raw control characters left are tabs
// and line breaks.
func repairJSON(text string, rep *repairs) string {
	var sb strings.Builder
	copied, changed := 0, false // text[:copied] is in sb once changed
	escaped, removed := 0, 0
	inString := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\':
			if r, ok := unicodeEscape(text[i+1:]); ok && !legalXMLChar(r) && !utf16.IsSurrogate(r) {
				if !changed {
					sb.Grow(len(text))
					changed = true
				}
				sb.WriteString(text[copied:i])
				copied = i + 6
				removed++
			}
			i++ // the escaped character
		case c < 0x20:
			if !changed {
				sb.Grow(len(text) + 16)
				changed = true
			}
			sb.WriteString(text[copied:i])
			fmt.Fprintf(&sb, `\u%04x`, c)
			copied = i + 1
			escaped++
		}
	}
	if !changed {
		return text
	}
	sb.WriteString(text[copied:])
	if escaped > 0 {
		rep.add("control characters inside JSON strings, escaped: %d", escaped)
	}
	if removed > 0 {
		rep.add("escapes of characters that XML does not allow (control characters), removed: %d", removed)
	}
	return sb.String()
}

// unicodeEscape reads the character of a \uXXXX escape from what follows
// its backslash.
func unicodeEscape(s string) (rune, bool) {
	if len(s) < 5 || s[0] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:5], 16, 32)
	return rune(n), err == nil
}

// salvage cuts a feed that breaks off or breaks down (a truncated
// download, a syntax error half-way) after its last complete item or
// entry, and closes the elements still open there, so that the items
// before the damage can be read. It reports false when no complete item
// precedes the damage.
func salvage(text string) (string, bool) {
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = false
	var stack, keep []string
	cut := int64(-1)
	for {
		tok, err := d.RawToken()
		if err != nil {
			if cut < 0 || err == io.EOF && len(stack) == 0 {
				return "", false
			}
			var sb strings.Builder
			sb.WriteString(text[:cut])
			for i := len(keep) - 1; i >= 0; i-- {
				sb.WriteString("</" + keep[i] + ">")
			}
			return sb.String(), true
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, qualified(t.Name))
		case xml.EndElement:
			if len(stack) == 0 || stack[len(stack)-1] != qualified(t.Name) {
				continue // a stray end tag; the non-strict parser skips it too
			}
			stack = stack[:len(stack)-1]
			if t.Name.Local == "item" || t.Name.Local == "entry" {
				cut = d.InputOffset()
				keep = append(keep[:0], stack...)
			}
		}
	}
}

func qualified(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// escapedMode finds an Atom 0.3 start tag with mode="escaped".
var (
	escapedMode = regexp.MustCompile(`<[A-Za-z_][-\w.:]*\s[^<>]*\bmode\s*=\s*(?:"escaped"|'escaped')[^<>]*>`)
	typeAttr    = regexp.MustCompile(`\stype\s*=`)
)

// typeEscaped gives an Atom 0.3 text construct that is mode="escaped"
// without a type the type html. gofeed decodes escaped text only when a
// type names it, and otherwise hands out the raw XML ("Old Blog
// &amp;amp; Co"); escaped content is markup in practice, and a title's
// markup is read as text (titleText).
func typeEscaped(text string, rep *repairs) string {
	if !strings.Contains(text, "escaped") {
		return text
	}
	n := 0
	text = escapedMode.ReplaceAllStringFunc(text, func(tag string) string {
		if typeAttr.MatchString(tag) {
			return tag
		}
		n++
		end := len(tag) - 1
		if strings.HasSuffix(tag, "/>") {
			end--
		}
		return tag[:end] + ` type="html"` + tag[end:]
	})
	if n > 0 {
		rep.add("Atom 0.3 mode=\"escaped\" text without a type, read as escaped HTML: %d", n)
	}
	return text
}

// maxInnerGzip bounds a body that is gzip-compressed once more inside its
// Content-Encoding: the poller's body cap (fetch.DefaultMaxBody), which
// the first decompression was held to.
const maxInnerGzip = 20 << 20

// gunzipInner decompresses a body that is itself gzip (its magic bytes
// first): a cache plugin compressed the feed and the server compressed it
// again, so that one decoding of its Content-Encoding leaves gzip. ok is
// false for a body that is not gzip. Past limit bytes it fails, returning
// the first limit bytes; a stream cut short gives what it has.
func gunzipInner(body []byte, limit int64) (out []byte, ok bool, err error) {
	if !bytes.HasPrefix(body, []byte{0x1f, 0x8b, 8}) {
		return body, false, nil
	}
	z, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, true, fmt.Errorf("read feed: the body is gzip that does not decompress: %w", err)
	}
	out, err = io.ReadAll(io.LimitReader(z, limit+1))
	switch {
	case int64(len(out)) > limit:
		return out[:limit], true, fmt.Errorf("read feed: the body is gzip that decompresses to more than %d bytes", limit)
	case err != nil && len(out) == 0:
		return nil, true, fmt.Errorf("read feed: the body is gzip that does not decompress: %w", err)
	}
	return out, true, nil
}
