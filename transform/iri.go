package transform

import (
	"crypto/sha1"
	"encoding/hex"
	"net/url"
	"strings"

	"golang.org/x/net/idna"

	"github.com/dynamo-feeds/dynamo"
)

// absoluteURL returns raw as an absolute URI that every reader accepts, or ""
// when it cannot be one. Characters a URI may not contain (spaces, quotes,
// non-ASCII, stray '%') are percent-encoded, so an IRI becomes its URI; an
// internationalized host becomes Punycode; a relative reference is resolved
// against base (nil: it is dropped); and schemes that run code in a reader
// (javascript:, vbscript:, data:) are dropped.
func absoluteURL(raw string, base *url.URL) string {
	if isPlainHTTPURL(raw) {
		return raw // what resolveURL makes of it (FuzzPlainHTTPURL)
	}
	return resolveURL(raw, base)
}

// isPlainHTTPURL reports whether s is an http or https URL that
// resolveURL returns as it is, without parsing it: a lower-case scheme, an
// ASCII host name with an optional port, and a path and query of
// unreserved characters, '/' and a few delimiters (no '%', no fragment).
// Most stored links are, and an answer resolves one or more per item.
func isPlainHTTPURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "https://"); !ok {
			return false
		}
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	host, port, hasPort := strings.Cut(rest[:end], ":")
	if host == "" || hasPort && port == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	for i := end; i < len(rest); i++ {
		c := rest[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') && strings.IndexByte("-._~/?=&+,;:@", c) < 0 {
			return false
		}
	}
	return true
}

// resolveURL is absoluteURL for any raw, parsing it.
func resolveURL(raw string, base *url.URL) string {
	s := strings.TrimSpace(cleanText(raw))
	if s == "" {
		return ""
	}
	u, err := url.Parse(escapeURI(s))
	if err != nil {
		return ""
	}
	if !u.IsAbs() {
		if base == nil {
			return ""
		}
		u = base.ResolveReference(u)
	}
	switch u.Scheme {
	case "javascript", "vbscript", "data":
		return ""
	case "http", "https", "ftp":
		if u.Host == "" {
			return ""
		}
	}
	if !asciiOnly(u.Host) {
		host, err := idna.ToASCII(u.Hostname())
		if err != nil {
			return ""
		}
		if port := u.Port(); port != "" {
			host += ":" + port
		}
		u.Host = host
	}
	return u.String()
}

// baseURL returns the resource's URL as the base for relative links, or nil
// when it is not absolute.
func baseURL(raw string) *url.URL {
	u, err := url.Parse(escapeURI(strings.TrimSpace(cleanText(raw))))
	if err != nil || !u.IsAbs() {
		return nil
	}
	return u
}

// escapeURI percent-encodes every byte that RFC 3986 does not allow in a URI
// reference, including a '%' that does not start an escape, so that an IRI
// becomes its URI.
func escapeURI(s string) string { return escapeRef(s, false) }

// escapeIRI is escapeURI leaving non-ASCII characters as they are: XMLData
// links are xsd:anyURI, which admits IRIs.
func escapeIRI(s string) string { return escapeRef(s, true) }

func escapeRef(s string, keepNonASCII bool) string {
	const hexDigits = "0123456789ABCDEF"
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if uriByte(c) || keepNonASCII && c >= 0x80 || c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			if sb.Len() > 0 {
				sb.WriteByte(c)
			}
			continue
		}
		if sb.Len() == 0 {
			sb.Grow(len(s) + 16)
			sb.WriteString(s[:i])
		}
		sb.WriteByte('%')
		sb.WriteByte(hexDigits[c>>4])
		sb.WriteByte(hexDigits[c&15])
	}
	if sb.Len() == 0 {
		return s
	}
	return sb.String()
}

// uriByte reports whether c is an unreserved or reserved URI character.
func uriByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func asciiOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// idNamespace is the name-based UUID namespace of Dynamo's feed and entry
// ids: the version 5 UUID of Dynamo's namespace URL in the URL namespace.
var idNamespace = uuidV5(uuidNamespaceURL, dynamo.NamespaceDynamo)

// uuidNamespaceURL is RFC 9562's namespace for names that are URLs.
var uuidNamespaceURL = [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

// uuidV5 returns the name-based (SHA-1) UUID in namespace ns of the name
// made of the parts of name, joined.
func uuidV5(ns [16]byte, name ...string) [16]byte {
	// Hashed from one buffer on the stack (when the name fits), not
	// through a new hash.Hash: an id is made for every entry rendered.
	var buf [256]byte
	b := append(buf[:0], ns[:]...)
	for _, part := range name {
		b = append(b, part...)
	}
	sum := sha1.Sum(b)
	var u [16]byte
	copy(u[:], sum[:])
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u
}

// uuidURN formats u as a urn:uuid: IRI, the id form RFC 4287 itself uses.
func uuidURN(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return "urn:uuid:" + string(b[:])
}

// feedID returns the stable id of a collection's feed: it depends only on
// the collection (rssId), so every version and every format of one
// collection names the same feed. A resource without an rssId (a listing
// built by the API) is named by its URL instead.
func feedID(r *dynamo.Resource) string {
	name := "feed\x00" + r.RSSID
	if r.RSSID == "" {
		name = "url\x00" + r.URL
	}
	return uuidURN(uuidV5(idNamespace, name))
}

// entryID returns the stable id of an item: a name-based UUID of its
// collection and its XMLData id, which is itself stable across versions of
// the page (dynamo.ItemID). An item without an id gets one derived as the
// wrapper would, from its link or its content.
func entryID(rssID string, it *dynamo.Item) string {
	id := it.ID
	if id == "" {
		link := strings.TrimSpace(it.Link)
		id = dynamo.ItemID(link, link != "", it.Title, it.Description)
	}
	return uuidURN(uuidV5(idNamespace, "item\x00", rssID, "\x00", id))
}
