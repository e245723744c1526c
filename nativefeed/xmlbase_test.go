package nativefeed

import (
	"strings"
	"testing"
)

// TestXMLBase resolves relative URLs under xml:base as RFC 3986 does: a
// base naming a file is not a directory, bases nest, a fragment stays on
// its document, and RSS (Drupal) has bases too.
func TestXMLBase(t *testing.T) {
	atom := `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://s.example/blog/index.html"><title>B</title><link href="./"/>
	<entry xml:base="2026/post.html"><title>P</title><id>p</id><link href="?print=1"/>
	<content type="html" xml:base="https://cdn.example/a/b.html">&lt;a href="c.html"&gt;c&lt;/a&gt; &lt;a href="#fn:1"&gt;1&lt;/a&gt; &lt;img src="/i.png"&gt;</content></entry>
	<entry><title>Q</title><id>q</id><link href="q.html"/><summary type="html">&lt;a href="#top"&gt;top&lt;/a&gt;</summary></entry></feed>`
	res := parse(t, []byte(atom), "application/atom+xml")
	if got := res.Resource.Channel.Link; got != "https://s.example/blog/" {
		t.Errorf("channel link %s", got)
	}
	p, q := res.Resource.Items[0], res.Resource.Items[1]
	if p.Link != "https://s.example/blog/2026/post.html?print=1" || q.Link != "https://s.example/blog/q.html" {
		t.Errorf("links %s %s", p.Link, q.Link)
	}
	for _, want := range []string{`href="https://cdn.example/a/c.html"`, `href="https://cdn.example/a/b.html#fn:1"`, `src="https://cdn.example/i.png"`} {
		if !strings.Contains(p.Description, want) {
			t.Errorf("content %s lacks %s", p.Description, want)
		}
	}
	if want := `href="https://s.example/blog/index.html#top"`; !strings.Contains(q.Description, want) {
		t.Errorf("summary %s lacks %s", q.Description, want)
	}

	rss := `<rss version="2.0" xml:base="https://lib.example/"><channel><title>L</title><link>https://lib.example/</link>
	<item><title>S</title><link>news/s</link><description>&lt;a href="events/s"&gt;e&lt;/a&gt;</description></item></channel></rss>`
	it := parse(t, []byte(rss), "").Resource.Items[0]
	if it.Link != "https://lib.example/news/s" || !strings.Contains(it.Description, `href="https://lib.example/events/s"`) {
		t.Errorf("rss item %s %s", it.Link, it.Description)
	}
}

// TestTitleText reads a title as markup only when it looks like markup, as
// feedparser judges titles.
func TestTitleText(t *testing.T) {
	for in, want := range map[string]string{
		"The <blink> tag":             "The <blink> tag",
		"On <footnotes>":              "On <footnotes>",
		"5 < 6 > 4":                   "5 < 6 > 4",
		"AT&T":                        "AT&T",
		"<b>Bold</b> move":            "Bold move",
		"nail polish &amp; won&#39;t": "nail polish & won't",
		"Hello &lt;world&gt;":         "Hello <world>",
		"line<br>break":               "line break",
		"T<!-- c -->":                 "T",
		"  spaced\n out ":             "spaced out",
		`safe<embed src="http://x.example/"> description`: "safe description",
		`a <meta http-equiv="Refresh" content="0"> b`:     "a b",
		"x <y=1> z": "x <y=1> z",
	} {
		if got := titleText(in); got != want {
			t.Errorf("titleText(%q) = %q, want %q", in, got, want)
		}
	}
}
