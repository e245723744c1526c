package annotate_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// FuzzSuggest checks, on any input, that the suggester never panics and
// that what it returns is sound: the page is unchanged outside the
// inserted comments, the wrapper reads back exactly the items chosen, and
// the inserted annotations add no warning of their own; and that, told to
// fit in less room, it refuses the page or leaves out only what it may.
func FuzzSuggest(f *testing.F) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"<ul><li><a href=a>One item here</a><li><a href=b>Two item here</a></ul>",
		"<table><tr><td><a href=1>First row text</a><td>x<tr><td><a href=2>Second row text</a><td>y</table>",
		"<dl><dt><a href=x>Term one is long</a><dd>Definition<dt><a href=y>Term two is long</a><dd>More</dl>",
		"<div><h3><a href=p>Heading one</a></h3><p>Body text of the first item.</p><h3><a href=q>Heading two</a></h3><p>Body.</p></div>",
		"<!-- <item:title index=1> --><ul><li><a href=a>One item here</a><li><a href=b>Two item here</a></ul>",
		"<ul><li><a href=a>One <!-- x --!> item</a><li><a href=b>Two item here</a></ul><!-- tail -->",
		"<ul><li><a href=a>One</a><noscript><!-- </noscript><li><a href=b>Two item here</a></ul>",
		"<ul><li><a href=a>Posted 12/03/2024 here</a><li><a href=b>Posted 13/03/2024 there</a></ul>",
		"\xff\xfe<\x00u\x00l\x00>\x00",
		"<div><section><article><h2><a href=/n/1>Lead story of the day</a></h2><time>3 June 2024</time><p>Lead text here.</p></article></section><ul><li><h3><a href=/n/2>Second story here</a></h3><time>2 June 2024</time></li><li><h3><a href=/n/3>Third story here</a></h3><time>1 June 2024</time></li><li><h3><a href=/n/4>Fourth story here</a></h3><time>31 May 2024</time></li></ul></div>", // a featured item beside the list
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkSuggest)
}

// checkSuggest is FuzzSuggest's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkSuggest(t *testing.T, page []byte) {
	res, err := annotate.Suggest(page, annotate.Options{URL: "http://example.com/news/"})
	if err != nil {
		return
	}
	if back := annotate.RemoveInserted(res.Page, res.Inserted); !bytes.Equal(back, page) {
		t.Fatalf("removing the inserted comments does not give the page back")
	}
	if wrapper.HasAnnotations(page) {
		// A page annotated in part may hold broken annotations, whose
		// reading the inserted ones change; what is certain is above.
		return
	}
	before := map[string]bool{}
	for _, w := range wrapper.Wrap(page, wrapper.Options{URL: "http://example.com/news/"}).Warnings {
		before[w.Message] = true
	}
	for _, w := range res.Wrapped().Warnings {
		if !before[w.Message] && !strings.HasPrefix(w.Message, "the page is not valid UTF-8") &&
			!strings.Contains(w.Message, "as an earlier item; it gets an id of its own") { // two records linking to one page
			t.Fatalf("the annotated page gives a new warning: %s\n%s", w, res.Page)
		}
	}
	if got, want := len(res.Wrapped().Resource.Items), res.List.Records; got != want {
		t.Fatalf("the annotated page gives %d items, the suggester chose %d\n%s", got, want, res.Page)
	}
	// Within half the room its annotations take, the page is refused
	// or gives the same items' titles and links, and fits.
	limit := (len(page) + len(res.Page)) / 2
	fitted, err := annotate.Suggest(page, annotate.Options{URL: "http://example.com/news/", MaxBytes: limit})
	if err != nil {
		if !errors.Is(err, dynamo.ErrPageTooLarge) {
			t.Fatalf("within %d bytes: %v", limit, err)
		}
		return
	}
	if len(fitted.Page) > limit {
		t.Fatalf("within %d bytes: %d", limit, len(fitted.Page))
	}
	a, b := res.Wrapped().Resource.Items, fitted.Wrapped().Resource.Items
	if len(a) != len(b) {
		t.Fatalf("within %d bytes: %d items, against %d", limit, len(b), len(a))
	}
	for i := range a {
		if a[i].Title != b[i].Title || a[i].Link != b[i].Link {
			t.Fatalf("within %d bytes: item %d is %q %s, against %q %s", limit, i+1, b[i].Title, b[i].Link, a[i].Title, a[i].Link)
		}
	}
}

// FuzzFollow checks that selectors, CSS and XPath, never panic on any
// page, and that the page is unchanged outside the annotations inserted
// where they match.
func FuzzFollow(f *testing.F) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	for _, p := range pages[:min(len(pages), 10)] {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("<ul><li><a href=a>One</a><li><a href=b>Two <b>2</b></a><li>x</ul>"))
	f.Add([]byte("<div><h3>T</h3><p>d</p></div><div><h3>U</h3><p>e <!-- x --!> f</p></div><noscript><!--"))
	if _, err := followSelectors(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(checkFollow)
}

// checkFollow is FuzzFollow's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkFollow(t *testing.T, page []byte) {
	sels, err := followSelectors()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sels {
		res, err := annotate.Follow(page, c, annotate.Options{URL: "http://example.com/news/"})
		if err != nil {
			continue
		}
		if back := annotate.RemoveInserted(res.Page, res.Inserted); !bytes.Equal(back, page) {
			t.Fatalf("removing the inserted annotations does not give the page back")
		}
	}
}

// followSelectors are the selectors FuzzFollow applies, compiled once.
var followSelectors = sync.OnceValues(func() ([]*annotate.Compiled, error) {
	var sels []*annotate.Compiled
	for _, s := range []annotate.Selectors{
		{Item: "li, div, tr, article", Title: "a, h3, b, td", Link: "a", Description: "p", Date: "time, span"},
		{Syntax: "xpath", Item: "//*[a]", Title: "normalize-space(a)", Link: "a/@href", Description: "following-sibling::*[1]", Image: ".//img/@src", Enclosure: "a/@href"},
		{Syntax: "xpath", Item: "//div | //li | //div//p", Title: ".", Description: "//p"},
	} {
		c, err := s.Compile()
		if err != nil {
			return nil, err
		}
		sels = append(sels, c)
	}
	return sels, nil
})

// FuzzSelectors checks that whatever list the suggester finds, the
// selectors it offers for it compile: "--selectors" never answers with a
// broken XPath. It may say that no XPath selects the records alone (a
// clear refusal, for tag names XPath cannot write).
func FuzzSelectors(f *testing.F) {
	for _, s := range []string{
		"<ul><li><a href=a>One item here</a> 12/03/2024<li><a href=b>Two item here</a> 13/03/2024</ul>",
		"<table><tr><td><a href=1>First row text</a><td>1 May 2024<tr><td><a href=2>Second row text</a><td>2 May 2024</table>",
		"<p><font><a href=a>One item here</a> - 03/02/1999<br><a href=b>Two item here</a> - 04/02/1999<br></font>",
		"<dl><dt><a href=x>Term one is long</a><dd>3 June 2020<dt><a href=y>Term two is long</a><dd>4 June 2020</dl>",
		"<div><section><article><h2><a href=/n/1>Lead story of the day</a></h2><time>3 June 2024</time><p>Lead text here.</p></article></section><ul><li><h3><a href=/n/2>Second story here</a></h3><time>2 June 2024</time></li><li><h3><a href=/n/3>Third story here</a></h3><time>1 June 2024</time></li><li><h3><a href=/n/4>Fourth story here</a></h3><time>31 May 2024</time></li></ul></div>", // a featured item beside the list
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkSelectors)
}

// checkSelectors is FuzzSelectors's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkSelectors(t *testing.T, page []byte) {
	res, err := annotate.Suggest(page, annotate.Options{URL: "http://example.com/news/"})
	if err != nil {
		return
	}
	if _, _, err := res.Selectors(); err != nil && strings.Contains(err.Error(), "the selectors made are wrong") {
		t.Fatalf("selectors: %v", err)
	}
}
