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
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/web"
)

// xssHTML is a description that tries every way HTML has to run script:
// elements, event handlers, javascript:, vbscript: and data: URLs in
// every URL attribute, obfuscated schemes, SVG and MathML, CSS, meta
// refresh, base, forms, and parser confusions (comments, CDATA, noscript).
const xssHTML = `<p>Kept text.</p><script>alert('d1')</script><img src="x" onerror="alert('d2')">` +
	`<a href="javascript:alert('d3')">j</a><a href=" JaVaScRiPt:alert('d4')">j</a><a href="&#106;avascript:alert('d5')">j</a>` +
	`<a href="java&#x09;script:alert('d6')">j</a><iframe src="javascript:alert('d7')"></iframe><svg><script>alert('d8')</script></svg>` +
	`<svg onload="alert('d9')"><a xlink:href="javascript:alert('d10')"><text>t</text></a></svg>` +
	`<math><mi xlink:href="javascript:alert('d11')">m</mi></math><form action="javascript:alert('d12')"><button formaction="javascript:alert('d13')">b</button></form>` +
	`<object data="javascript:alert('d14')"></object><embed src="javascript:alert('d15')"><style>body{background:url("javascript:alert('d16')")}</style>` +
	`<div style="background:url(javascript:alert('d17'));width:expression(alert('d18'))">s</div><meta http-equiv="refresh" content="0;url=javascript:alert('d19')">` +
	`<base href="javascript:alert('d20')//"><img srcset="javascript:alert('d21') 1x"><video poster="javascript:alert('d22')"></video>` +
	`<details open ontoggle="alert('d23')">x</details><a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgnZDI0Jyk8L3NjcmlwdD4=">d</a>` +
	`<a href="vbscript:msgbox('d25')">v</a><!--<script>alert('d26')</script>--><noscript><p title="</noscript><img src=x onerror=alert('d27')>"></noscript>` +
	`<table background="javascript:alert('d28')"><tr><td>t</td></tr></table><isindex action="javascript:alert('d29')"><marquee onstart="alert('d30')">m</marquee>` +
	`<a href="/relative/ok.html">a harmless link</a>`

// xssText is a title that is markup: it must stay text. Its bidi override
// and isolate (U+202E, U+2067) would reverse the text shown after them: they
// must be gone from every format and page.
const xssText = "<script>alert('t1')</script><img src=x onerror=alert('t2')>\"'><svg/onload=alert('t3')>\u202e3pm.exe\u2067x"

// noBidi reports a bidi embedding, override or isolate control in a
// document, raw or escaped.
func noBidi(body []byte) error {
	if i := bytes.IndexFunc(body, func(r rune) bool { return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 }); i >= 0 {
		return fmt.Errorf("a bidi control at byte %d: %q", i, body[max(0, i-40):min(len(body), i+10)])
	}
	for _, escaped := range []string{`\u202`, `\u206`, `&#x202`, `&#x206`, `&#820`, `&#822`} {
		if bytes.Contains(bytes.ToLower(body), []byte(escaped)) {
			return fmt.Errorf("an escaped bidi control %s…", escaped)
		}
	}
	return nil
}

// xssXHTML is the well-formed XML version, for Atom's type="xhtml".
const xssXHTML = `<p>Kept text.</p><script>alert('x1')</script><img src="x" onerror="alert('x2')"/><a href="javascript:alert('x3')">a</a>` +
	`<iframe src="javascript:alert('x4')"/><svg xmlns="http://www.w3.org/2000/svg" onload="alert('x5')"/>`

// xssPage is an annotated page with a payload in every field an annotation
// can fill, and a javascript: <base href> that relative links resolve
// against.
func xssPage() string {
	esc := html.EscapeString
	return `<html><head><base href="javascript:alert('base')//"><title>x</title></head><body>
<!-- <channel:title> --><script>alert('ct')</script>` + esc(xssText) + ` Channel<!-- </channel:title> -->
<!-- <channel:link> --><a href="javascript:alert('cl')">home</a><!-- </channel:link> -->
<!-- <channel:description> -->` + xssHTML + `<!-- </channel:description> -->
<!-- <channel:image url="javascript:alert('ci')" link="javascript:alert('cil')" title="` + esc(xssText) + `"/> -->
<!-- <channel:extension uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="rights"> --><script>alert('ce')</script>` + esc(xssText) + `<!-- </channel:extension> -->
<!-- <item:title index="1"> -->` + esc(xssText) + `<!-- </item:title> -->
<!-- <item:link index="1"> --><a href=" JaVaScRiPt:alert('il')">x</a><!-- </item:link> -->
<!-- <item:description index="1"> -->` + xssHTML + `<!-- </item:description> -->
<!-- <item:image index="1" url="javascript:alert('ii')" title="` + esc(xssText) + `"/> -->
<!-- <item:extension index="1" uri="https://evil.example/ns&quot;&gt;&lt;script&gt;" prefix="x" localName="y"> --><script>alert('ie')</script>` + esc(xssText) + `<!-- </item:extension> -->
<!-- <item:extension index="1" uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="creator"> -->` + esc(xssText) + `<!-- </item:extension> -->
<!-- <item:title index="2"> --><b onclick="alert('t4')">Second</b> &#60;script&#62;alert('t5')&#60;/script&#62;<!-- </item:title> -->
<!-- <item:link index="2"> -->data:text/html,&lt;script&gt;alert('l2')&lt;/script&gt;<!-- </item:link> -->
<!-- <item:description index="2"> --><img src="/pic.png" onerror="alert('d2b')" alt="` + esc(xssText) + `"><!-- </item:description> -->
<!-- <item:title index="3"> -->Plain third<!-- </item:title> -->
<!-- <item:link index="3"> --><a href="vbscript:msgbox('l3')">v</a><!-- </item:link> -->
</body></html>
`
}

// xssRSS is an RSS 2.0 feed with payloads in every element a reader shows.
func xssRSS() string {
	cdata := func(s string) string { return "<![CDATA[" + s + "]]>" }
	esc := html.EscapeString
	return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>` + esc(xssText) + `Wire</title><link>javascript:alert('rl')</link>
<description>` + cdata(xssHTML) + `</description>
<image><url>javascript:alert('ri')</url><title>` + esc(xssText) + `</title><link>javascript:alert('ril')</link></image>
<item><title>` + cdata(xssText) + `</title><link>javascript:alert('il')</link><guid isPermaLink="true">javascript:alert('ig')</guid>
<description>` + cdata(xssHTML) + `</description><content:encoded>` + esc(xssHTML) + `</content:encoded>
<dc:creator>` + esc(xssText) + `</dc:creator><category>` + esc(xssText) + `</category>
<enclosure url="javascript:alert('enc')" type="text/html" length="1"/><comments>javascript:alert('com')</comments>
<source url="javascript:alert('src')">` + esc(xssText) + `</source></item>
<item><title>Escaped twice</title><link>http://wire.example/ok</link><description>&amp;lt;script&amp;gt;alert('e2')&amp;lt;/script&amp;gt; &lt;b&gt;ok&lt;/b&gt;</description></item>
</channel></rss>`
}

// xssAtom is an Atom feed with payloads as HTML, as XHTML and in links.
func xssAtom() string {
	esc := html.EscapeString
	return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="javascript:alert('xb')//"><title type="html">` + esc(xssText) + `Atom</title>
<id>urn:xss</id><updated>2026-11-23T10:00:00Z</updated><link href="javascript:alert('al')"/><icon>javascript:alert('ai')</icon>
<subtitle type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">` + xssXHTML + `</div></subtitle>
<entry><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><b onmouseover="alert('et')">T</b><script>alert('et2')</script></div></title>
<id>urn:e1</id><updated>2026-11-23T10:00:00Z</updated><link rel="alternate" href="javascript:alert('el')"/>
<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">` + xssXHTML + `</div></content>
<summary type="html">` + esc(xssHTML) + `</summary><author><name>` + esc(xssText) + `</name><uri>javascript:alert('au')</uri></author></entry>
<entry><title>` + esc(xssText) + `</title><id>urn:e2</id><updated>2026-11-23T09:00:00Z</updated><link href="relative/ok.html"/>
<content type="html">` + esc(xssHTML) + `</content></entry>
</feed>`
}

// xssJSON is a JSON Feed with payloads in its HTML, text and URL members.
func xssJSON() string {
	item := map[string]any{
		"id": "1", "url": "javascript:alert('ju')", "external_url": "javascript:alert('je')", "title": xssText,
		"content_html": xssHTML, "summary": xssText, "image": "javascript:alert('ji')", "banner_image": "javascript:alert('jb')",
		"authors": []any{map[string]any{"name": xssText, "url": "javascript:alert('ja')"}}, "tags": []any{xssText},
		"date_published": "2026-11-23T10:00:00Z",
	}
	feed := map[string]any{
		"version": "https://jsonfeed.org/version/1.1", "title": xssText, "home_page_url": "javascript:alert('jh')",
		"feed_url": "javascript:alert('jf')", "description": xssHTML, "icon": "javascript:alert('jicon')",
		"items": []any{item, map[string]any{"id": "2", "content_text": xssText, "url": "/ok"}},
	}
	b, _ := json.Marshal(feed)
	return string(b)
}

// badScheme matches a URL that runs code or carries a document, once the
// characters browsers ignore in a scheme are removed.
var badScheme = regexp.MustCompile(`^(javascript|vbscript|data|livescript|mocha):`)

// inertURL reports why u would run code when followed.
func inertURL(u string) error {
	clean := strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToLower(html.UnescapeString(u)))
	if badScheme.MatchString(clean) {
		return fmt.Errorf("URL %q runs code", u)
	}
	return nil
}

// activeElements are elements that run, load or redirect to something.
var activeElements = map[string]bool{
	"script": true, "iframe": true, "frame": true, "frameset": true, "object": true, "embed": true, "applet": true,
	"form": true, "base": true, "meta": true, "link": true, "style": true, "isindex": true, "svg": true, "math": true,
}

// feedActiveElements are the active elements that feed vocabulary never
// uses: a feed's own <link> is not HTML's.
var feedActiveElements = map[string]bool{
	"script": true, "iframe": true, "frame": true, "frameset": true, "object": true, "embed": true, "applet": true,
	"base": true, "style": true, "svg": true,
}

// urlAttributes hold URLs that a browser may follow or load.
var urlAttributes = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "data": true, "poster": true, "background": true,
	"srcset": true, "dynsrc": true, "lowsrc": true, "cite": true, "longdesc": true, "usemap": true, "xlink:href": true,
	"about": true, "resource": true, "uri": true, "url": true,
}

// checkElement reports an active element or attribute: name is the
// element's, attrs its attributes.
func checkElement(name string, attrs [][2]string) error {
	return checkElementIn(name, attrs, activeElements)
}

// checkElementIn is checkElement with its own set of active elements.
func checkElementIn(name string, attrs [][2]string, active map[string]bool) error {
	if active[strings.ToLower(name)] {
		return fmt.Errorf("<%s> element", name)
	}
	for _, a := range attrs {
		key, val := strings.ToLower(a[0]), a[1]
		if strings.HasPrefix(key, "on") {
			return fmt.Errorf("<%s %s=%q> event handler", name, a[0], val)
		}
		if key == "style" && (strings.Contains(strings.ToLower(val), "javascript:") || strings.Contains(strings.ToLower(val), "expression(")) {
			return fmt.Errorf("<%s style=%q> runs code", name, val)
		}
		if urlAttributes[key] || strings.HasSuffix(key, ":href") {
			for _, part := range strings.Split(val, ",") { // srcset
				if err := inertURL(strings.TrimSpace(part)); err != nil {
					return fmt.Errorf("<%s %s>: %v", name, a[0], err)
				}
			}
		}
	}
	return nil
}

// inertHTML parses fragment as a browser would (inside a <div>) and
// reports the first thing in it that could run script.
func inertHTML(fragment string) error {
	nodes, err := html.ParseFragment(strings.NewReader(fragment), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return err
	}
	for _, top := range nodes {
		for n := range top.Descendants() {
			if n.Type != html.ElementNode {
				continue
			}
			var attrs [][2]string
			for _, a := range n.Attr {
				k := a.Key
				if a.Namespace != "" {
					k = a.Namespace + ":" + a.Key
				}
				attrs = append(attrs, [2]string{k, a.Val})
			}
			if err := checkElement(n.Data, attrs); err != nil {
				return err
			}
		}
		if err := checkElementNode(top); err != nil {
			return err
		}
	}
	return nil
}

// checkElementNode checks a top-level node of a fragment, which
// Descendants does not visit.
func checkElementNode(n *html.Node) error {
	if n.Type != html.ElementNode {
		return nil
	}
	var attrs [][2]string
	for _, a := range n.Attr {
		attrs = append(attrs, [2]string{a.Key, a.Val})
	}
	return checkElement(n.Data, attrs)
}

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
			active := feedActiveElements
			if tok.Name.Space == "http://www.w3.org/1999/xhtml" {
				active = activeElements
			}
			if err := checkElementIn(tok.Name.Local, attrs, active); err != nil {
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
				if err := inertHTML(text); err != nil {
					return fmt.Errorf("<%s> holds HTML with a %v", top.name, err)
				}
			}
			if urlElements[top.name] || top.name == "guid" && strings.Contains(text, ":") {
				if err := inertURL(strings.TrimSpace(text)); err != nil {
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
				if err := inertHTML(v); err != nil {
					return fmt.Errorf("content_html holds a %v", err)
				}
			case key == "url" || strings.HasSuffix(key, "_url") || key == "image" || key == "banner_image" || key == "icon" || key == "favicon":
				if err := inertURL(v); err != nil {
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
			if err := inertHTML(value); err != nil {
				t.Errorf("%s: feedparser's %s (%s) holds a %v: %q", name, where, typ, err, value)
			}
		}
	}
	for _, l := range parsed.Links {
		if err := inertURL(l[1]); err != nil {
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
		"/page.html": {xssPage(), "text/html; charset=utf-8"},
		"/rss.xml":   {xssRSS(), "application/rss+xml"},
		"/atom.xml":  {xssAtom(), "application/atom+xml"},
		"/feed.json": {xssJSON(), "application/feed+json"},
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
			if err := noBidi(body); err != nil {
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
			if err := noBidi(body); err != nil {
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
		if err := inertPage(body); err != nil {
			t.Errorf("GET %s: %v", path, err)
		}
		if err := noBidi(body); err != nil {
			t.Errorf("GET %s: %v", path, err)
		}
	}
}

// inertPage checks one of the web interface's pages: no script or other
// active element, no event handler, no code-running URL, and no payload
// left unescaped in the bytes.
func inertPage(page []byte) error {
	if bytes.Contains(bytes.ToLower(page), []byte("<script")) {
		return errors.New("the page holds <script unescaped")
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return err
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		var attrs [][2]string
		for _, a := range n.Attr {
			attrs = append(attrs, [2]string{a.Key, a.Val})
		}
		name := n.Data
		if name == "link" || name == "meta" || name == "svg" || name == "form" {
			// The interface's own style sheet, charset, charts and action
			// forms: allowed, but their attributes are still checked.
			name = "x-" + name
		}
		if err := checkElement(name, attrs); err != nil {
			return err
		}
	}
	return nil
}
