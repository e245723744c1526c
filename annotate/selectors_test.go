package annotate_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
)

// TestCorpusSelectors: on every corpus page, the suggester's choice
// written as selectors and applied to the page gives the items the
// annotations give: the same titles and links on every page, and every
// field the same on most (XPath 1.0 cannot stop a field at the end of a
// run of siblings, docs/ANNOTATE.md).
func TestCorpusSelectors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	same := 0
	for _, file := range files {
		page, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(file)
		opts := annotate.Options{URL: "https://www.example.com/news/"}
		res, err := annotate.Suggest(page, opts)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		sel, _, err := res.Selectors()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		c, err := sel.Compile()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		f, err := annotate.Follow(page, c, opts)
		if err != nil {
			t.Errorf("%s: %v\n%+v", name, err, sel)
			continue
		}
		a, b := res.Wrapped().Resource.Items, f.Wrapped.Resource.Items
		if len(a) != len(b) {
			t.Errorf("%s: the selectors give %d items, the annotations %d\n%+v", name, len(b), len(a), sel)
			continue
		}
		for i := range a {
			if a[i].Title != b[i].Title || a[i].Link != b[i].Link {
				t.Errorf("%s: item %d: the selectors give %q %s, the annotations %q %s", name, i+1, b[i].Title, b[i].Link, a[i].Title, a[i].Link)
			}
		}
		if d := itemsDiff(a, b); d != "" {
			t.Logf("%s: %s", name, d)
			continue
		}
		same++
	}
	t.Logf("%d of %d pages: the selectors give the annotations' items, every field the same", same, len(files))
}

// itemsDiff says how two lists of items differ in what a feed shows.
func itemsDiff(a, b []dynamo.Item) string {
	if len(a) != len(b) {
		return "different numbers of items"
	}
	for i := range a {
		da, _ := a[i].Date()
		db, _ := b[i].Date()
		if a[i].Title != b[i].Title || a[i].Link != b[i].Link || a[i].Description != b[i].Description || !da.Equal(db) {
			return "item " + a[i].Title + " differs: " + b[i].Title + " " + b[i].Link + " " + b[i].Description
		}
	}
	return ""
}

func TestSelectorsCompile(t *testing.T) {
	tests := []struct {
		sel  annotate.Selectors
		want string
	}{
		{annotate.Selectors{Item: "li", Title: "a"}, ""},
		{annotate.Selectors{Syntax: "XPath", Item: "//li", Title: "a", Link: "a/@href"}, ""},
		{annotate.Selectors{Item: "", Title: "a"}, "item selector is required"},
		{annotate.Selectors{Item: "li"}, "a title, link or description selector is required"},
		{annotate.Selectors{Item: "li[", Title: "a"}, `item selector "li[" is not a CSS selector`},
		{annotate.Selectors{Syntax: "xpath", Item: "//li", Title: "a[", Link: ""}, `title selector "a[" is not XPath 1.0`},
		{annotate.Selectors{Syntax: "regex", Item: "li", Title: "a"}, `selector syntax "regex" is unknown`},
		{annotate.Selectors{Item: strings.Repeat("a ", 600), Title: "a"}, "longer than 1024 bytes"},
	}
	for _, tt := range tests {
		_, err := tt.sel.Compile()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v", tt.sel, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: err = %v, want %q", tt.sel, err, tt.want)
		}
	}
}

func TestFollowNoItems(t *testing.T) {
	c, err := annotate.Selectors{Item: "article", Title: "h2"}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := annotate.Follow([]byte("<ul><li>x</ul>"), c, annotate.Options{}); !errors.Is(err, annotate.ErrNoItems) {
		t.Errorf("err = %v, want ErrNoItems", err)
	}
}

const followPage = `<html><head><title>Kennel club</title></head><body>
<div class="dogs">
<article class="dog"><h2><a href="/dogs/rex">Rex wins best in show</a></h2>
<p class="meta">Posted on 3 July 2024 by <span class="who">Ann Lee</span></p>
<img src="/img/rex.jpg" alt="Rex"><p class="text">A very good boy indeed, judged the best of the forty dogs entered.</p>
<a class="audio" href="/audio/rex.mp3">Listen</a></article>
<article class="dog"><h2><a href="/dogs/bella">Bella learns to swim</a></h2>
<p class="meta">Posted on 24 June 2024 by <span class="who">Tom</span></p>
<p class="text">Six lessons at the lido and she is away.</p></article>
<article class="dog"><h2>No link here</h2>
<p class="meta">Posted on a sunny day</p></article>
</div></body></html>`

// Follow reads every field, from CSS and XPath alike, as an annotated page
// is read: links resolved, descriptions sanitized, dates in RFC 3339, an
// author and an enclosure as extensions; warnings on the page's lines.
func TestFollow(t *testing.T) {
	for _, sel := range []annotate.Selectors{
		{Item: "article.dog", Title: "h2", Link: "h2 a", Description: "p.text", Date: "p.meta", Author: ".who", Image: "img", Enclosure: "a.audio"},
		{Syntax: "xpath", Item: "//article[@class='dog']", Title: "h2", Link: "h2/a/@href", Description: "p[@class='text']", Date: "p[@class='meta']",
			Author: "string(.//span[@class='who'])", Image: ".//img/@src", Enclosure: "a[@class='audio']/@href"},
	} {
		c, err := sel.Compile()
		if err != nil {
			t.Fatal(err)
		}
		f, err := annotate.Follow([]byte(followPage), c, annotate.Options{URL: "https://kennel.example/news/"})
		if err != nil {
			t.Fatal(err)
		}
		items := f.Wrapped.Resource.Items
		if len(items) != 3 {
			t.Fatalf("%s: %d items", sel.Syntax, len(items))
		}
		rex := items[0]
		d, _ := rex.Date()
		ext := map[string]string{}
		for _, e := range rex.Extensions {
			ext[e.Prefix+":"+e.LocalName] = e.Value
		}
		if rex.Title != "Rex wins best in show" || rex.Link != "https://kennel.example/dogs/rex" ||
			rex.Description != "A very good boy indeed, judged the best of the forty dogs entered." ||
			d.Format("2006-01-02") != "2024-07-03" || ext["dc:creator"] != "Ann Lee" ||
			len(rex.Enclosures) != 1 || rex.Enclosures[0].URL != "https://kennel.example/audio/rex.mp3" || rex.Image == nil || rex.Image.URL != "https://kennel.example/img/rex.jpg" {
			t.Errorf("%s: item 1 = %+v, image %+v", sel.Syntax, rex, rex.Image)
		}
		if items[2].Title != "No link here" || items[2].Link != "https://kennel.example/news/#item-3" {
			t.Errorf("%s: item 3 = %q %q", sel.Syntax, items[2].Title, items[2].Link)
		}
		// The third dog has no link, and its date cannot be read: both
		// are said, on its lines.
		var got []string
		for _, w := range f.Warnings {
			got = append(got, w.String())
		}
		all := strings.Join(got, "\n")
		for _, want := range []string{"line 10: item 3: the link selector matches nothing in it", `line 11: <item:extension> dc:date: "Posted on a sunny day" is not a date`} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: warnings lack %q:\n%s", sel.Syntax, want, all)
			}
		}
	}
}

// Items matched inside other items, and a field that several items
// select, are left out and said.
func TestFollowClashes(t *testing.T) {
	page := `<div class="x"><h2>Shared heading</h2><div class="x"><a href="/a">Inner A</a></div></div><div class="x"><a href="/b">B</a></div>`
	c, err := annotate.Selectors{Syntax: "xpath", Item: "//div[@class='x']", Title: "//h2", Link: ".//a"}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	f, err := annotate.Follow([]byte(page), c, annotate.Options{URL: "https://e.example/"})
	if err != nil {
		t.Fatal(err)
	}
	all := ""
	for _, w := range f.Warnings {
		all += w.String() + "\n"
	}
	for _, want := range []string{"the item selector matches 1 elements inside other items", "item 2: the title selector matches what an earlier item's did"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
	if n := len(f.Wrapped.Resource.Items); n != 2 {
		t.Errorf("%d items, want 2", n)
	}
}

// TestSelectorsDateBesideTheLink: in a legacy list of lines (a link, a
// date as text beside it, a <br>) each record is a run of siblings and
// its date a text among them, not an element of its own: the date's
// selector names that text, rather than the element holding every record.
func TestSelectorsDateBesideTheLink(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<HTML><BODY><TABLE><TR><TD><FONT SIZE=2><B>What's new</B><BR>` + "\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "<A HREF=\"news/n%d.htm\">Harbour notice number %d</A> - %02d/%02d/1999<BR>\n", i, i, 1+i%12, 1+i)
	}
	b.WriteString("</FONT></TD></TR></TABLE></BODY></HTML>\n")
	page := []byte(b.String())
	opts := annotate.Options{URL: "https://www.example.com/whatsnew.html"}
	res, err := annotate.Suggest(page, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.List.Date == "" {
		t.Fatalf("no date chosen: %+v", res.List)
	}
	fb, sel, note := followSuggested(t, res, page, opts)
	if note != "" {
		t.Errorf("note %q", note)
	}
	a := res.Wrapped().Resource.Items
	if len(a) != 12 {
		t.Fatalf("%d items annotated, want 12", len(a))
	}
	if d := itemsDiff(a, fb); d != "" {
		t.Errorf("selectors %+v: %s", sel, d)
	}
	for i, it := range fb {
		if _, ok := it.Date(); !ok {
			t.Errorf("item %d has no date through the selectors %+v", i+1, sel)
			break
		}
	}
}
