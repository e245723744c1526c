package annotate

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo/values"
)

// FuzzPlain checks that plainSimple, whenever it reads a stretch of
// markup, gives what the tokenizer gives.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{
		`<a href="/x">Title &amp; more</a>`,
		`<h2 class="t"><a href=/p/1/>One</a></h2><p>Two<br>three</p>`,
		`a < b <br/> c <p a=/>d</p> <div/>e`,
		`<td>1<td>2</tr><li>x</li>`,
		`<a =x b='>' c="<">y</a>`,
		`<b>x</b><!-- c --><script>z</script>`,
		`&notit; &amp &#x41;<i>q</i>`,
		"<p\tclass=a\n>x\r\ny</p >",
		`<a href="x`,
		`<`,
		`</>x</ y>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkPlain(t, []byte(s)) })
}

// checkPlain is FuzzPlain's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkPlain(t *testing.T, raw []byte) {
	s := string(raw)
	got, ok := plainSimple(s)
	if !ok {
		return
	}
	if want := plainTokenized(s); got != want {
		t.Fatalf("plainSimple(%q) = %q, the tokenizer gives %q", s, got, want)
	}
}

// TestPlainSimpleReads checks that the fast reading is taken for the
// markup it is meant for, and left for what it is not.
func TestPlainSimpleReads(t *testing.T) {
	for s, want := range map[string]bool{
		`<h2 class="entry-title"><a href="/2024/03/post/">Post &amp; more</a></h2>`: true,
		`<p>One<br>two</p><div id=x>three</div>`:                                    true,
		`a < b`:                                                                     true,
		`<br/>`:                                                                     false,
		`<b>x</b><!-- c -->`:                                                        false,
		`<span>x</span><script>y</script>`:                                          false,
		`<a href="x`:                                                                false,
		"x\x00y<b>":                                                                 false,
	} {
		got, ok := plainSimple(s)
		if ok != want {
			t.Errorf("plainSimple(%q): ok %v, want %v", s, ok, want)
		}
		if ok && got != plainTokenized(s) {
			t.Errorf("plainSimple(%q) = %q, the tokenizer gives %q", s, got, plainTokenized(s))
		}
	}
}

// FuzzKeepsText checks that keepsText never says the sanitizer keeps text
// where it keeps none.
func FuzzKeepsText(f *testing.F) {
	for s := range keepsTextCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkKeepsText(t, []byte(s)) })
}

// checkKeepsText is FuzzKeepsText's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkKeepsText(t *testing.T, raw []byte) {
	s := string(raw)
	if !keepsText(s) {
		return
	}
	if html, _ := values.Description(s, nil, nil); html == "" {
		t.Fatalf("keepsText(%q) is true, the sanitizer keeps nothing", s)
	}
}

// keepsTextCases are markup and whether keepsText answers for it without
// the sanitizer.
var keepsTextCases = map[string]bool{
	`<p>The beans are up, the slugs are back.</p>`:      true,
	`<div class="summary"><p>Two &amp; three</p></div>`: true,
	`a < b`:                               true,
	`</span> x`:                           true,
	`<p data-x="a>b">c</p>`:               true,
	`&nbsp; &amp; &#65;`:                  false,
	`<p></p>`:                             false,
	`<script>x</script>`:                  false,
	`<style>p{}</style>`:                  false,
	`<title>x</title>`:                    false,
	`<noscript>x</noscript>`:              false,
	`<iframe>x</iframe>`:                  false,
	`<object>x</object>`:                  false,
	`<textarea>x</textarea>`:              false,
	`<!-- x -->`:                          false,
	`<? x ?>`:                             false,
	`</ x>`:                               false,
	`<p class="x`:                         false,
	"<p>x\x00</p>":                        false,
	`<span><frameset>x</frameset></span>`: false,
	`<P>x</P>`:                            true,
	`<time datetime="2024-03-01">March 1, 2024</time> Ann`:        true,
	`<unknown-element>x</unknown-element>`:                        false,
	`<a href="/x">Read more</a><script>document.write()</script>`: true,
}

// TestKeepsText checks the answers keepsText gives, and that each is the
// sanitizer's.
func TestKeepsText(t *testing.T) {
	for s, want := range keepsTextCases {
		if got := keepsText(s); got != want {
			t.Errorf("keepsText(%q) = %v, want %v", s, got, want)
		}
		if html, _ := values.Description(s, nil, nil); want && html == "" {
			t.Errorf("keepsText(%q): the sanitizer keeps nothing", s)
		}
	}
}

// FuzzPlainLink checks that every link plainLink passes is one usableHref
// passes when it parses it.
func FuzzPlainLink(f *testing.F) {
	for _, s := range []string{"/2024/03/post-1/", "news-12.html", "https://www.example.com/a_b~c", "http://x", "//host/p", "https:///x", "", "#top", "a b", "HTTPS://X.ORG", "viewtopic.php?f=2&t=10", "/p?a=1&copy=2", "/p?x&amp;y&lt;", "javascript&#58alert"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, href string) {
		if plainLink(href) && !parsedUsable(href) {
			t.Fatalf("plainLink(%q) is true, usableHref's parsing refuses it", href)
		}
	})
}

// FuzzJoinFields checks joinFields and hasFields against strings.Fields.
func FuzzJoinFields(f *testing.F) {
	for _, s := range []string{"Post number 3", "[Users] Re: a title\n", " a", "a  b", "a\tb", "a\u00a0b", "a\u0085 b", "\xff x", "", " "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fields := strings.Fields(s)
		if got, want := joinFields(s), strings.Join(fields, " "); got != want {
			t.Fatalf("joinFields(%q) = %q, want %q", s, got, want)
		}
		for n := 0; n <= len(fields)+1; n++ {
			if got, want := hasFields(s, n), len(fields) >= n; got != want {
				t.Fatalf("hasFields(%q, %d) = %v, want %v", s, n, got, want)
			}
		}
	})
}

// FuzzPlainTagName checks plainTagName against the tokenizer: whenever it
// reads a start or end tag's name, the name is TagName's, and a start tag
// it reads as ending at '>' has no attribute.
func FuzzPlainTagName(f *testing.F) {
	for _, s := range []string{"<p>a</p>", "<h2 class=x>t</H2>", "<br/><BR>", "<a\x00b>x</a\x00b >", "<script>x</script >y", "<p\tid=a>", "</>", "<svg:a>b</svg:a>", "<p", "<x-y>z</x-y>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) { checkPlainTagName(t, []byte(page)) })
}

// checkPlainTagName is FuzzPlainTagName's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkPlainTagName(t *testing.T, raw []byte) {
	page := string(raw)
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		from := 1
		switch tt {
		case html.EndTagToken:
			from = 2
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		raw := slices.Clone(z.Raw())
		name, after, _, ok := plainTagName(raw, from, nil)
		want, hasAttr := z.TagName()
		if !ok {
			continue
		}
		if string(name) != string(want) {
			t.Fatalf("plainTagName(%q) = %q, TagName %q", raw, name, want)
		}
		if from == 1 && raw[after] == '>' && hasAttr {
			t.Fatalf("plainTagName(%q) ends the tag at '>', the tokenizer reads attributes", raw)
		}
	}
}

// FuzzRawAttrs checks readRawAttrs against the tokenizer: whenever it
// reads a start tag's attributes, they are those TagAttr gives, in order.
func FuzzRawAttrs(f *testing.F) {
	for _, s := range []string{
		`<a href="/x" class='y z' id=w>t</a>`, `<p a=/>`, `<div =b ==c d= e f = "g" h/ i / j=k/>`, `<a href=x href=y HREF=z>`,
		`<img src=a.png alt="a > b">`, `<a title="x&amp;y">`, `<A HREF="p?a=1&amp;b=2&amp" Title=x&amp;amp;>`, `<TD VALIGN=top><FONT FACE="Verdana" face=x>`, "<p\tid=a\nclass=b\fx>", `<a b="c`, `<a b='c' d="e'f">`, `<br/>`, `<x-y z>`,
		`<a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc dd ee ff gg hh>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) { checkRawAttrs(t, []byte(page)) })
}

// checkRawAttrs is FuzzRawAttrs's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkRawAttrs(t *testing.T, raw []byte) {
	page := string(raw)
	z := html.NewTokenizer(strings.NewReader(page))
	var got []rawAttr
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		raw := slices.Clone(z.Raw())
		_, after, _, ok := plainTagName(raw, 1, nil)
		if !ok {
			continue
		}
		got, _, _, ok = readRawAttrs(got[:0], raw, after, nil)
		_, more := z.TagName()
		var want []rawAttr
		for more {
			var a rawAttr
			a.key, a.val, more = z.TagAttr()
			want = append(want, a)
		}
		if !ok {
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("readRawAttrs(%q) read %d attributes, TagAttr %d", raw, len(got), len(want))
		}
		for i := range got {
			if string(got[i].key) != string(want[i].key) || string(got[i].val) != string(want[i].val) {
				t.Fatalf("readRawAttrs(%q): attribute %d is %q=%q, TagAttr's %q=%q", raw, i, got[i].key, got[i].val, want[i].key, want[i].val)
			}
		}
	}
}
