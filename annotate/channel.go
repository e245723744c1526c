package annotate

import (
	"fmt"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo/wrapper"
)

// siteNameHints and taglineHints name the elements that hold a site's name
// and its tagline.
var (
	siteNameHints = &hints{1 << 4, []string{"site-title", "site-name", "sitename", "blog-title", "logo", "brand", "masthead", "banner-header", "site_title"}}
	taglineHints  = &hints{1 << 5, []string{"site-description", "tagline", "slogan", "subtitle", "site-slogan", "banner-description", "descriptionwrapper"}}
)

// channelSpans chooses the channel's title and description. The wrapper
// already takes the page's <title> and <meta name="description">, which are
// what the site says of itself; the suggester annotates an element of the
// page only when those are missing.
func channelSpans(p *page, t *treeBuilder, list *candidate, ex *existing, g *guard) ([]span, []string) {
	var spans []span
	var notes []string
	var titleAt *node // the element annotated as the channel's title
	title := ""
	for n := range t.all {
		if n.tag() == "title" {
			title = p.textOf(n)
			break
		}
	}
	outside := func(n *node) bool {
		for _, r := range list.records {
			if r.contains(n) {
				return false
			}
			for _, top := range r.nodes {
				if isAncestor(n, top) {
					return false
				}
			}
		}
		s, e := n.inner()
		return !n.hidden && g.spanSafe(s, e)
	}
	switch {
	case ex.channel["title"]:
		notes = append(notes, "channel title: the page's own <channel:title> annotation is kept")
	case title != "":
		notes = append(notes, fmt.Sprintf("channel title: the page's <title>, %q (the wrapper's default: no annotation needed)", title))
	default:
		titleOK := func(n *node) bool {
			s, e := n.inner()
			return outside(n) && !wrapper.CrossesBlocks(p.text[s:e])
		}
		if n := findChannelElement(p, t, siteNameHints, 3, 120, titleOK, true); n != nil {
			titleAt = n
			s, e := n.inner()
			spans = append(spans, span{start: s, end: e, open: openComment("channel:title", "", ""), close: closeComment("channel:title")})
			notes = append(notes, fmt.Sprintf("channel title: %q, from <%s> (the page has no <title>)", p.textOf(n), n.tag()))
		} else {
			notes = append(notes, "channel title: none found (no <title>, no site name, no <h1>); the wrapper titles the channel with the page URL")
		}
	}
	switch {
	case ex.channel["description"]:
		notes = append(notes, "channel description: the page's own <channel:description> annotation is kept")
	case t.metaDescription != "":
		notes = append(notes, fmt.Sprintf("channel description: the page's <meta name=\"description\">, %q (the wrapper's default)", t.metaDescription))
	default:
		// Not the title's element, nor one in or around it: the wrapper
		// leaves a nested annotation's content out of a value, which
		// would leave the title empty (FuzzSuggest finding).
		descOK := func(n *node) bool {
			return outside(n) && (titleAt == nil || !isAncestor(n, titleAt) && !isAncestor(titleAt, n))
		}
		if n := findChannelElement(p, t, taglineHints, 10, 300, descOK, false); n != nil {
			s, e := n.inner()
			spans = append(spans, span{start: s, end: e, open: openComment("channel:description", "", ""), close: closeComment("channel:description")})
			notes = append(notes, fmt.Sprintf("channel description: %q, from <%s class=%q>", p.textOf(n), n.tag(), n.look().class))
		} else {
			notes = append(notes, "channel description: none found (no <meta name=\"description\">, no tagline)")
		}
	}
	return spans, notes
}

// findChannelElement returns the first element outside the list named by
// one of the hints, with text of a fitting length; failing one, when
// h1 is true, the first <h1> outside the list.
func findChannelElement(p *page, t *treeBuilder, named *hints, minRunes, maxRunes int, outside func(*node) bool, h1 bool) *node {
	fits := func(n *node) bool {
		if n.isText() || n.textBytes == 0 || int(n.textBytes) > 4*maxRunes || !outside(n) {
			return false
		}
		k := utf8.RuneCountInString(p.textOf(n))
		return k >= minRunes && k <= maxRunes
	}
	for n := range t.all {
		if !n.isText() && hasHint(n, named) && fits(n) {
			return narrow(n)
		}
	}
	if h1 {
		for n := range t.all {
			if n.tag() == "h1" && fits(n) {
				return narrow(n)
			}
		}
	}
	return nil
}
