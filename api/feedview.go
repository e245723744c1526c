package api

import (
	"bytes"
	"embed"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/dynamo-feeds/dynamo/transform"
)

// The readable page of a feed (docs/API.md "Feeds in a browser"): a browser
// that asks for HTML gets the feed with an XSLT stylesheet referenced, which
// it turns into a page saying what the feed is, how to subscribe, and its
// items; a feed reader gets the feed's exact bytes.

//go:embed feedview/feed.xsl feedview/feed.css
var feedViewFS embed.FS

// Paths of the stylesheets the readable page uses, served by Dynamo.
const (
	feedXSLPath = "/feed.xsl"
	feedCSSPath = "/feed.css"
)

// feedViewCSP is the Content-Security-Policy of a feed shown to a browser
// whose address is base: its style sheet from Dynamo, the XSLT stylesheet
// and nothing else. Chromium loads an XSLT stylesheet under script-src, so
// that directive names the stylesheet's one URL rather than the whole
// origin: no script can run on the page.
func feedViewCSP(base string) string {
	return "default-src 'none'; script-src " + base + feedXSLPath + "; style-src 'self'; img-src 'self'; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// serveFeedAsset answers the readable page's XSLT and CSS.
func serveFeedAsset(name, contentType string) http.HandlerFunc {
	body, err := feedViewFS.ReadFile("feedview/" + name)
	if err != nil { // embedded above
		panic(err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}

// feedTypes are the media types that name a feed or its XML in Accept.
var feedTypes = []string{"application/rss+xml", "application/atom+xml", "application/rdf+xml",
	"application/feed+json", "application/json", "application/xml", "text/xml"}

// wantsHTML reports whether the client prefers a page to the feed: its
// Accept lists text/html (or XHTML) with a quality above every feed
// type's, as browsers' do (text/html,…,application/xml;q=0.9,*/*;q=0.8).
// No Accept, */*, or a tie goes to the feed: a reader must never be given
// the page.
func wantsHTML(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return false
	}
	html, feed := 0.0, 0.0
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
				q = f
			}
		}
		switch {
		case mt == "text/html" || mt == "application/xhtml+xml":
			html = max(html, q)
		case containsString(feedTypes, mt):
			feed = max(feed, q)
		}
	}
	return html > 0 && html > feed
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// viewable reports whether a format has a readable page: the feeds in XML.
// JSON Feed is shown through its RSS 2.0 rendering (serveFeed); XMLData is
// Dynamo's own document, not a feed.
func viewable(f transform.Format) bool {
	return f == transform.RSS1 || f == transform.RSS2 || f == transform.Atom
}

// viewOf returns the feed's readable page: the same bytes with the
// stylesheet referenced and a processing instruction naming the feed's own
// URL and format (self, label), which the page offers to subscribe to.
func viewOf(a *answer, self, label string) *answer {
	body := a.body
	decl := 0
	if bytes.HasPrefix(body, []byte("<?xml")) {
		if i := bytes.Index(body, []byte("?>")); i >= 0 {
			decl = i + 2
		}
	}
	var b bytes.Buffer
	b.Grow(len(body) + 256)
	b.Write(body[:decl])
	b.WriteString("\n<?xml-stylesheet type=\"text/xsl\" href=\"" + feedXSLPath + "\"?>")
	b.WriteString("\n<?dynamo-feed href=\"" + piValue(self) + "\" format=\"" + piValue(label) + "\"?>")
	if decl == 0 {
		b.WriteString("\n")
	}
	b.Write(body[decl:])
	v := *a
	v.body = b.Bytes()
	v.contentType = "text/xml; charset=utf-8" // rendered by the browser, not offered as a download
	v.etag = strings.TrimSuffix(a.etag, `"`) + `-page"`
	v.gz = nil // the feed's, not the page's: the page is compressed as it is written (httpcompress.Handler)
	return &v
}

// piValue makes s safe inside a processing instruction's quoted pseudo-
// attribute: no quote and no ">", so nothing can end it ("?>") early. A
// processing instruction is raw text: "&" stays as it is.
func piValue(s string) string {
	return strings.NewReplacer(`"`, "%22", "<", "%3C", ">", "%3E").Replace(s)
}
