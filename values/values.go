// Package values gives the text and URLs that the wrapper (annotated pages)
// and the native-feed reader put into XMLData their one written form, so
// that a page and a feed with the same content make the same document:
// plain text with entities decoded and spaces collapsed, descriptions
// sanitized with absolute URLs, links resolved and percent-encoded as
// XML Schema's anyURI wants them, enclosures' media types and lengths, and
// the short quotes of warnings.
//
// How an untitled item gets its title is the domain's rule
// (dynamo.TitleFromText), since the renderers apply it too.
package values

import (
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

// CollapseSpace trims s, collapses each run of white space to a space and
// removes bidi embedding and override controls: the form of every
// single-line text (sanitize.SingleLine). It also removes the characters
// XML does not allow (C0 controls, U+FFFE, U+FFFF), which XMLData cannot
// carry: a page or feed has them raw or as references (&#1;).
func CollapseSpace(s string) string {
	if strings.IndexFunc(s, notXMLChar) >= 0 {
		s = strings.Map(func(r rune) rune {
			if notXMLChar(r) {
				return -1
			}
			return r
		}, s)
	}
	return sanitize.SingleLine(s)
}

// notXMLChar reports whether XML 1.0 forbids r and it is no white space:
// a vertical tab or form feed, forbidden too, is white space that
// sanitize.SingleLine turns into a space ("Nov\v30, 2023" stays a date).
// Invalid UTF-8, read as U+FFFD, is allowed.
func notXMLChar(r rune) bool {
	return r < 0x20 && !unicode.IsSpace(r) || r == 0xFFFE || r == 0xFFFF
}

// PlainText returns the text of an HTML fragment: tags stripped, entities
// decoded, white space collapsed, without the characters XML does not
// allow. Content without markup, the common case for titles, skips the
// tokenizer.
func PlainText(fragment string) string {
	switch {
	case !strings.ContainsAny(fragment, "<&"):
		return CollapseSpace(fragment)
	case !strings.Contains(fragment, "<"):
		// Without markup the tokenizer would return one text token, its
		// entities decoded as UnescapeString decodes them.
		return CollapseSpace(html.UnescapeString(fragment))
	}
	text := sanitize.Text(fragment)
	if strings.IndexFunc(text, notXMLChar) >= 0 {
		return CollapseSpace(text)
	}
	return text
}

// Sanitizer makes a description's safe HTML, URLs resolved against base,
// and its plain text.
type Sanitizer func(fragment string, base *url.URL) (html, text string)

// Sanitize is the Sanitizer without a cache: sanitize.HTML and the result's
// plain text, in one pass where sanitize.HTMLText can.
func Sanitize(fragment string, base *url.URL) (string, string) {
	return sanitize.HTMLText(fragment, base)
}

// Description returns a description's sanitized HTML with absolute URLs,
// and its plain text. A description with nothing to sanitize or resolve
// (no markup, entities or quotes) is only trimmed; any other goes through
// sanitizer, which is Sanitize when nil (the wrapper passes its cache).
func Description(fragment string, base *url.URL, sanitizer Sanitizer) (string, string) {
	if strings.TrimSpace(fragment) == "" {
		return "", ""
	}
	if !strings.ContainsAny(fragment, "<>&\"'") {
		s := strings.TrimSpace(fragment)
		return s, CollapseSpace(s)
	}
	if sanitizer == nil {
		sanitizer = Sanitize
	}
	return sanitizer(fragment, base)
}

// LinkResolver is ResolveLink against one base at a time, without parsing
// the plain references links are mostly made of: sanitize.Resolver's fast
// path gives such a reference resolved, as url.URL.String writes it, with
// an http or https scheme, and a plain URL (no white space or quotes, and
// url.Parse reads it back as it is); when URI leaves it as it is too,
// ResolveLink would give it with no problem. Anything else goes to
// ResolveLink. FuzzLinkResolver holds it to ResolveLink. The zero
// LinkResolver is ready; it is not safe for concurrent use.
type LinkResolver struct{ r sanitize.Resolver }

// ResolveLink is ResolveLink(base, ref).
func (l *LinkResolver) ResolveLink(base *url.URL, ref string) (link, problem string) {
	if v, ok := l.r.Plain(base, ref); ok && URI(v) == v {
		return v, ""
	}
	return ResolveLink(base, ref)
}

// unsafeSchemes are refused in links: a feed reader would run them.
var unsafeSchemes = map[string]bool{"javascript": true, "vbscript": true, "data": true}

// urlBreaks removes what the URL standard drops anywhere in a URL.
var urlBreaks = strings.NewReplacer("\t", "", "\n", "", "\r", "")

// ResolveLink resolves ref against base (nil: ref must be absolute to be
// useful, and is kept as it is) and returns it as a URI that XML Schema's
// anyURI accepts, or "" and why it cannot: empty, not a URL, or a scheme a
// feed must not carry (javascript:, vbscript:, data:).
func ResolveLink(base *url.URL, ref string) (link, problem string) {
	// The URL standard drops tabs and newlines anywhere in a URL: an href
	// broken across lines still works in a browser.
	if strings.ContainsAny(ref, "\t\n\r") {
		ref = urlBreaks.Replace(ref)
	}
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", "is empty"
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Sprintf("%q is not a URL", Truncate(ref, 80))
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if unsafeSchemes[strings.ToLower(u.Scheme)] {
		return "", fmt.Sprintf("is a %s: URL, which feeds do not carry", strings.ToLower(u.Scheme))
	}
	// A host may hold characters a URI must escape ("<" or '"', which
	// url.Parse lets through) but where an escape of an ASCII character
	// is not a host any more: such a link has no form a reader can use.
	link = URI(u.String())
	if _, err := url.Parse(link); err != nil {
		return "", fmt.Sprintf("%q is not a URL", Truncate(ref, 80))
	}
	return link, ""
}

// URI percent-encodes what a URL may still hold that an RFC 3986 URI may
// not (url.URL.String leaves the query as it was written): spaces, control
// and non-ASCII bytes, a few delimiters, a '%' that starts no escape, and
// brackets outside the host. A URL with none of these is returned as it is.
func URI(s string) string {
	hostStart, hostEnd := authority(s)
	i := 0
	for i < len(s) && !uriEscapes(s, i, hostStart, hostEnd) {
		i++
	}
	if i == len(s) {
		return s
	}
	var sb strings.Builder
	sb.WriteString(s[:i])
	for ; i < len(s); i++ {
		if uriEscapes(s, i, hostStart, hostEnd) {
			fmt.Fprintf(&sb, "%%%02X", s[i])
		} else {
			sb.WriteByte(s[i])
		}
	}
	return sb.String()
}

// uriEscapes reports whether URI escapes the byte at i of s, whose host
// spans hostStart to hostEnd.
func uriEscapes(s string, i, hostStart, hostEnd int) bool {
	switch c := s[i]; {
	case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
		return false
	case c == '%', c <= ' ', c >= 0x7F, strings.IndexByte("<>\"{}|\\^`", c) >= 0,
		(c == '[' || c == ']') && (i < hostStart || i >= hostEnd):
		return true
	}
	return false
}

// authority returns the span of the "//host" part of a URL, where brackets
// (IPv6 literals) are allowed.
func authority(s string) (int, int) {
	i := strings.Index(s, "//")
	if i < 0 || strings.ContainsAny(s[:i], "/?#") {
		return 0, 0
	}
	end := len(s)
	if j := strings.IndexAny(s[i+2:], "/?#"); j >= 0 {
		end = i + 2 + j
	}
	return i + 2, end
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Truncate shortens s to n runes, marked with "…", for quoting a value in
// a warning.
func Truncate(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// MediaType returns an enclosure's type as XMLData carries it: t trimmed,
// when it is a media type (type/subtype, parameters allowed); ok is false
// when it is not one, and the type is then left out. "" is no type.
func MediaType(t string) (mediaType string, ok bool) {
	t = strings.TrimSpace(t)
	if t == "" {
		return "", true
	}
	if mt, _, err := mime.ParseMediaType(t); err != nil || strings.Count(mt, "/") != 1 {
		return "", false
	}
	return t, true
}

// Size reads an enclosure's length, a whole number of bytes; ok is false
// when s is not one, and the length is then left out. "" is 0, unknown.
func Size(s string) (n int64, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
