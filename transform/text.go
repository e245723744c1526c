package transform

import (
	"strings"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/sanitize"
)

// cleanText returns s with what no feed format can carry taken out: the
// characters XML 1.0 forbids (C0 controls other than tab, newline and
// carriage return; U+FFFE, U+FFFF) are dropped, and bytes that are not UTF-8
// become U+FFFD. Bidi embedding, override and isolate controls are dropped
// too (sanitize.IsBidiControl): a feed reader would let them reverse the
// text shown after them, titles and descriptions alike, archived ones
// included. Every string that reaches a writer goes through it, so the
// XML and JSON outputs agree on the text. Clean input is returned as is,
// without allocating.
func cleanText(s string) string {
	i := firstUnclean(s)
	if i < 0 {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	sb.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteRune(utf8.RuneError)
		case isXMLChar(r) && !sanitize.IsBidiControl(r):
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	return sb.String()
}

// firstUnclean returns the byte offset of the first character cleanText
// would change, or -1.
func firstUnclean(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !isXMLChar(r) || sanitize.IsBidiControl(r) {
			return i
		}
		i += size
	}
	return -1
}

// isXMLChar reports whether r may appear in an XML 1.0 document (the Char
// production). Surrogates cannot come out of a Go string decode.
func isXMLChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20:
		return false
	case r == 0xFFFE || r == 0xFFFF:
		return false
	}
	return r <= utf8.MaxRune
}

// cleanLine returns s cleaned and on one line: titles are plain text that
// readers show in a list, where a newline or a run of spaces from the page's
// layout means nothing.
func cleanLine(s string) string {
	return sanitize.SingleLine(cleanText(s))
}

// excerpt stands in for a missing title: the domain's one rule for an
// untitled item's title (dynamo.TitleFromText), which the wrapper and the
// native-feed reader apply too.
var excerpt = dynamo.TitleFromText

// plainText returns the plain text of an item's description, preferring the
// text its producer derived (Item.Text) to deriving it again.
func plainText(derived, html string) string {
	if derived != "" {
		return cleanLine(derived)
	}
	if html == "" {
		return ""
	}
	return cleanLine(sanitize.Text(html))
}
