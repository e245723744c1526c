package sanitize_test

import (
	"net/url"
	"testing"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

// plainScanSeeds are fragments plainScan reads and fragments it leaves to
// the tokenizer: the forms of tags, comments and text at the edges of
// what it reads.
var plainScanSeeds = []string{
	`<p class="x" id='y' hidden>a<br/>b<img src="i.png" alt="">c</p>`,
	`<A HREF="/Up" Title="T">up</A><P>para`,
	`a < b <3 <<b>x</b> 1<2 trailing <`,
	`text &amp; &lt;b&gt; &ndash; &notit; &#x41;&#65; &bogus`,
	`<!-- c --><!----><!--><!---><!-- a--!><!-- a- ->x-->y`,
	`<!DOCTYPE html><?php x ?><!x>`,
	`<a href=x>unquoted</a><a href = "x">spaced</a><a href="x"title="y">glued</a>`,
	`<a href="?a=1&amp;b=2">entity in a value</a>`,
	`<b/>x</b ><b>y</b x="1"></>z</ b>`,
	`<p>cut <a href="x`,
	`<p>cut <a`,
	"<p>tab\tnew\nline\fform</p><p\tclass=\"a\"\n>x</p>",
	"nul \x00 and cr \r\n",
	`<script>alert(1)</script><style>p{}</style><title>t</title><textarea><b></textarea>`,
	`<h1-x>dash</h1-x><a:b>colon</a:b><verylongelementname12345>x</verylongelementname12345>`,
	`<img src="a.png" / ><br / ><hr/>`,
	`<q cite="http://example.com/q">q</q><blockquote cite="https://example.com/b">b</blockquote>`,
	`x<hr>y</0>`,
	`<A 0 0><img SRC="a.png" src="b.png" Alt='x' alt="y">`,
}

// FuzzPlainScan: where plainScan reads a fragment, onePass writes what it
// writes from x/net/html's tokens, byte for byte.
func FuzzPlainScan(f *testing.F) {
	for _, s := range append(append(plainScanSeeds, onePassSeeds...), replaySecurityCases...) {
		f.Add(s)
	}
	base, _ := url.Parse("http://example.com/news/index.html")
	f.Fuzz(func(t *testing.T, in string) {
		scanned, tokenized, read := sanitize.ScanAndTokenize(in, base)
		if read && scanned != tokenized {
			t.Errorf("plainScan of %q gives\n%+v\nthe tokenizer\n%+v", in, scanned, tokenized)
		}
	})
}

// plainScan reads the plain forms and leaves the others to the tokenizer,
// and gives what the tokenizer gives.
func TestPlainScan(t *testing.T) {
	base, _ := url.Parse("http://example.com/news/index.html")
	for _, in := range append(append(plainScanSeeds, onePassSeeds...), replaySecurityCases...) {
		scanned, tokenized, read := sanitize.ScanAndTokenize(in, base)
		if read && scanned != tokenized {
			t.Errorf("plainScan of %q gives\n%+v\nthe tokenizer\n%+v", in, scanned, tokenized)
		}
		checkHTMLText(t, in, base)
	}
	for in, want := range map[string]bool{
		plainScanSeeds[0]:                         true,
		plainScanSeeds[1]:                         true,
		plainScanSeeds[2]:                         true,
		plainScanSeeds[3]:                         true,
		plainScanSeeds[4]:                         false, // "<!-- a- ->x-->" does not end at its first '>'
		`<!-- c --><!----><!--><!---><!-- a--!>x`: true,
		plainScanSeeds[5]:                         false,
		plainScanSeeds[6]:                         false,
		plainScanSeeds[7]:                         false,
		plainScanSeeds[8]:                         false,
		plainScanSeeds[9]:                         false,
		plainScanSeeds[10]:                        false,
		plainScanSeeds[11]:                        true,
		plainScanSeeds[12]:                        false,
		plainScanSeeds[13]:                        true, // read up to the script, which the one pass refuses
		plainScanSeeds[15]:                        false,
		plainScanSeeds[16]:                        true,
	} {
		if _, _, read := sanitize.ScanAndTokenize(in, base); read != want {
			t.Errorf("plainScan reads %q: %v, want %v", in, read, want)
		}
	}
}

// FuzzResolver: the one pass's resolver gives what Resolve gives, for one
// base after another, and a URL it says is plain is.
func FuzzResolver(f *testing.F) {
	for _, s := range [][2]string{
		{"http://example.com/news/index.html", "/library/"}, {"http://example.com/news/", "story-1.html?id=2&x=y"},
		{"https://u:p@h:8080/a/b/../c/d", "x/y/"}, {"http://h", "a"}, {"http://h/a//b/", "c/./d"}, {"http://h/%41/b", "../c"},
		{"http://h/a", "//other/x"}, {"http://h/a?q#f", "?x"}, {"http://h/é/", "a?"}, {"http://[::1]:80/x/y", "z"},
		{"mailto:a@b", "x"}, {"http://h/a b/", "c"}, {"http://h/a", ""}, {"http://h/a", "a/.."}, {"http://H%41/", "x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, err := url.Parse(base)
		if err != nil {
			return
		}
		var resolver sanitize.Resolver
		for _, r := range []string{ref, "x", ref, "/" + ref} {
			got, plain := resolver.Resolve(b, r)
			if want := sanitize.Resolve(b, r); got != want {
				t.Errorf("resolver(%q, %q) = %q, want %q", base, r, got, want)
			}
			if plain && !sanitize.PlainURL(got) {
				t.Errorf("resolver(%q, %q) = %q, said plain, is not", base, r, got)
			}
		}
	})
}
