package wrapper

import "testing"

// FuzzPlainHref: whenever plainHref reads a link annotation without the
// tokenizer, the tokenizer reads the same href.
func FuzzPlainHref(f *testing.F) {
	for _, s := range []string{
		`<a href="/news/2005/12/08/story.html">`, ` <a href="x">y</a>`, `<a href="a&amp;b">`, `<a href=" ">`,
		`<a href="x"`, `<a href="x" title="t">`, `<A HREF="x">`, "<a href=\"x\r\ny\">", `<a href="<b>">`, "\v<a href=\"x\">",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		href, ok := plainHref(s)
		if !ok {
			return
		}
		if want, found := tokenizedHref(s); !found || want != href {
			t.Errorf("plainHref(%q) = %q; the tokenizer reads %q, %v", s, href, want, found)
		}
	})
}
