package sanitize_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

func TestHTML(t *testing.T) {
	base, _ := url.Parse("http://example.com/news/index.html")
	tests := []struct {
		name, in string
		want     []string // substrings of the output
		not      []string // must not appear
	}{
		{"script", `<p>hi<script>alert(1)</script></p>`, []string{"<p>hi</p>"}, []string{"script", "alert"}},
		{"style", `<style>p{}</style><p>x</p>`, []string{"<p>x</p>"}, []string{"style"}},
		{"event handler", `<a href="/a" onclick="evil()">a</a>`, []string{`href="http://example.com/a"`}, []string{"onclick", "evil"}},
		{"javascript url", `<a href="javascript:alert(1)">x</a>`, []string{"x"}, []string{"javascript"}},
		{"relative img", `<img src="../img/a.png" alt="A">`, []string{`src="http://example.com/img/a.png"`}, nil},
		{"srcset", `<img src="a.png" srcset="a.png 1x, b.png 2x">`, []string{`http://example.com/news/a.png 1x, http://example.com/news/b.png 2x`}, nil},
		{"fragment link", `<a href="#top">top</a>`, []string{`href="http://example.com/news/index.html#top"`}, nil},
		{"unbalanced", `<b>bold <i>both`, []string{"<b>bold <i>both</i></b>"}, nil},
		{"stray close", `</div>text`, []string{"text"}, []string{"</div>"}},
		{"iframe", `<iframe src="http://evil"></iframe>ok`, []string{"ok"}, []string{"iframe"}},
		{"srcset with absolute and relative URLs", `<img src="a.png" srcset="https://cdn.example/a.png 480w, /b.png?x=1:2 2x">`,
			[]string{`srcset="https://cdn.example/a.png 480w, http://example.com/b.png?x=1:2 2x"`}, nil},
		{"javascript srcset", `<img src="a.png" srcset="javascript:alert(1) 1x">`, []string{`src="http://example.com/news/a.png"`}, []string{"srcset", "javascript"}},
		{"javascript srcset candidate", `<img srcset="b.png 1x, JavaScript:alert(1) 2x" src="a.png">`, []string{"<img"}, []string{"srcset", "alert"}},
		{"data srcset", `<img srcset="data:image/svg+xml;base64,PHN2Zz4= 1x">`, nil, []string{"srcset", "data:"}},
		{"split scheme srcset", "<img srcset=\"java\tscript:alert(1) 1x\">", nil, []string{"srcset", "alert"}},
	}
	for _, tt := range tests {
		got := sanitize.HTML(tt.in, base)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: HTML(%q) = %q, want it to contain %q", tt.name, tt.in, got, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: HTML(%q) = %q, must not contain %q", tt.name, tt.in, got, n)
			}
		}
	}
}

func TestHTMLWithoutBaseKeepsRelativeURLs(t *testing.T) {
	if got := sanitize.HTML(`<a href="/a">a</a>`, nil); got != `<a href="/a">a</a>` {
		t.Errorf("HTML without base = %q", got)
	}
}

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<p>Hello <b>world</b></p><p>again</p>", "Hello world again"},
		{"caf&eacute; &amp; cr&#232;me", "café & crème"},
		{"a<br>b", "a b"},
		{"  lots \n\t of   space ", "lots of space"},
		{"<script>var x = '<p>';</script>visible<style>p{}</style>", "visible"},
		{"<unclosed attr='x", ""},
		// Bidi overrides and isolates go; marks, which RTL text uses, stay.
		{"invoice \u202egpj.exe", "invoice gpj.exe"},
		{"a\u2066b\u2069 \u202b \u202c c", "ab c"},
		{"\u05e9\u05dc\u05d5\u05dd\u200f!", "\u05e9\u05dc\u05d5\u05dd\u200f!"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := sanitize.Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func ExampleHTML() {
	base, _ := url.Parse("http://example.com/blog/")
	fmt.Println(sanitize.HTML(`<p onclick="steal()">See <a href="post-1.html">this</a><script>x()</script></p>`, base))
	// Output: <p>See <a href="http://example.com/blog/post-1.html">this</a></p>
}
