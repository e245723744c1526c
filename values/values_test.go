package values

import (
	"net/url"
	"testing"
)

func TestURI(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://example.org/a b?q=é", "http://example.org/a%20b?q=%C3%A9"},
		{"http://[::1]:8080/x[1]", "http://[::1]:8080/x%5B1%5D"},
		{"http://example.org/100%", "http://example.org/100%25"},
		{"http://example.org/%7E", "http://example.org/%7E"},
		{"/a|b", "/a%7Cb"},
	} {
		if got := URI(tc.in); got != tc.want {
			t.Errorf("URI(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestResolveLink(t *testing.T) {
	base, _ := url.Parse("http://example.org/news/")
	for _, tc := range []struct{ ref, link, problem string }{
		{"story.html", "http://example.org/news/story.html", ""},
		{" /a\n/b ", "http://example.org/a/b", ""},
		{"", "", "is empty"},
		{"JavaScript:alert(1)", "", "is a javascript: URL, which feeds do not carry"},
		{"http://%zz", "", `"http://%zz" is not a URL`},
		// url.Parse takes '>' in a host; escaped, it is not a host.
		{"p://D->http://x/", "", `"p://D->http://x/" is not a URL`},
		{"http://a<b/", "", `"http://a<b/" is not a URL`},
		{"http://café.example/", "http://caf%C3%A9.example/", ""},
	} {
		link, problem := ResolveLink(base, tc.ref)
		if link != tc.link || problem != tc.problem {
			t.Errorf("ResolveLink(%q) = %q, %q; want %q, %q", tc.ref, link, problem, tc.link, tc.problem)
		}
	}
}

func TestDescriptionAndPlainText(t *testing.T) {
	base, _ := url.Parse("http://example.org/")
	for _, tc := range []struct{ in, html, text string }{
		{"  ", "", ""},
		{" plain  words ", "plain  words", "plain words"},
		{`<p>A <a href="/x">link</a></p><script>x</script>`, `<p>A <a href="http://example.org/x">link</a></p>`, "A link"},
	} {
		h, text := Description(tc.in, base, nil)
		if h != tc.html || text != tc.text {
			t.Errorf("Description(%q) = %q, %q; want %q, %q", tc.in, h, text, tc.html, tc.text)
		}
	}
	called := false
	Description("<b>x</b>", base, func(string, *url.URL) (string, string) { called = true; return "", "" })
	if !called {
		t.Error("Description did not use the sanitizer it was given")
	}
	for in, want := range map[string]string{"Tom &amp; Jerry": "Tom & Jerry", "<b>bold</b>  move": "bold move", " a\n b ": "a b",
		// Characters XML does not allow, raw or referred to, are removed.
		"a\x01b": "ab", "&#1I6; x": "I6; x", "a <b>&#1;</b> b&#xFFFE;": "a b", "caf\xe9": "caf\uFFFD", "Nov\v30,\f2023": "Nov 30, 2023", "<b>a\vb</b>": "a b"} {
		if got := PlainText(in); got != want {
			t.Errorf("PlainText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	if got := Truncate("ééééé", 3); got != "ééé…" {
		t.Errorf("Truncate = %q", got)
	}
	if got := Truncate("abc", 3); got != "abc" {
		t.Errorf("Truncate = %q", got)
	}
}

// FuzzLinkResolver: the link resolver gives what ResolveLink gives, for
// one base after another.
func FuzzLinkResolver(f *testing.F) {
	for _, s := range [][2]string{
		{"http://example.org/news/", "story.html"}, {"http://example.org/news/index.html", "/news/2005/12/08/story-1.html"},
		{"https://u:p@h:8080/a/b", "x/y?z=1&w"}, {"http://h", "a"}, {"http://[::1]/", "a"}, {"http://h%7C/", "a"},
		{"http://h/%zz/", "a"}, {"http://h/a|b/", "c"}, {"http://h/", "javascript:x"}, {"mailto:x@y", "a"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, err := url.Parse(base)
		if err != nil {
			return
		}
		var l LinkResolver
		for _, r := range []string{ref, "x", ref, "/" + ref} {
			link, problem := l.ResolveLink(b, r)
			if wantLink, wantProblem := ResolveLink(b, r); link != wantLink || problem != wantProblem {
				t.Errorf("LinkResolver(%q, %q) = %q, %q; want %q, %q", base, r, link, problem, wantLink, wantProblem)
			}
		}
	})
}
