package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
)

// Accept headers as browsers and feed readers send them.
const (
	browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
	readerAccept  = "application/rss+xml, application/atom+xml, application/rdf+xml;q=0.9, application/xml;q=0.8, text/xml;q=0.8, */*;q=0.5"
)

// TestFeedPageForBrowsers checks that a feed URL asked for by a browser
// is the feed with the readable page's stylesheet referenced, served as
// XML the browser renders, while a reader (or a client without Accept)
// gets the feed's exact bytes; JSON Feed shows through the same page.
func TestFeedPageForBrowsers(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newEnv(t, open(t))
		e.origin.set("/p.html", annotatedPage("Town news", story{"Bridge reopens", "http://example.org/bridge", "<b>Traffic</b> flows again"}))
		e.addSource("town", "/p.html")
		e.poll("town")
		for _, typ := range []string{"rss1", "rss2", "atom", "json"} {
			path := "/resources/town?max=50&type=" + typ
			plain := e.get(path).must(t, http.StatusOK, "GET "+path)
			for _, accept := range []string{readerAccept, "*/*", "application/json", "text/html;q=0.5, application/rss+xml"} {
				r := e.get(path, "Accept", accept).must(t, http.StatusOK, "GET "+path+" as a reader")
				if !bytes.Equal(r.body, plain.body) || r.header.Get("Content-Type") != plain.header.Get("Content-Type") {
					t.Errorf("%s with Accept %q is not the feed's exact bytes", path, accept)
				}
			}
			if !strings.Contains(plain.header.Get("Vary"), "Accept") {
				t.Errorf("%s: Vary %q, want Accept", path, plain.header.Get("Vary"))
			}
			page := e.get(path, "Accept", browserAccept).must(t, http.StatusOK, "GET "+path+" as a browser")
			if ct := page.header.Get("Content-Type"); ct != "text/xml; charset=utf-8" {
				t.Errorf("%s for a browser: Content-Type %q", path, ct)
			}
			if page.header.Get("ETag") == plain.header.Get("ETag") {
				t.Errorf("%s: the page and the feed share an ETag", path)
			}
			if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "style-src 'self'") ||
				!strings.Contains(csp, "script-src "+e.http.URL+"/feed.xsl;") {
				t.Errorf("%s: CSP %q", path, csp)
			}
			body := string(page.body)
			pi := `<?xml-stylesheet type="text/xsl" href="/feed.xsl"?>`
			if !strings.Contains(body, pi) || !strings.Contains(body, `<?dynamo-feed href="`+e.http.URL+`/resources/town?max=50`) {
				t.Errorf("%s for a browser does not reference the stylesheet and its own URL:\n%.400s", path, body)
			}
			verify.WellFormed(t, page.body)
			if typ == "json" {
				if !strings.Contains(body, `format="JSON Feed"`) || !strings.Contains(body, "<rss") {
					t.Errorf("JSON Feed is not shown through the RSS page:\n%.400s", body)
				}
				continue
			}
			// Without the two instructions, the page is the feed itself.
			stripped := strings.Replace(body, "\n"+pi, "", 1)
			if i := strings.Index(stripped, "\n<?dynamo-feed"); i >= 0 {
				stripped = stripped[:i] + stripped[i+strings.Index(stripped[i:], "?>")+2:]
			}
			if stripped != string(plain.body) {
				t.Errorf("%s: the page is not the feed plus the stylesheet", path)
			}
		}
		xsl := e.get("/feed.xsl").must(t, http.StatusOK, "GET /feed.xsl")
		if !strings.HasPrefix(xsl.header.Get("Content-Type"), "text/xsl") {
			t.Errorf("/feed.xsl served as %q", xsl.header.Get("Content-Type"))
		}
		verify.WellFormed(t, xsl.body)
		e.get("/feed.css").must(t, http.StatusOK, "GET /feed.css")
		// XMLData is not a feed: it has no page.
		if r := e.get("/resources/town?type=xmldata", "Accept", browserAccept); bytes.Contains(r.body, []byte("xml-stylesheet")) {
			t.Error("XMLData was given the feed page")
		}
	})
}
