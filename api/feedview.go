package api

import (
	"bytes"
	"embed"
	"io"
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
	var b bytes.Buffer
	b.Grow(len(a.body) + 256)
	pw := newPageWriter(&b, self, label)
	pw.Write(a.body) // a bytes.Buffer does not fail
	pw.Close()
	v := *a
	v.body = b.Bytes()
	v.contentType = pageContentType
	v.etag = pageETag(a.etag)
	v.gz = nil // the feed's, not the page's: the page is compressed as it is written (httpcompress.Handler)
	v.prepare()
	return &v
}

// pageContentType is the readable page's: rendered by the browser, not
// offered as a download.
const pageContentType = "text/xml; charset=utf-8"

// pageETag is the page's tag, made of the feed's.
func pageETag(etag string) string { return strings.TrimSuffix(etag, `"`) + `-page"` }

// pageWriter writes a feed as its readable page (viewOf), whatever writes
// bring the feed: the instructions go right after the XML declaration, or
// before everything when there is none. Close ends a feed too short to
// have shown which.
type pageWriter struct {
	w    io.Writer
	pis  string
	head []byte // what came before the place of the instructions was known
	done bool
}

func newPageWriter(w io.Writer, self, label string) *pageWriter {
	return &pageWriter{w: w, pis: "\n<?xml-stylesheet type=\"text/xsl\" href=\"" + feedXSLPath + "\"?>" +
		"\n<?dynamo-feed href=\"" + piValue(self) + "\" format=\"" + piValue(label) + "\"?>"}
}

func (p *pageWriter) Write(b []byte) (int, error) {
	if p.done {
		return p.w.Write(b)
	}
	p.head = append(p.head, b...)
	decl, known := declEnd(p.head)
	if !known {
		return len(b), nil
	}
	return len(b), p.emit(decl)
}

// Close writes what is held when the declaration's end was never seen.
func (p *pageWriter) Close() error {
	if p.done {
		return nil
	}
	return p.emit(0)
}

// emit writes the head with the instructions after its first decl bytes.
func (p *pageWriter) emit(decl int) error {
	p.done = true
	out := make([]byte, 0, len(p.head)+len(p.pis)+1)
	out = append(append(out, p.head[:decl]...), p.pis...)
	if decl == 0 {
		out = append(out, '\n')
	}
	out = append(out, p.head[decl:]...)
	p.head = nil
	_, err := p.w.Write(out)
	return err
}

// declEnd is where the XML declaration that head starts with ends, 0 when
// it starts with none; known is false while head is too short to tell.
func declEnd(head []byte) (end int, known bool) {
	const start = "<?xml"
	if len(head) < len(start) {
		return 0, !strings.HasPrefix(start, string(head))
	}
	if !bytes.HasPrefix(head, []byte(start)) {
		return 0, true
	}
	if i := bytes.Index(head, []byte("?>")); i >= 0 {
		return i + 2, true
	}
	return 0, false
}

// piValue makes s safe inside a processing instruction's quoted pseudo-
// attribute: no quote and no ">", so nothing can end it ("?>") early. A
// processing instruction is raw text: "&" stays as it is.
func piValue(s string) string {
	return strings.NewReplacer(`"`, "%22", "<", "%3C", ">", "%3E").Replace(s)
}
