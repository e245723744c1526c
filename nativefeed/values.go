package nativefeed

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/values"
)

// The shared helpers (package values and the domain's title rule) under
// the names this package's files call them by: they give feed values the
// shape the wrapper gives page values, so that a feed and an annotated page
// with the same content make the same XMLData.
var (
	plainText     = values.PlainText
	collapseSpace = values.CollapseSpace
	uriString     = values.URI
	truncate      = values.Truncate
	excerpt       = dynamo.TitleFromText
)

// markupSign is what makes a title markup rather than text: an end tag,
// a void element that has none (<br>, <img …>), a start tag with an
// attribute (<embed src="…">, which no one writes as text, unlike "The
// <blink> tag"), a comment, or a character or entity reference.
var markupSign = regexp.MustCompile(`</[A-Za-z][A-Za-z0-9]*\s*>|<!--|<(?i:br|hr|img|wbr)\b[^>]*>|<[A-Za-z][A-Za-z0-9]*\s+[A-Za-z_:][-A-Za-z0-9_:.]*\s*=|&(#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);`)

// titleText returns a title's text. Feeds put both text and markup in
// titles, and RSS and JSON Feed do not say which (Atom's type is often
// wrong too: Reddit escapes its text titles twice). A title is read as
// markup, tags stripped and references decoded, when it looks like markup
// as feedparser judges it (markupSign); otherwise it is text, so that
// "The <blink> tag" or "On <footnotes>" keep their words.
func titleText(s string) string {
	if markupSign.MatchString(s) {
		return plainText(s)
	}
	return collapseSpace(s)
}

// descriptionHTML returns the sanitized HTML, URLs resolved against base,
// and its plain text.
func descriptionHTML(fragment string, base *url.URL) (string, string) {
	return values.Description(fragment, base, nil)
}

// resolveLink resolves ref against base as values.ResolveLink does; a feed
// that gives no link is not a problem worth a warning.
func resolveLink(base *url.URL, ref string) (string, string) {
	if strings.TrimSpace(ref) == "" {
		return "", ""
	}
	return values.ResolveLink(base, ref)
}

// absURL parses s as an absolute URL; nil when it is not one.
func absURL(s string) *url.URL {
	if u, err := url.Parse(strings.TrimSpace(s)); err == nil && u.IsAbs() {
		return u
	}
	return nil
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
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
