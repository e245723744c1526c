package sanitize_test

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

// onePassSeeds are descriptions for HTMLText's tests and fuzz corpus: the
// markup the one pass takes and the markup it hands back to HTML.
var onePassSeeds = []string{
	`<p>After four hours of debate, the council voted 5&ndash;2. <a href="/library/">library</a> <b>Story 1</b> <a href="story.html">Full story</a></p>`,
	`<p>one<p>two`,
	`<ul><li>a<li>b</ul>`,
	`<ul><li>a<ul><li>b</li></ul></li></ul>`,
	`<dl><dt>t<dd>d</dl>`,
	`<b>bold <i>both`,
	`<b><i>x</b></i>`,
	`</div>text`,
	`<div><p>para</div>`,
	`<a href="/a"><a href="/b">x</a></a>`,
	`<h1>a<h2>b</h2></h1>`,
	`<p>x<hr>y</p>`,
	`<img src="a.png" srcset="a.png 1x, b.png 2x" alt="A &amp; B"><br/><br>`,
	`<a href="javascript:alert(1)" onclick="evil()">x</a>`,
	`<p onclick="steal()">See <a href="post-1.html">this</a><script>x()</script></p>`,
	`<table><tr><td>cell</td></tr></table>`,
	`<font face="Georgia" size="1">By Staff &middot; <span style="color:red">x</span></font>`,
	`<p/>self<div/>closing`,
	"text with \u0000 nul and \r\n breaks &#13; and 'quotes' \"double\" <3 & more",
	`<!-- comment --><p title='a"b'>x</p><!DOCTYPE html>`,
	`<a href="foo bar.html">spaces</a> <q cite="../q">q</q> <img src=" /x.png ">`,
	`<blockquote><p>quoted</p></blockquote><pre>
pre</pre>`,
	`<div>a</div>b<div>c</div><br>d<li>e`,
	`<p>a</p>   <p>b</p><del>d</del><ins>i</ins><sub>1</sub><sup>2</sup>`,
	`<A HREF="/UP">Up</A><P CLASS=x>Para</P>`,
	`<p><b>unclosed at end`,
	`<object data="x.swf">alt text</object><noscript>ns</noscript>`,
	strings.Repeat("<span><b>", 300) + "deep" + strings.Repeat("<ul><li>", 50) + "lists",
}

// HTMLText gives exactly what HTML and Text give, whether its one pass
// takes the fragment or hands it back.
func TestHTMLTextMatchesHTMLAndText(t *testing.T) {
	base, _ := url.Parse("http://example.com/news/index.html")
	for _, in := range onePassSeeds {
		for _, b := range []*url.URL{base, nil} {
			checkHTMLText(t, in, b)
		}
	}
}

func checkHTMLText(t *testing.T, in string, base *url.URL) {
	t.Helper()
	h, txt := sanitize.HTMLText(in, base)
	wantH := sanitize.HTML(in, base)
	if wantTxt := sanitize.Text(wantH); h != wantH || txt != wantTxt {
		t.Errorf("HTMLText(%q, %v) =\n%q %q\nwant\n%q %q", in, base, h, txt, wantH, wantTxt)
	}
}

func FuzzHTMLText(f *testing.F) {
	for _, s := range onePassSeeds {
		f.Add(s)
	}
	base, _ := url.Parse("http://example.com/news/index.html")
	f.Fuzz(func(t *testing.T, in string) {
		checkHTMLText(t, in, base)
	})
}

// The one pass takes common description markup and hands back what the
// tree builder would change.
func TestOnePassTakes(t *testing.T) {
	base, _ := url.Parse("http://example.com/")
	for in, want := range map[string]bool{
		onePassSeeds[0]:                      true,
		`<b>bold <i>both`:                    true,
		`<ul><li>a</li><li>b</li></ul>`:      true,
		`<img src="a.png"><br>x<hr>`:         true,
		`<p>one<p>two`:                       false,
		`<b><i>x</b></i>`:                    false,
		`<table><tr><td>x</td></tr></table>`: false,
		`<script>x()</script>`:               false,
		`</div>text`:                         false,
		// Deep nesting: each start tag is checked in constant time.
		strings.Repeat("<span>", 20000) + "deep":          true,
		strings.Repeat("<ul><li>", 5000) + "nested lists": false,
		strings.Repeat("<div>", 20000) + "<p>x</p></div>": true,
	} {
		if got := sanitize.OnePassTakes(in, base); got != want {
			t.Errorf("one pass takes %q: %v, want %v", in, got, want)
		}
	}
}

// FuzzCollapse: the one pass collapses white space and drops bidi
// controls as the standard library would on the text read rune by rune
// (each invalid byte a U+FFFD), and SingleLine is the same rule.
func FuzzCollapse(f *testing.F) {
	for _, s := range []string{" a  b ", "\u00a0x\u2003y\t\n", "\xff \xfe", "", "a \u202e b\u2066c", "\xa4\u2066", "\xe2\x80\u202a\x8a", "one line", "a\x01 b", " a", "a ", "a\vb", "December 08, 2005 @ 08:25 AM"} {
		f.Add(s)
	}
	dropBidi := func(r rune) rune {
		if sanitize.IsBidiControl(r) {
			return -1
		}
		return r
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Join(strings.Fields(strings.Map(dropBidi, string([]rune(s)))), " ")
		if got := sanitize.Collapse([]byte(s)); got != want {
			t.Errorf("collapse(%q) = %q, want %q", s, got, want)
		}
		if got := sanitize.SingleLine(s); got != want {
			t.Errorf("SingleLine(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzWithoutBidi: no bidi control survives, even one that dropping
// another would otherwise assemble from the bytes around it.
func FuzzWithoutBidi(f *testing.F) {
	for _, s := range []string{"a\u202eb", "\xe2\u2066\x80\xaa", "plain", "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if out := sanitize.WithoutBidi(b); bytes.IndexFunc(out, sanitize.IsBidiControl) >= 0 {
			t.Errorf("WithoutBidi(%q) = %q still holds a bidi control", b, out)
		}
	})
}
