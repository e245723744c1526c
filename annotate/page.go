package annotate

import (
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"

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
		return strings.Join(strings.Fields(s), " ")
	}
	var sb strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(sb.String()), " ")
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
// ok is false otherwise, and for text holding entities or markup, whose
// decoded form is not a simple image of the bytes.
func (p *page) byteOffsets(start, end, fromRune, toRune int) (int, int, bool) {
	s := p.text[start:end]
	if strings.ContainsAny(s, "&<") {
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
