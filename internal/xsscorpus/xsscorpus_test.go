package xsscorpus_test

import (
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/xsscorpus"
)

// TestChecks holds the corpus's checks to what they must find and let
// pass: a check that finds nothing would pass every page.
func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		doc          string
		bidi, inHTML bool // NoBidi and NoBidiInHTML find a control
		active       bool // InertPage finds something that runs
	}{
		{doc: `<p>plain … &#8230; &#x2026; \u2026 † \u2020</p>`},
		{doc: "<p>raw \u202e</p>", bidi: true, inHTML: true},
		{doc: "<p>raw \u2067</p>", bidi: true, inHTML: true},
		{doc: `<p>&#x202E;</p>`, bidi: true, inHTML: true},
		{doc: `<p>&#X0202e;</p>`, bidi: true, inHTML: true},
		{doc: `<p>&#8238;</p>`, bidi: true, inHTML: true},
		{doc: `<p>&#8294;</p>`, bidi: true, inHTML: true},
		{doc: `<p>&#82380;</p>`},
		{doc: `{"title": "\u202e"}`, bidi: true},
		{doc: `<p>value "\u2069x": not a duration</p>`, bidi: true},
		{doc: `<script>alert(1)</script>`, active: true},
		{doc: `<a href=" JaVa&#x09;script:alert(1)">x</a>`, active: true},
		{doc: `<p onclick="x()">x</p>`, active: true},
		{doc: `<iframe src="/x"></iframe>`, active: true},
		{doc: `<link rel="stylesheet" href="/ui/static/style.css"><form action="/ui/add"><svg></svg></form><a href="https://example.org/">x</a>`},
	} {
		if err := xsscorpus.NoBidi([]byte(tc.doc)); (err != nil) != tc.bidi {
			t.Errorf("NoBidi(%q) = %v", tc.doc, err)
		}
		if err := xsscorpus.NoBidiInHTML([]byte(tc.doc)); (err != nil) != tc.inHTML {
			t.Errorf("NoBidiInHTML(%q) = %v", tc.doc, err)
		}
		if err := xsscorpus.InertPage([]byte(tc.doc)); (err != nil) != tc.active {
			t.Errorf("InertPage(%q) = %v", tc.doc, err)
		}
	}
}
