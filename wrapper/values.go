package wrapper

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

// plainText returns the text of an HTML fragment: tags stripped, entities
// decoded, whitespace collapsed. Content without markup, the common case
// for titles, skips the tokenizer.
func plainText(fragment string) string {
	switch {
	case !strings.ContainsAny(fragment, "<&"):
		return collapseSpace(fragment)
	case !strings.Contains(fragment, "<"):
		// Without markup the tokenizer would return one text token, its
		// entities decoded as UnescapeString decodes them.
		return collapseSpace(html.UnescapeString(fragment))
	}
	return sanitize.Text(fragment)
}

// descriptionHTML returns the sanitized description with absolute URLs,
// and its plain text. Descriptions with markup go through the process's
// cache of sanitized descriptions.
func descriptionHTML(fragment string, base *url.URL) (string, string) {
	if strings.TrimSpace(fragment) == "" {
		return "", ""
	}
	if !strings.ContainsAny(fragment, "<>&\"'") { // nothing to sanitize or resolve
		s := strings.TrimSpace(fragment)
		return s, collapseSpace(s)
	}
	return descriptions.sanitized(fragment, base)
}

// linkValue reads a link annotation's content: the href of its first <a>
// with one, else its text. It returns the absolute URL and why there is no
// link when there is none.
func linkValue(content string, base *url.URL) (link, problem string) {
	if href, found := firstHref(content); found {
		return resolveLink(base, href)
	}
	text := plainText(content)
	switch {
	case text == "":
		return "", "is empty"
	case strings.ContainsAny(text, " \t\n"):
		return "", fmt.Sprintf("holds no <a href> and its text %q is not a URL", truncate(text, 60))
	}
	return resolveLink(base, text)
}

// firstHref returns the href of the first <a> in the fragment that has one.
// The fragment may hold only the start tag: the <a> may close outside it.
func firstHref(fragment string) (string, bool) {
	if !strings.Contains(fragment, "<") {
		return "", false
	}
	z := html.NewTokenizer(strings.NewReader(fragment))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return "", false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "a" {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "href" && strings.TrimSpace(string(v)) != "" {
					return string(v), true
				}
			}
		}
	}
}

// firstImage returns the src and alt of the first <img> in the fragment.
func firstImage(fragment string) (src, alt string) {
	if !strings.Contains(fragment, "<") {
		return "", ""
	}
	z := html.NewTokenizer(strings.NewReader(fragment))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return "", ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "img" {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "src":
					src = string(v)
				case "alt":
					alt = string(v)
				}
			}
			if strings.TrimSpace(src) != "" {
				return src, collapseSpace(alt)
			}
		}
	}
}

// unsafeSchemes are refused in links: a feed reader would run them.
var unsafeSchemes = map[string]bool{"javascript": true, "vbscript": true, "data": true}

// urlBreaks removes what the URL standard drops anywhere in a URL.
var urlBreaks = strings.NewReplacer("\t", "", "\n", "", "\r", "")

// resolveLink resolves ref against base and returns it as a URI that XML
// Schema's anyURI accepts, or why it cannot.
func resolveLink(base *url.URL, ref string) (string, string) {
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

// uriString percent-encodes what a URL may still hold that an RFC 3986 URI
// may not (url.URL.String leaves the query as it was written): spaces,
// control and non-ASCII bytes, a few delimiters, a '%' that starts no
// escape, and brackets outside the host.
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

// excerpt returns the start of a text as a title: up to maxTitleRunes
// runes, cut at a word boundary, with an ellipsis when cut.
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

// truncate shortens s for a warning message.
func truncate(s string, n int) string {
	if cut, ok := prefixRunes(s, n); ok {
		return cut + "…"
	}
	return s
}

// prefixRunes returns the first n runes of s, and whether s is longer.
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
