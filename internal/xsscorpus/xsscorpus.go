// Package xsscorpus is the XSS corpus Dynamo's tests run through every
// format and page (docs/RELIABILITY.md): payloads that try every way HTML
// has to run script, as a page annotation would carry them and as RSS,
// Atom and JSON Feed would, and the checks that what Dynamo shows of them
// is inert. The reliability suite reads them back through the API and the
// interface; the web interface's tests through the pages that take input
// (previews, the OPML report, refused forms) and the feed pages as
// Chromium renders them.
package xsscorpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTML is a description that tries every way HTML has to run script:
// elements, event handlers, javascript:, vbscript: and data: URLs in
// every URL attribute, obfuscated schemes, SVG and MathML, CSS, meta
// refresh, base, forms, and parser confusions (comments, CDATA, noscript).
const HTML = `<p>Kept text.</p><script>alert('d1')</script><img src="x" onerror="alert('d2')">` +
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

// Text is a title that is markup: it must stay text. Its bidi override
// and isolate (U+202E, U+2067) would reverse the text shown after them: they
// must be gone from every format and page.
const Text = "<script>alert('t1')</script><img src=x onerror=alert('t2')>\"'><svg/onload=alert('t3')>\u202e3pm.exe\u2067x"

// NoBidi reports a bidi embedding, override or isolate control (U+202A to
// U+202E, U+2066 to U+2069) in a document of any format: raw, as an XML or
// HTML character reference (&#x202E;, &#8238;) or as a JSON or JavaScript
// escape (\u202e).
func NoBidi(body []byte) error {
	if err := NoBidiInHTML(body); err != nil {
		return err
	}
	if m := bidiEscape.Find(body); m != nil {
		return fmt.Errorf("an escaped bidi control %s", m)
	}
	return nil
}

// NoBidiInHTML is NoBidi for an HTML page, which decodes character
// references but not backslash escapes: a message that quotes a value as
// Go's %q does shows a control as the text "\u202e", which is what it
// should show.
func NoBidiInHTML(page []byte) error {
	if i := bytes.IndexFunc(page, func(r rune) bool { return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 }); i >= 0 {
		return fmt.Errorf("a bidi control at byte %d: %q", i, page[max(0, i-40):min(len(page), i+10)])
	}
	if m := bidiReference.Find(page); m != nil {
		return fmt.Errorf("a bidi control as a character reference %s", m)
	}
	return nil
}

// bidiReference and bidiEscape match a bidi control written as a
// character reference (hexadecimal or decimal) and as a \u escape.
var (
	bidiReference = regexp.MustCompile(`(?i)&#(x0*(202[a-e]|206[6-9])|0*(823[4-8]|829[4-7]))\b`)
	bidiEscape    = regexp.MustCompile(`(?i)\\u(202[a-e]|206[6-9])`)
)

// XHTML is the well-formed XML version, for Atom's type="xhtml".
const XHTML = `<p>Kept text.</p><script>alert('x1')</script><img src="x" onerror="alert('x2')"/><a href="javascript:alert('x3')">a</a>` +
	`<iframe src="javascript:alert('x4')"/><svg xmlns="http://www.w3.org/2000/svg" onload="alert('x5')"/>`

// Page is an annotated page with a payload in every field an annotation
// can fill, and a javascript: <base href> that relative links resolve
// against.
func Page() string {
	esc := html.EscapeString
	return `<html><head><base href="javascript:alert('base')//"><title>x</title></head><body>
<!-- <channel:title> --><script>alert('ct')</script>` + esc(Text) + ` Channel<!-- </channel:title> -->
<!-- <channel:link> --><a href="javascript:alert('cl')">home</a><!-- </channel:link> -->
<!-- <channel:description> -->` + HTML + `<!-- </channel:description> -->
<!-- <channel:image url="javascript:alert('ci')" link="javascript:alert('cil')" title="` + esc(Text) + `"/> -->
<!-- <channel:extension uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="rights"> --><script>alert('ce')</script>` + esc(Text) + `<!-- </channel:extension> -->
<!-- <item:title index="1"> -->` + esc(Text) + `<!-- </item:title> -->
<!-- <item:link index="1"> --><a href=" JaVaScRiPt:alert('il')">x</a><!-- </item:link> -->
<!-- <item:description index="1"> -->` + HTML + `<!-- </item:description> -->
<!-- <item:image index="1" url="javascript:alert('ii')" title="` + esc(Text) + `"/> -->
<!-- <item:extension index="1" uri="https://evil.example/ns&quot;&gt;&lt;script&gt;" prefix="x" localName="y"> --><script>alert('ie')</script>` + esc(Text) + `<!-- </item:extension> -->
<!-- <item:extension index="1" uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="creator"> -->` + esc(Text) + `<!-- </item:extension> -->
<!-- <item:title index="2"> --><b onclick="alert('t4')">Second</b> &#60;script&#62;alert('t5')&#60;/script&#62;<!-- </item:title> -->
<!-- <item:link index="2"> -->data:text/html,&lt;script&gt;alert('l2')&lt;/script&gt;<!-- </item:link> -->
<!-- <item:description index="2"> --><img src="/pic.png" onerror="alert('d2b')" alt="` + esc(Text) + `"><!-- </item:description> -->
<!-- <item:title index="3"> -->Plain third<!-- </item:title> -->
<!-- <item:link index="3"> --><a href="vbscript:msgbox('l3')">v</a><!-- </item:link> -->
</body></html>
`
}

// RSS is an RSS 2.0 feed with payloads in every element a reader shows.
func RSS() string {
	cdata := func(s string) string { return "<![CDATA[" + s + "]]>" }
	esc := html.EscapeString
	return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>` + esc(Text) + `Wire</title><link>javascript:alert('rl')</link>
<description>` + cdata(HTML) + `</description>
<image><url>javascript:alert('ri')</url><title>` + esc(Text) + `</title><link>javascript:alert('ril')</link></image>
<item><title>` + cdata(Text) + `</title><link>javascript:alert('il')</link><guid isPermaLink="true">javascript:alert('ig')</guid>
<description>` + cdata(HTML) + `</description><content:encoded>` + esc(HTML) + `</content:encoded>
<dc:creator>` + esc(Text) + `</dc:creator><category>` + esc(Text) + `</category>
<enclosure url="javascript:alert('enc')" type="text/html" length="1"/><comments>javascript:alert('com')</comments>
<source url="javascript:alert('src')">` + esc(Text) + `</source></item>
<item><title>Escaped twice</title><link>http://wire.example/ok</link><description>&amp;lt;script&amp;gt;alert('e2')&amp;lt;/script&amp;gt; &lt;b&gt;ok&lt;/b&gt;</description></item>
</channel></rss>`
}

// Atom is an Atom feed with payloads as HTML, as XHTML and in links.
func Atom() string {
	esc := html.EscapeString
	return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="javascript:alert('xb')//"><title type="html">` + esc(Text) + `Atom</title>
<id>urn:xss</id><updated>2026-11-23T10:00:00Z</updated><link href="javascript:alert('al')"/><icon>javascript:alert('ai')</icon>
<subtitle type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">` + XHTML + `</div></subtitle>
<entry><title type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><b onmouseover="alert('et')">T</b><script>alert('et2')</script></div></title>
<id>urn:e1</id><updated>2026-11-23T10:00:00Z</updated><link rel="alternate" href="javascript:alert('el')"/>
<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">` + XHTML + `</div></content>
<summary type="html">` + esc(HTML) + `</summary><author><name>` + esc(Text) + `</name><uri>javascript:alert('au')</uri></author></entry>
<entry><title>` + esc(Text) + `</title><id>urn:e2</id><updated>2026-11-23T09:00:00Z</updated><link href="relative/ok.html"/>
<content type="html">` + esc(HTML) + `</content></entry>
</feed>`
}

// JSON is a JSON Feed with payloads in its HTML, text and URL members.
func JSON() string {
	item := map[string]any{
		"id": "1", "url": "javascript:alert('ju')", "external_url": "javascript:alert('je')", "title": Text,
		"content_html": HTML, "summary": Text, "image": "javascript:alert('ji')", "banner_image": "javascript:alert('jb')",
		"authors": []any{map[string]any{"name": Text, "url": "javascript:alert('ja')"}}, "tags": []any{Text},
		"date_published": "2026-11-23T10:00:00Z",
	}
	feed := map[string]any{
		"version": "https://jsonfeed.org/version/1.1", "title": Text, "home_page_url": "javascript:alert('jh')",
		"feed_url": "javascript:alert('jf')", "description": HTML, "icon": "javascript:alert('jicon')",
		"items": []any{item, map[string]any{"id": "2", "content_text": Text, "url": "/ok"}},
	}
	b, _ := json.Marshal(feed)
	return string(b)
}

// badScheme matches a URL that runs code or carries a document, once the
// characters browsers ignore in a scheme are removed.
var badScheme = regexp.MustCompile(`^(javascript|vbscript|data|livescript|mocha):`)

// InertURL reports why u would run code when followed.
func InertURL(u string) error {
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

// ActiveElements are elements that run, load or redirect to something.
var ActiveElements = map[string]bool{
	"script": true, "iframe": true, "frame": true, "frameset": true, "object": true, "embed": true, "applet": true,
	"form": true, "base": true, "meta": true, "link": true, "style": true, "isindex": true, "svg": true, "math": true,
}

// FeedActiveElements are the active elements that feed vocabulary never
// uses: a feed's own <link> is not HTML's.
var FeedActiveElements = map[string]bool{
	"script": true, "iframe": true, "frame": true, "frameset": true, "object": true, "embed": true, "applet": true,
	"base": true, "style": true, "svg": true,
}

// urlAttributes hold URLs that a browser may follow or load.
var urlAttributes = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "data": true, "poster": true, "background": true,
	"srcset": true, "dynsrc": true, "lowsrc": true, "cite": true, "longdesc": true, "usemap": true, "xlink:href": true,
	"about": true, "resource": true, "uri": true, "url": true,
}

// CheckElement reports an active element or attribute: name is the
// element's, attrs its attributes.
func CheckElement(name string, attrs [][2]string) error {
	return CheckElementIn(name, attrs, ActiveElements)
}

// CheckElementIn is CheckElement with its own set of active elements.
func CheckElementIn(name string, attrs [][2]string, active map[string]bool) error {
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
				if err := InertURL(strings.TrimSpace(part)); err != nil {
					return fmt.Errorf("<%s %s>: %v", name, a[0], err)
				}
			}
		}
	}
	return nil
}

// InertHTML parses fragment as a browser would (inside a <div>) and
// reports the first thing in it that could run script.
func InertHTML(fragment string) error {
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
			if err := CheckElement(n.Data, attrs); err != nil {
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
	return CheckElement(n.Data, attrs)
}

// InertPage checks one of the web interface's pages: no script or other
// active element, no event handler, no code-running URL, and no payload
// left unescaped in the bytes.
func InertPage(page []byte) error {
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
		if err := CheckElement(name, attrs); err != nil {
			return err
		}
	}
	return nil
}
