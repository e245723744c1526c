package wrapper

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"

	"github.com/dynamo-feeds/dynamo/encodings"
)

// How the page's charset was determined, in the order they are tried (the
// order of the WHATWG encoding sniffing algorithm, except that a byte order
// mark, as in browsers, overrides the HTTP header).
const (
	FromBOM     = "bom"     // a UTF-8 or UTF-16 byte order mark
	FromHTTP    = "http"    // the charset parameter of the Content-Type header
	FromMeta    = "meta"    // <meta charset> or <meta http-equiv="Content-Type">
	FromSniffed = "sniffed" // the bytes are valid UTF-8 and not all ASCII
	FromDefault = "default" // nothing said: windows-1252 (UTF-8 when all ASCII)
)

// metaScanLimit bounds how far the <meta> charset declaration is looked
// for. WHATWG's prescan stops at 1024 bytes, but browsers re-decode when a
// later declaration in the head turns up, and legacy pages with long heads
// rely on that; the head rarely runs past this.
const metaScanLimit = 64 << 10

// decoded is a page turned into UTF-8 text.
type decoded struct {
	text     string
	charset  string // canonical WHATWG name, e.g. "windows-1252"
	from     string // one of the From constants
	warnings []string
}

// decode determines the page's encoding and decodes it. Labels are looked
// up with WHATWG's table, so ISO-8859-1 and US-ASCII are read as
// windows-1252 as browsers do. Bytes invalid in the encoding become U+FFFD.
// Line breaks are normalized to "\n" as an HTML parser does, so that
// line numbers count old Mac ("\r") pages right and descriptions carry no
// carriage returns.
//
// A UTF-8 page that needs none of this is not copied: the text shares
// page's bytes (see Wrap). The copy was the largest cost of finding a
// page's annotations (about 40 % of it on the 205 KB bench page, most of
// it the allocation and collection of a fresh string as large as the
// page; docs/benchmarks/wrapper.md).
func decode(page []byte, contentType string) decoded {
	d := decodeBytes(page, contentType)
	if strings.IndexByte(d.text, '\r') >= 0 {
		d.text = strings.ReplaceAll(strings.ReplaceAll(d.text, "\r\n", "\n"), "\r", "\n")
	}
	return d
}

func decodeBytes(page []byte, contentType string) decoded {
	var d decoded
	enc, name, from, body := determine(page, contentType, &d.warnings)
	d.charset, d.from = name, from
	if enc == nil { // UTF-8
		if from != FromSniffed && from != FromDefault && !utf8.Valid(body) { // sniffing has checked it
			d.warnings = append(d.warnings, fmt.Sprintf("the page is not valid UTF-8: %d invalid bytes replaced with U+FFFD", invalidUTF8(body)))
			d.text = strings.ToValidUTF8(string(body), "\uFFFD")
		} else {
			d.text = unsafe.String(unsafe.SliceData(body), len(body))
		}
		return d
	}
	text, err := enc.NewDecoder().Bytes(body)
	if err != nil { // x/text decoders replace bad input rather than fail; be safe anyway
		d.warnings = append(d.warnings, fmt.Sprintf("decoding as %s: %v; read as UTF-8 instead", name, err))
		d.text, d.charset = strings.ToValidUTF8(string(body), "\uFFFD"), "utf-8"
		return d
	}
	d.text = strings.ToValidUTF8(string(text), "\uFFFD")
	return d
}

// determine finds the encoding (nil for UTF-8), its name, how it was found,
// and the body without any byte order mark.
func determine(page []byte, contentType string, warnings *[]string) (encoding.Encoding, string, string, []byte) {
	switch {
	case bytes.HasPrefix(page, []byte{0xEF, 0xBB, 0xBF}):
		return nil, "utf-8", FromBOM, page[3:]
	case bytes.HasPrefix(page, []byte{0xFE, 0xFF}):
		enc, name := charset.Lookup("utf-16be")
		return enc, name, FromBOM, page[2:]
	case bytes.HasPrefix(page, []byte{0xFF, 0xFE}):
		enc, name := charset.Lookup("utf-16le")
		return enc, name, FromBOM, page[2:]
	}
	if label := encodings.HTTPCharset(contentType); label != "" {
		if enc, name := lookup(label); name != "" {
			return enc, name, FromHTTP, page
		}
		*warnings = append(*warnings, fmt.Sprintf("the Content-Type charset %q is not a known encoding; ignored", label))
	}
	if label := metaCharset(page); label != "" {
		enc, name := lookup(label)
		switch {
		case name == "":
			*warnings = append(*warnings, fmt.Sprintf("<meta> charset %q is not a known encoding; ignored", label))
		case strings.HasPrefix(name, "utf-16"): // WHATWG: a page that can declare it in ASCII is not UTF-16
			return nil, "utf-8", FromMeta, page
		case name == "x-user-defined":
			enc, name = lookup("windows-1252")
			return enc, name, FromMeta, page
		default:
			return enc, name, FromMeta, page
		}
	}
	if utf8.Valid(page) {
		if encodings.HasHighBit(page) {
			return nil, "utf-8", FromSniffed, page
		}
		return nil, "utf-8", FromDefault, page // ASCII reads the same in every default
	}
	enc, name := lookup("windows-1252")
	return enc, name, FromDefault, page
}

// lookup finds an encoding by its WHATWG label; UTF-8 comes back as a nil
// encoding because the page is then used as it is.
func lookup(label string) (encoding.Encoding, string) {
	enc, name := charset.Lookup(label)
	if name == "utf-8" {
		return nil, name
	}
	return enc, name
}

// metaCharset returns the label declared by the first <meta charset> or
// <meta http-equiv="Content-Type" content="…charset=…"> in the head.
func metaCharset(page []byte) string {
	if len(page) > metaScanLimit {
		page = page[:metaScanLimit]
	}
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "body":
				return ""
			case "meta":
				if label := metaTagCharset(z, hasAttr); label != "" {
					return label
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "head" {
				return ""
			}
		}
	}
}

func metaTagCharset(z *html.Tokenizer, hasAttr bool) string {
	var direct, content string
	pragma := false
	for hasAttr {
		var key, val []byte
		key, val, hasAttr = z.TagAttr()
		switch string(key) {
		case "charset":
			direct = strings.TrimSpace(string(val))
		case "http-equiv":
			pragma = strings.EqualFold(strings.TrimSpace(string(val)), "content-type")
		case "content":
			content = string(val)
		}
	}
	if direct != "" {
		return direct
	}
	if pragma {
		return encodings.CharsetParam(content)
	}
	return ""
}

func invalidUTF8(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			n++
		}
		b = b[size:]
	}
	return n
}
