package nativefeed

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/sanitize"
)

// The helpers below give feed values the shape the wrapper gives page
// values (wrapper/values.go), so that a feed and an annotated page with the
// same content make the same XMLData.

// plainText returns the text of a value that may hold markup or entities
// (feed titles often do): tags stripped, entities decoded, whitespace
// collapsed.
func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return collapseSpace(s)
	}
	return sanitize.Text(s)
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// descriptionHTML returns the sanitized HTML, URLs resolved against base,
// and its plain text.
func descriptionHTML(fragment string, base *url.URL) (string, string) {
	if strings.TrimSpace(fragment) == "" {
		return "", ""
	}
	if !strings.ContainsAny(fragment, "<>&\"'") {
		s := strings.TrimSpace(fragment)
		return s, collapseSpace(s)
	}
	h := sanitize.HTML(fragment, base)
	return h, plainText(h)
}

// unsafeSchemes are refused in links: a feed reader would run them.
var unsafeSchemes = map[string]bool{"javascript": true, "vbscript": true, "data": true}

// resolveLink resolves ref against base and returns it as a URI that XML
// Schema's anyURI accepts, or why it cannot.
func resolveLink(base *url.URL, ref string) (string, string) {
	ref = strings.TrimSpace(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(ref))
	if ref == "" {
		return "", ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Sprintf("%q is not a URL", truncate(ref, 80))
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if unsafeSchemes[strings.ToLower(u.Scheme)] {
		return "", fmt.Sprintf("is a %s: URL, which feeds do not carry", strings.ToLower(u.Scheme))
	}
	return uriString(u.String()), ""
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// uriString percent-encodes what a URL may still hold that an RFC 3986 URI
// may not: spaces, control and non-ASCII bytes, a few delimiters, a '%'
// that starts no escape, and brackets outside the host.
func uriString(s string) string {
	hostStart, hostEnd := authority(s)
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			sb.WriteByte(c)
		case c == '%', c <= ' ', c >= 0x7F, strings.IndexByte("<>\"{}|\\^`", c) >= 0,
			(c == '[' || c == ']') && (i < hostStart || i >= hostEnd):
			fmt.Fprintf(&sb, "%%%02X", c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

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

// excerpt returns the start of a text as a title, as the wrapper titles an
// untitled item: up to 80 runes, cut at a word boundary, with an ellipsis.
func excerpt(text string) string {
	const maxTitleRunes = 80
	cut, ok := prefixRunes(text, maxTitleRunes)
	if !ok {
		return text
	}
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}

func truncate(s string, n int) string {
	if cut, ok := prefixRunes(s, n); ok {
		return cut + "…"
	}
	return s
}

func prefixRunes(s string, n int) (string, bool) {
	count := 0
	for i := range s {
		if count == n {
			return s[:i], true
		}
		count++
	}
	return s, false
}

// maxWarnings bounds the warnings of one feed: a feed with a broken date
// in each of ten thousand items says so once per item up to this many.
const maxWarnings = 100

type warnings struct {
	items   []dynamo.Warning
	dropped int
}

func (w *warnings) add(format string, args ...any) {
	if len(w.items) >= maxWarnings {
		w.dropped++
		return
	}
	w.items = append(w.items, dynamo.Warning{Message: fmt.Sprintf(format, args...)})
}

func (w *warnings) list() []dynamo.Warning {
	if w.dropped == 0 {
		return w.items
	}
	return append(w.items, dynamo.Warning{Message: fmt.Sprintf("… and %d more warnings", w.dropped)})
}
