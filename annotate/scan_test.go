package annotate

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// FuzzScan checks the scanner against the tokenizer: the same tokens, of
// the same types and raw bytes, to the same end, and for every tag the
// same name and attributes from the scanner's tokenizer.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"<!DOCTYPE html><html><head><title>a<b></title></head><body><p class=x>t</p></body></html>",
		`<a href="/x" class='y z' id=w>t</a>`, `<p a=/>`, `<div =b ==c d= e f = "g" h/ i / j=k/>`, `<a href=x&amp;y>`,
		"<script>if (a<b) x()</script ><style></style>", "<TITLE>x</Title>y", "<xmp><p></xmp>", "<plaintext><a>",
		"<!-- c --><!--><?x?></><//a></ a>", "a<", "a<b", "<a b='c", "<a b=c", "</a b", "<br/><BR/ ><p\tid=a\nclass=b\fx>",
		"<svg><![CDATA[x]]></svg>", "<p\x00q>x</p\x00q>", "<noscript><img src=a></noscript>", "x < y <3 z", "<textarea/>t</textarea>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) { checkScan(t, []byte(page)) })
}

// checkScan is FuzzScan's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkScan(t *testing.T, raw []byte) {
	page := string(raw)
	for _, always := range []bool{false, true} {
		z := html.NewTokenizer(strings.NewReader(page))
		s := newScanner([]byte(page), always)
		for k := 0; ; k++ {
			want := z.Next()
			got, raw := s.next()
			if got != want {
				t.Fatalf("always %v, token %d: scanner %v %q, tokenizer %v %q", always, k, got, raw, want, z.Raw())
			}
			if want == html.ErrorToken {
				break
			}
			if !bytes.Equal(raw, z.Raw()) {
				t.Fatalf("always %v, token %d (%v): scanner %q, tokenizer %q", always, k, got, raw, z.Raw())
			}
			if want != html.StartTagToken && want != html.SelfClosingTagToken && want != html.EndTagToken {
				continue
			}
			raw = slices.Clone(raw)
			sz := s.tokenizer(raw)
			for {
				gotName, gotMore := sz.TagName()
				wantName, wantMore := z.TagName()
				if string(gotName) != string(wantName) || gotMore != wantMore {
					t.Fatalf("tag %q: scanner's name %q (%v), tokenizer's %q (%v)", raw, gotName, gotMore, wantName, wantMore)
				}
				for wantMore {
					var gk, gv, wk, wv []byte
					gk, gv, gotMore = sz.TagAttr()
					wk, wv, wantMore = z.TagAttr()
					if string(gk) != string(wk) || string(gv) != string(wv) || gotMore != wantMore {
						t.Fatalf("tag %q: scanner's attribute %q=%q, tokenizer's %q=%q", raw, gk, gv, wk, wv)
					}
				}
				break
			}
		}
	}
}
