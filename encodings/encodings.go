// Package encodings reads what a document's surroundings say about its
// character encoding: the charset parameter of a Content-Type header (or of
// a <meta> content attribute), whatever small defects the header has.
// The annotated-page reader (wrapper) and the native-feed reader
// (nativefeed) both decide their encodings from it, each in its own order.
package encodings

import (
	"encoding/binary"
	"mime"
	"strings"

	"github.com/dynamo-feeds/dynamo/internal/ascii"
)

// HTTPCharset returns the charset parameter of a Content-Type header, also
// from headers that mime.ParseMediaType rejects for some defect
// (`text/xml;charset= 'us-ascii'`, `charset = us-ascii`).
func HTTPCharset(contentType string) string {
	if contentType == "" {
		return ""
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		// Quotes MIME does not know ('us-ascii') are still quotes.
		return strings.Trim(strings.TrimSpace(params["charset"]), `'"`)
	}
	return CharsetParam(contentType)
}

// CharsetParam extracts the value after "charset=" in a content attribute
// or a header, as the WHATWG algorithm for <meta content> does.
func CharsetParam(s string) string {
	lower := ascii.Lower(s) // byte for byte, so that offsets in it are offsets in s
	for {
		i := strings.Index(lower, "charset")
		if i < 0 {
			return ""
		}
		s, lower = s[i+len("charset"):], lower[i+len("charset"):]
		rest := strings.TrimLeft(s, " \t\n\f\r")
		if !strings.HasPrefix(rest, "=") {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t\n\f\r")
		if rest == "" {
			return ""
		}
		if q := rest[0]; q == '"' || q == '\'' {
			if end := strings.IndexByte(rest[1:], q); end >= 0 {
				return rest[1 : 1+end]
			}
			return ""
		}
		if end := strings.IndexAny(rest, "; \t\n\f\r"); end >= 0 {
			return rest[:end]
		}
		return rest
	}
}

// HasHighBit reports whether b holds a byte outside ASCII, eight bytes at a
// time: it runs over every document that declares no charset.
func HasHighBit(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}
