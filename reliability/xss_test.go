package reliability_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/internal/xsscorpus"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/web"
)

// htmlElement reports whether an element of a feed in format f holds
// HTML as text: description (not in RSS 1.0, whose description is plain
// text by its specification and by docs/TRANSFORM.md) and content:encoded,
// and Atom text constructs of type="html".
func htmlElement(f transform.Format, local, atomType string) bool {
	switch f {
	case transform.Atom:
		return atomType == "html" && (local == "content" || local == "summary" || local == "subtitle" || local == "title" || local == "rights")
	case transform.RSS1:
		return local == "encoded"
	default:
		return local == "description" || local == "encoded"
	}
}

// urlElements are the feed elements whose text is a URL.
var urlElements = map[string]bool{"link": true, "url": true, "docs": true, "comments": true, "icon": true, "logo": true, "uri": true}

// inertFeed checks an XML feed: no active element or attribute anywhere
// (Atom's XHTML content is inline), every URL inert, and the text of
// every element that readers show as HTML inert once parsed as HTML.
// Titles are text in every format Dynamo writes (Atom's are type="text"),
// and markup in them is escaped as text, which wellFormed checks.
func inertFeed(doc []byte, f transform.Format) error {
	if err := wellFormed(doc); err != nil {
		return err
	}
	d := xml.NewDecoder(bytes.NewReader(doc))
	type open struct {
		name string
		html bool
		text strings.Builder
	}
	var stack []*open
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			var attrs [][2]string
			atomType := "text"
			for _, a := range tok.Attr {
				attrs = append(attrs, [2]string{a.Name.Local, a.Value})
				if a.Name.Local == "type" && a.Name.Space == "" {
					atomType = a.Value
				}
			}
			isHTML := htmlElement(f, tok.Name.Local, atomType)
			active := xsscorpus.FeedActiveElements
			if tok.Name.Space == "http://www.w3.org/1999/xhtml" {
				active = xsscorpus.ActiveElements
			}
			if err := xsscorpus.CheckElementIn(tok.Name.Local, attrs, active); err != nil {
				return err
			}
			stack = append(stack, &open{name: tok.Name.Local, html: isHTML})
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(tok)
			}
		case xml.EndElement:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			text := top.text.String()
			if top.html {
				if err := xsscorpus.InertHTML(text); err != nil {
					return fmt.Errorf("<%s> holds HTML with a %v", top.name, err)
				}
			}
			if urlElements[top.name] || top.name == "guid" && strings.Contains(text, ":") {
				if err := xsscorpus.InertURL(strings.TrimSpace(text)); err != nil {
					return fmt.Errorf("<%s>: %v", top.name, err)
				}
			}
		}
	}
}

// inertJSONFeed checks a JSON Feed: content_html inert once parsed, every
// URL member inert.
func inertJSONFeed(doc []byte) error {
	if err := validJSONFeed(doc); err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return err
	}
	var walk func(key string, v any) error
	walk = func(key string, v any) error {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if err := walk(k, x); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range v {
				if err := walk(key, x); err != nil {
					return err
				}
			}
		case string:
			switch {
			case key == "content_html":
				if err := xsscorpus.InertHTML(v); err != nil {
					return fmt.Errorf("content_html holds a %v", err)
				}
			case key == "url" || strings.HasSuffix(key, "_url") || key == "image" || key == "banner_image" || key == "icon" || key == "favicon":
				if err := xsscorpus.InertURL(v); err != nil {
					return fmt.Errorf("%s: %v", key, err)
				}
			}
		}
		return nil
	}
	return walk("", v)
}

// feedparserFields prints, for a feed and each of its entries, every
// field feedparser read with the content type it decided on, and every
// link, so the test can hold each to the rule its type calls for.
const feedparserFields = `
import json, sys
import feedparser

d = feedparser.parse(sys.argv[1])
out = {"bozo": bool(d.bozo), "error": str(d.get("bozo_exception", "")), "fields": [], "links": []}
def field(where, name, detail):
    if detail:
        out["fields"].append([where + " " + name, detail.get("type", ""), detail.get("value", "")])
def links(where, obj):
    for key in ("link", "id", "href"):
        if isinstance(obj.get(key), str):
            out["links"].append([where + " " + key, obj[key]])
    for l in obj.get("links", []):
        out["links"].append([where + " link " + l.get("rel", ""), l.get("href", "")])
    for e in obj.get("enclosures", []):
        out["links"].append([where + " enclosure", e.get("href", "")])
    if obj.get("image"):
        links(where + " image", obj["image"])
for name in ("title", "subtitle", "rights", "info"):
    field("feed", name, d.feed.get(name + "_detail"))
links("feed", d.feed)
for i, e in enumerate(d.entries):
    where = "entry %d" % (i + 1)
    for name in ("title", "summary", "rights"):
        field(where, name, e.get(name + "_detail"))
    for c in e.get("content", []):
        field(where, "content", c)
    links(where, e)
json.dump(out, sys.stdout)
`

// checkFeedparser parses a feed with Debian's python3-feedparser and checks
// what it read: not malformed (bozo), every HTML or XHTML field inert once
// parsed as HTML, every link inert. Plain-text fields may hold anything:
// readers show them as text. RSS 1.0's <description> is text, which
// feedparser reads as HTML like every RSS <description>: transform escapes
// it for that, so it is checked like the HTML fields.
func checkFeedparser(t *testing.T, name string, doc []byte) {
	t.Helper()
	verify.Feed(t, doc, feedparserVersionOf(doc))
	file := filepath.Join(t.TempDir(), "feed")
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", "-c", feedparserFields, file).Output()
	if err != nil {
		t.Fatalf("%s: feedparser: %v", name, err)
	}
	var parsed struct {
		Bozo   bool       `json:"bozo"`
		Error  string     `json:"error"`
		Fields [][]string `json:"fields"`
		Links  [][]string `json:"links"`
	}
	if err := json.Unmarshal(out, &parsed); err != nil {
		t.Fatalf("%s: feedparser output: %v", name, err)
	}
	if parsed.Bozo {
		t.Errorf("%s: feedparser finds the feed malformed: %s", name, parsed.Error)
	}
	for _, f := range parsed.Fields {
		where, typ, value := f[0], f[1], f[2]
		if typ == "text/html" || typ == "application/xhtml+xml" {
			if err := xsscorpus.InertHTML(value); err != nil {
				t.Errorf("%s: feedparser's %s (%s) holds a %v: %q", name, where, typ, err, value)
			}
		}
	}
	for _, l := range parsed.Links {
		if err := xsscorpus.InertURL(l[1]); err != nil {
			t.Errorf("%s: feedparser's %s: %v", name, l[0], err)
		}
	}
}

// feedparserVersionOf is the version feedparser must read a Dynamo feed as.
func feedparserVersionOf(doc []byte) string {
	switch {
	case bytes.Contains(doc, []byte("<rdf:RDF")):
		return "rss10"
	case bytes.Contains(doc, []byte("<rss")):
		return "rss20"
	}
	return "atom10"
}

// TestXSSPayloadsStayInert polls an annotated page, an RSS feed, an Atom
// feed and a JSON Feed whose every field carries script, and reads them
// back through the API in every format (each version, the archive, the
// aggregate, the listings) and through the web interface. Every feed stays
// well-formed; HTML fields hold no element, attribute or URL that runs
// code; no URL anywhere is javascript:, vbscript: or data:; Debian's
// feedparser finds no script in what it parses; and the web pages show
// the payloads as text only.
func TestXSSPayloadsStayInert(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bodies := map[string]struct{ body, contentType string }{
		"/page.html": {xsscorpus.Page(), "text/html; charset=utf-8"},
		"/rss.xml":   {xsscorpus.RSS(), "application/rss+xml"},
		"/atom.xml":  {xsscorpus.Atom(), "application/atom+xml"},
		"/feed.json": {xsscorpus.JSON(), "application/feed+json"},
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", b.contentType)
		io.WriteString(w, b.body)
	}))
	defer origin.Close()
	sources := []struct {
		id, path string
		kind     dynamo.SourceKind
	}{
		{"page", "/page.html", dynamo.KindHTML}, {"rss", "/rss.xml", dynamo.KindFeed},
		{"atom", "/atom.xml", dynamo.KindFeed}, {"json", "/feed.json", dynamo.KindFeed},
	}
	p, err := poller.New(poller.Config{Store: st, Fetcher: fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1}), Owner: "xss-test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sources {
		if err := st.CreateSource(ctx, &dynamo.Source{ID: s.id, URL: origin.URL + s.path, Kind: s.kind, Interval: dynamo.Duration(time.Hour), Category: "xss"}); err != nil {
			t.Fatal(err)
		}
		if out, err := p.PollNow(ctx, s.id); err != nil || out.Status != dynamo.StatusChanged {
			t.Fatalf("poll %s: %+v, %v", s.id, out, err)
		}
	}

	apiSrv, err := api.New(api.Config{Store: st, Poller: p})
	if err != nil {
		t.Fatal(err)
	}
	feeds := httptest.NewServer(apiSrv)
	defer feeds.Close()
	get := func(srv *httptest.Server, path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: HTTP %d: %s", path, resp.StatusCode, body)
		}
		return resp, body
	}
	var paths []string
	for _, s := range sources {
		paths = append(paths, "/resources/"+s.id+"?index=1", "/resources/"+s.id+"?max=50", "/resources/"+s.id)
	}
	paths = append(paths, "/aggregate?max=50&dups=include", "/aggregate?category=xss", "/resources")
	checked := 0
	for _, path := range paths {
		for _, f := range transform.Formats() {
			full := path + "&type=" + string(f)
			if !strings.Contains(path, "?") {
				full = path + "?type=" + string(f)
			}
			_, body := get(feeds, full)
			checked++
			if err := xsscorpus.NoBidi(body); err != nil {
				t.Errorf("GET %s: %v", full, err)
			}
			if f == transform.JSON {
				if err := inertJSONFeed(body); err != nil {
					t.Errorf("GET %s: %v\n%.3000s", full, err, body)
				}
				continue
			}
			if err := inertFeed(body, f); err != nil {
				t.Errorf("GET %s: %v\n%.3000s", full, err, body)
				continue
			}
			if f != transform.XMLData && (strings.Contains(path, "max=50") || strings.HasPrefix(path, "/resources/page")) {
				checkFeedparser(t, "GET "+full, body)
			}
		}
	}
	// The payloads' text survives where it is text: it was shown, not
	// dropped wholesale.
	_, body := get(feeds, "/resources/page?index=1&type=json")
	if !strings.Contains(string(body), `alert('t1')`) || !strings.Contains(string(body), "Kept text.") {
		t.Errorf("the page's title text or kept description text is missing:\n%s", body)
	}
	t.Logf("%d feed documents checked (%d paths × %d formats)", checked, len(paths), len(transform.Formats()))

	// The feeds' readable pages, as a browser asking for HTML gets them.
	for _, s := range sources {
		for _, f := range []transform.Format{transform.RSS1, transform.RSS2, transform.Atom, transform.JSON} {
			full := "/resources/" + s.id + "?max=50&type=" + string(f)
			req, _ := http.NewRequest(http.MethodGet, feeds.URL+full, nil)
			req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Contains(body, []byte(`<?xml-stylesheet type="text/xsl" href="/feed.xsl"?>`)) {
				t.Errorf("GET %s as a browser: no readable page", full)
			}
			shown := f
			if f == transform.JSON {
				shown = transform.RSS2 // JSON Feed is shown through its RSS 2.0 page
			}
			if err := inertFeed(body, shown); err != nil {
				t.Errorf("GET %s as a browser: %v", full, err)
			}
			if err := xsscorpus.NoBidi(body); err != nil {
				t.Errorf("GET %s as a browser: %v", full, err)
			}
		}
	}
	// A hostile category name, in the pages that list categories.
	js, err := st.Source(ctx, "json")
	if err != nil {
		t.Fatal(err)
	}
	js.Category = "<script>alert('cat')</script>\"><img src=x onerror=alert('cat2')>"
	if err := st.UpdateSource(ctx, js); err != nil {
		t.Fatal(err)
	}

	ui, err := web.New(web.Config{Store: st, Poller: p})
	if err != nil {
		t.Fatal(err)
	}
	pages := httptest.NewServer(ui)
	defer pages.Close()
	uiPaths := []string{"/ui/", "/ui/search?id=page&title=script", "/ui/search?id=rss&description=alert", "/ui/search?id=" + url.QueryEscape("<script>"),
		"/ui/search?title=script", "/ui/search?category=xss&description=alert", "/ui/search?category=" + url.QueryEscape(js.Category) + "&title=a",
		"/ui/categories", "/ui/?category=xss", "/ui/?category=" + url.QueryEscape(js.Category), "/ui/?status=active",
		"/ui/add?url=" + url.QueryEscape("javascript:alert('add')"), "/ui/opml"}
	for _, s := range sources {
		uiPaths = append(uiPaths, "/ui/sources/"+s.id, "/ui/sources/"+s.id+"/edit")
	}
	for _, path := range uiPaths {
		resp, err := http.Get(pages.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
			t.Errorf("GET %s: Content-Security-Policy %q allows script", path, csp)
		}
		if err := xsscorpus.InertPage(body); err != nil {
			t.Errorf("GET %s: %v", path, err)
		}
		if err := xsscorpus.NoBidi(body); err != nil {
			t.Errorf("GET %s: %v", path, err)
		}
	}
}
