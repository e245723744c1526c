package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/xsscorpus"
)

// xssSources are the XSS corpus's origins (internal/xsscorpus): an
// annotated page and a feed in each format, every field carrying script.
var xssSources = []struct {
	id, path, contentType string
	body                  func() string
	kind                  dynamo.SourceKind
}{
	{"xss-page", "/xss/page.html", "text/html; charset=utf-8", xsscorpus.Page, dynamo.KindHTML},
	{"xss-rss", "/xss/rss.xml", "application/rss+xml", xsscorpus.RSS, dynamo.KindFeed},
	{"xss-atom", "/xss/atom.xml", "application/atom+xml", xsscorpus.Atom, dynamo.KindFeed},
	{"xss-json", "/xss/feed.json", "application/feed+json", xsscorpus.JSON, dynamo.KindFeed},
}

// xssSite is a page with no annotations whose declared feeds and anchors
// carry the corpus's title and code-running URLs beside one real feed:
// what a preview's discovery lists of it is hostile.
func xssSite() string {
	t := html.EscapeString(xsscorpus.Text)
	return `<html><head><title>` + t + `</title>` +
		`<link rel="alternate" type="application/rss+xml" title="` + t + `" href="javascript:alert('alt')">` +
		`<link rel="alternate" type="application/atom+xml" title="` + t + `" href="/xss/gone.atom?&quot;&gt;&lt;script&gt;alert('q')&lt;/script&gt;">` +
		`<link rel="alternate" type="application/rss+xml" title="` + t + `" href="/xss/rss.xml">` +
		`</head><body><a href="/xss/feed.rss">` + t + ` RSS</a></body></html>`
}

// serveXSS puts the corpus's origins on the env's site.
func serveXSS(e *env) {
	e.site.mu.Lock()
	defer e.site.mu.Unlock()
	for _, s := range xssSources {
		e.site.pages[s.path] = sitePage{[]byte(s.body()), s.contentType}
	}
	e.site.pages["/xss/site/"] = sitePage{[]byte(xssSite()), "text/html; charset=utf-8"}
}

// seedXSS registers the corpus's origins as sources in a hostile
// category and polls each once.
func seedXSS(t *testing.T, e *env) {
	t.Helper()
	serveXSS(e)
	ctx := context.Background()
	for _, s := range xssSources {
		src := &dynamo.Source{ID: s.id, URL: e.site.URL + s.path, Kind: s.kind, Interval: dynamo.DefaultInterval, Category: xsscorpus.Text, Title: xsscorpus.Text}
		if err := e.store.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
		if out, err := e.poller.PollNow(ctx, s.id); err != nil || out.Status != dynamo.StatusChanged {
			t.Fatalf("poll %s: %+v, %v", s.id, out, err)
		}
	}
}

// inert fails the test when a page of the interface could run anything
// of the corpus (xsscorpus.InertPage) or holds a bidi control.
func inert(t *testing.T, what string, status int, page string) {
	t.Helper()
	if status >= 500 {
		t.Errorf("%s: HTTP %d", what, status)
	}
	if err := xsscorpus.InertPage([]byte(page)); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if err := xsscorpus.NoBidiInHTML([]byte(page)); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	checkSafe(t, page)
}

// TestXSSCorpusInTheNewPages runs the XSS corpus through every page issue
// 20 added, and through those that take input and so are not reached by
// the reliability suite's GETs: the add preview of each hostile origin and
// of a site whose declared feeds are hostile, the forms refused with
// hostile values, the OPML import's report of a hostile file, and the
// sources, categories, searches and settings of hostile sources.
func TestXSSCorpusInTheNewPages(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedXSS(t, e)
	c := client(t)
	_, page := get(t, c, e.srv.URL+"/ui/add")
	token := formToken(t, page)

	previews := map[string]string{"/xss/site/": "a site found by discovery"}
	for _, s := range xssSources {
		previews[s.path] = string(s.kind)
	}
	for path := range previews {
		resp, body := post(t, c, e.srv.URL+"/ui/add", url.Values{"csrf": {token}, "url": {e.site.URL + path}, "kind": {"auto"},
			"title": {xsscorpus.Text}, "category": {xsscorpus.Text}, "title_prefix": {xsscorpus.Text}})
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="preview-h"`) {
			t.Errorf("preview %s: %d, no preview", path, resp.StatusCode)
		}
		inert(t, "the preview of "+path, resp.StatusCode, body)
		if path == "/xss/site/" && (!strings.Contains(body, `class="candidates cards"`) || !strings.Contains(body, "alert(&#39;t1&#39;)")) {
			t.Errorf("the preview of the hostile site shows no candidates, or not the titles as text")
		}
	}

	hostile := url.Values{"csrf": {token}, "url": {"javascript:alert('u')"}, "category": {xsscorpus.Text}, "title": {xsscorpus.Text},
		"interval": {xsscorpus.Text}, "timezone": {xsscorpus.Text}, "item_selector": {xsscorpus.Text}, "id": {xsscorpus.Text}}
	for _, path := range []string{"/ui/sources", "/ui/add", "/ui/sources/xss-page/settings"} {
		resp, body := post(t, c, e.srv.URL+path, hostile)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("POST %s with hostile values: %d, want 400", path, resp.StatusCode)
		}
		inert(t, "POST "+path+" refused", resp.StatusCode, body)
	}

	esc := html.EscapeString(xsscorpus.Text)
	file := []byte(`<?xml version="1.0"?><opml version="2.0" xmlns:dynamo="https://github.com/dynamo-feeds/dynamo/ns/opml"><head><title>` + esc + `</title></head><body>
<outline text="` + esc + `"><outline text="` + esc + `" type="rss" xmlUrl="http://x.example/a?&quot;&gt;&lt;script&gt;alert('x')&lt;/script&gt;" htmlUrl="javascript:alert('h')"/>
<outline text="` + esc + `" type="rss" xmlUrl="javascript:alert('o')"/>
<outline text="` + esc + `" type="rss" xmlUrl="http://y.example/" dynamo:category="` + esc + `" dynamo:interval="` + esc + `"/>
<outline text="` + esc + `" type="rss" xmlUrl="http://z.example/" dynamo:id="` + esc + `"/></outline>
</body></opml>`)
	resp, body := upload(t, c, e.srv.URL+"/ui/opml", token, xsscorpus.Text+".opml", file)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="report-h"`) {
		t.Errorf("the hostile OPML file: %d, no report", resp.StatusCode)
	}
	inert(t, "the OPML report", resp.StatusCode, body)
	resp, body = upload(t, c, e.srv.URL+"/ui/opml", token, xsscorpus.Text, []byte(xsscorpus.Text))
	inert(t, "an unreadable hostile OPML file", resp.StatusCode, body)

	cat := url.QueryEscape(xsscorpus.Text)
	pages := []string{"/ui/", "/ui/categories", "/ui/?category=" + cat, "/ui/?status=active", "/ui/?status=" + cat,
		"/ui/search?title=script", "/ui/search?category=" + cat + "&desc=alert", "/ui/search?link=http&since=2000-01-01",
		"/ui/add?url=" + cat, "/ui/opml"}
	for _, s := range xssSources {
		pages = append(pages, "/ui/sources/"+s.id, "/ui/sources/"+s.id+"/edit", "/ui/search?id="+s.id+"&title=alert")
	}
	for _, p := range pages {
		status, body := get(t, c, e.srv.URL+p)
		inert(t, "GET "+p, status, body)
	}
}
