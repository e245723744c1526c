package discovery

import (
	"bytes"
	"mime"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html"
)

// maxFound bounds the links a page scan keeps of each kind. A page listing
// thousands of feed-looking links is not telling which one is its feed;
// the first ones, in document order, are the ones a reader would see.
const maxFound = 64

// maxAnchorText bounds the text kept of a link's title or an anchor's
// text: enough for a title, and no more however long the page makes it.
const maxAnchorText = 200

// feedTypes maps the MIME types that announce a feed in a link's type
// attribute to the feed type they name; "" leaves the type to the body.
var feedTypes = map[string]string{
	"application/rss+xml":    "rss",
	"application/rdf+xml":    "rss",
	"application/atom+xml":   "atom",
	"application/x.atom+xml": "atom",
	"application/x-atom+xml": "atom",
	"application/feed+json":  "json",
	"application/x-rss+xml":  "rss",
	"text/xml":               "",
	"application/xml":        "",
}

// pageInfo is what a page says about its feeds and the software behind it.
type pageInfo struct {
	links     []Candidate // <link rel="alternate"> to feeds, in document order
	anchors   []Candidate // <a> that look like feed links, in document order
	generator string      // <meta name="generator">, lower-cased
	// wpRoot is the path of a WordPress installation, from the URLs of its
	// wp-content, wp-includes or wp-json: "/blog/" for a blog installed
	// there. "" when the page shows none.
	wpRoot string
}

// rawLink is a link as the page writes it, before <base> is known.
type rawLink struct {
	href, title, typ string
	text             strings.Builder
}

// scanPage reads the feed links, the generator and the WordPress root of an
// HTML page. Relative links are resolved against the page's <base> (itself
// resolved against pageURL) or pageURL. Anything that is not HTML scans as
// a page with no links; the tokenizer never fails, so neither does this.
func scanPage(body []byte, pageURL *url.URL) pageInfo {
	var (
		info    pageInfo
		base    string
		links   []*rawLink
		anchors []*rawLink
		open    *rawLink // the <a> whose text is being read
		wpURLs  []string // href and src values naming WordPress paths
	)
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			info.finish(pageURL, base, links, anchors, wpURLs)
			return info
		case html.TextToken:
			if open != nil {
				appendText(&open.text, string(z.Text()))
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "a" {
				open = nil
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			attrs := readAttrs(z, hasAttr)
			for _, u := range []string{attrs["href"], attrs["src"]} {
				if len(wpURLs) < maxFound && strings.Contains(u, "/wp-") {
					wpURLs = append(wpURLs, u)
				}
			}
			switch string(name) {
			case "base":
				if base == "" {
					base = attrs["href"]
				}
			case "meta":
				if strings.EqualFold(attrs["name"], "generator") && info.generator == "" {
					info.generator = strings.ToLower(strings.TrimSpace(attrs["content"]))
				}
			case "link":
				if hasToken(attrs["rel"], "alternate") && isFeedType(attrs["type"]) && attrs["href"] != "" && len(links) < maxFound {
					links = append(links, &rawLink{href: attrs["href"], title: attrs["title"], typ: attrs["type"]})
				}
			case "a":
				open = nil
				if attrs["href"] != "" && len(anchors) < maxFound {
					open = &rawLink{href: attrs["href"], title: attrs["title"], typ: attrs["type"]}
					anchors = append(anchors, open)
				}
			case "img":
				if open != nil {
					appendText(&open.text, attrs["alt"])
				}
			}
		}
	}
}

// readAttrs returns the current tag's attributes; the first of a repeated
// name wins, as in browsers.
func readAttrs(z *html.Tokenizer, more bool) map[string]string {
	attrs := map[string]string{}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if _, seen := attrs[string(k)]; !seen {
			attrs[string(k)] = string(v)
		}
	}
	return attrs
}

// appendText adds s to an anchor's text, collapsing white space and
// stopping at maxAnchorText.
func appendText(b *strings.Builder, s string) {
	for _, f := range strings.Fields(s) {
		if b.Len()+len(f)+1 > maxAnchorText {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
}

// clip collapses the white space of a title and bounds its length.
func clip(s string) string {
	var b strings.Builder
	appendText(&b, s)
	return b.String()
}

// finish resolves the links gathered against the page's base, keeps the
// anchors that look like feed links and finds the WordPress root.
func (info *pageInfo) finish(pageURL *url.URL, base string, links, anchors []*rawLink, urls []string) {
	baseURL := pageURL
	if b, err := pageURL.Parse(strings.TrimSpace(base)); base != "" && err == nil {
		baseURL = b
	}
	for _, l := range links {
		u, ok := resolve(baseURL, l.href)
		if !ok {
			continue
		}
		info.links = append(info.links, Candidate{URL: u.String(), Title: clip(l.title), Type: feedTypes[mediaType(l.typ)], How: HowLinkAlternate})
	}
	for _, a := range anchors {
		u, ok := resolve(baseURL, a.href)
		if !ok || !looksLikeFeedAnchor(u, a.text.String()+" "+a.title, a.typ) {
			continue
		}
		title := a.text.String()
		if title == "" {
			title = clip(a.title)
		}
		info.anchors = append(info.anchors, Candidate{URL: u.String(), Title: title, Type: feedTypes[mediaType(a.typ)], How: HowAnchor})
	}
	info.wpRoot = wordPressRoot(baseURL, urls)
}

// resolve makes href absolute against base. Only http and https links are
// kept; the feed: scheme that some sites use (feed://host/path,
// feed:https://host/path) is read as the http(s) URL it wraps.
func resolve(base *url.URL, href string) (*url.URL, bool) {
	href = strings.TrimSpace(href)
	if rest, ok := cutPrefixFold(href, "feed:"); ok {
		switch {
		case strings.HasPrefix(rest, "//"):
			href = "http:" + rest
		default:
			href = rest
		}
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	u.Fragment = ""
	return u, true
}

// cutPrefixFold is strings.CutPrefix ignoring ASCII case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// hasToken reports whether the space-separated list (a rel attribute)
// holds token, ignoring case.
func hasToken(list, token string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, token) {
			return true
		}
	}
	return false
}

// mediaType returns the lower-cased media type of a type attribute, without
// parameters; "" when it is not one.
func mediaType(t string) string {
	mt, _, err := mime.ParseMediaType(t)
	if err != nil {
		return ""
	}
	return mt
}

// isFeedType reports whether a link's type attribute announces a feed.
func isFeedType(t string) bool {
	_, ok := feedTypes[mediaType(t)]
	return ok
}

// feedPathSuffixes are path endings that feed URLs have and other pages do
// not; matched against the lower-cased path.
var feedPathSuffixes = []string{
	".rss", ".atom", ".rdf", "/feed", "/feed/", "/rss", "/rss/", "/atom", "/atom/",
	"/rss.xml", "/atom.xml", "/feed.xml", "/index.xml", "/feed.json", "/feeds/posts/default",
}

// feedHosts serve nothing but feeds.
var feedHosts = []string{"feeds.feedburner.com", "feedproxy.google.com", "feeds.feedblitz.com"}

// looksLikeFeedAnchor reports whether an <a> probably points at a feed: by
// its type attribute, by the shape of its URL or by its text (or title, or
// image alt) naming a feed. A sitemap is never one.
func looksLikeFeedAnchor(u *url.URL, text, typ string) bool {
	if isFeedType(typ) && mediaType(typ) != "text/xml" && mediaType(typ) != "application/xml" {
		return true
	}
	host := strings.ToLower(u.Hostname())
	for _, h := range feedHosts {
		if host == h {
			return true
		}
	}
	p := strings.ToLower(u.Path)
	if strings.Contains(path.Base(p), "sitemap") {
		return false
	}
	for _, s := range feedPathSuffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	q := strings.ToLower(u.RawQuery)
	for _, s := range []string{"feed=rss", "feed=atom", "format=rss", "format=atom", "format=feed"} {
		if strings.Contains(q, s) {
			return true
		}
	}
	return namesFeed(text)
}

// namesFeed reports whether an anchor's text calls it a feed: the words
// RSS, Atom or feed, as on subscription buttons and feed icons.
func namesFeed(text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}) {
		switch w {
		case "rss", "atom", "feed", "feeds", "rss2":
			return true
		}
	}
	return false
}

// wordPressMarkers are the path segments under a WordPress installation's
// root that its pages link to.
var wordPressMarkers = []string{"/wp-content/", "/wp-includes/", "/wp-json/"}

// wordPressRoot returns the path of the WordPress installation that the
// page's own links (same host) reveal, or "".
func wordPressRoot(base *url.URL, urls []string) string {
	for _, raw := range urls {
		u, err := base.Parse(strings.TrimSpace(raw))
		if err != nil || !strings.EqualFold(u.Host, base.Host) {
			continue
		}
		for _, m := range wordPressMarkers {
			if i := strings.Index(u.Path, m); i >= 0 {
				return u.Path[:i+1]
			}
		}
	}
	return ""
}
