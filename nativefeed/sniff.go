package nativefeed

import (
	"bytes"
	"strings"
	"unicode/utf16"
)

type docKind int

const (
	kindNone docKind = iota
	kindXML
	kindJSON
)

// sniffLimit bounds how much of the body the sniffer reads: a feed's root
// element comes after at most a declaration, a few comments and a DOCTYPE.
const sniffLimit = 16 << 10

// sniff finds whether body is an XML feed (root rss, rdf:RDF or feed, any
// prefix) or a JSON Feed, and names the root it saw: an element name, "{"
// for JSON, "" for neither. A JSON object is a JSON Feed when it is served
// as application/feed+json or names a JSON Feed version anywhere (its keys
// may come in any order).
func sniff(body []byte, contentType string) (docKind, string) {
	head := sniffText(body[:min(len(body), sniffLimit)])
	head = strings.TrimLeft(head, "\ufeff \t\r\n")
	switch {
	case strings.HasPrefix(head, "{"):
		mediaType, _, _ := strings.Cut(strings.ToLower(contentType), ";")
		if strings.TrimSpace(mediaType) == "application/feed+json" || bytes.Contains(body, []byte("jsonfeed.org/version")) {
			return kindJSON, "{"
		}
		return kindNone, "{"
	case !strings.HasPrefix(head, "<"):
		return kindNone, ""
	}
	root := rootElement(head)
	local := strings.ToLower(root[strings.LastIndexByte(root, ':')+1:])
	switch local {
	case "rss", "rdf", "feed":
		return kindXML, root
	}
	return kindNone, root
}

// sniffText turns the head of the body into a string the sniffer can
// read: UTF-16 is decoded, anything else is read as ASCII-compatible.
func sniffText(b []byte) string {
	var le bool
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{'<', 0}):
		le = true
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}), bytes.HasPrefix(b, []byte{0, '<'}):
	default:
		return string(b)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		if le {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		} else {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		}
	}
	return string(utf16.Decode(u))
}

// rootElement returns the name of the first element, past the XML
// declaration, processing instructions, comments and a DOCTYPE; "" when
// none is found in s.
func rootElement(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(s, "<?"):
			s = after(s, "?>")
		case strings.HasPrefix(s, "<!--"):
			s = after(s, "-->")
		case strings.HasPrefix(s, "<!"):
			s = s[doctypeEnd(s):]
		case strings.HasPrefix(s, "<"):
			name := s[1:]
			end := strings.IndexAny(name, " \t\r\n/>")
			if end < 0 {
				return ""
			}
			return name[:end]
		default:
			return ""
		}
	}
}

func after(s, marker string) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	return s[i+len(marker):]
}
