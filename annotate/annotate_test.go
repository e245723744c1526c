package annotate_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// newsPage is a small page with a main list and a second, shorter one.
const newsPage = `<html><head><title>Parish news</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li><li><a href="/contact">Contact</a></li></ul></nav>
<main>
<h1>News</h1>
<ul class="news">
<li><h2><a href="/news/fete">Summer fête raises £1,200</a></h2><p class="date">Posted on 3 July 2024 by Ann</p><p>Thank you to everyone who baked, sold and bought cakes on Saturday.</p></li>
<li><h2><a href="/news/roof">Church roof repairs begin</a></h2><p class="date">Posted on 24 June 2024 by Ann</p><p>Scaffolding goes up on Monday; services move to the hall for three weeks.</p></li>
<li><h2><a href="/news/choir">Choir seeks new voices</a></h2><p class="date">Posted on 10 June 2024 by Tom</p><p>Rehearsals are on Thursday evenings; no audition, just enthusiasm and a pencil.</p></li>
</ul>
<h2>Coming up</h2>
<ul class="events">
<li><a href="/events/quiz">Quiz night in the hall, with a bring-your-own supper</a></li>
<li><a href="/events/walk">Sponsored walk along the river, all ages welcome</a></li>
</ul>
</main>
</body></html>
`

func TestSuggest(t *testing.T) {
	res, err := annotate.Suggest([]byte(newsPage), annotate.Options{URL: "https://parish.example/news"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(annotate.RemoveInserted(res.Page, res.Inserted), []byte(newsPage)) {
		t.Fatal("the page is changed outside the inserted comments")
	}
	items := res.Wrapped().Resource.Items
	want := []struct{ title, link, date, desc string }{
		{"Summer fête raises £1,200", "https://parish.example/news/fete", "2024-07-03T00:00:00Z", "Thank you to everyone who baked, sold and bought cakes on Saturday."},
		{"Church roof repairs begin", "https://parish.example/news/roof", "2024-06-24T00:00:00Z", "Scaffolding goes up on Monday; services move to the hall for three weeks."},
		{"Choir seeks new voices", "https://parish.example/news/choir", "2024-06-10T00:00:00Z", "Rehearsals are on Thursday evenings; no audition, just enthusiasm and a pencil."},
	}
	if len(items) != len(want) {
		t.Fatalf("%d items, want %d:\n%s", len(items), len(want), res.Page)
	}
	for i, w := range want {
		it := items[i]
		if it.Title != w.title || it.Link != w.link || dateOf(&it) != w.date || it.Description != w.desc {
			t.Errorf("item %d = %q %q %q %q, want %q %q %q %q", i+1, it.Title, it.Link, dateOf(&it), it.Description, w.title, w.link, w.date, w.desc)
		}
	}
	if len(res.Wrapped().Warnings) != 0 {
		t.Errorf("warnings: %v", res.Wrapped().Warnings)
	}
	// The page's other list is named, and the menu is not a list of items.
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "other list") || !strings.Contains(res.Notes[0], "ul.events") {
		t.Errorf("notes = %q, want the other list named first", res.Notes)
	}
	var explain bytes.Buffer
	if err := res.Explain(&explain); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"chosen: ", "ul.news > li", "title:", "h2 > a", "date:", "other candidates", "in navigation"} {
		if !strings.Contains(explain.String(), s) {
			t.Errorf("--explain says nothing of %q:\n%s", s, explain.String())
		}
	}
}

// Pages in other encodings are annotated in their own bytes.
func TestSuggestEncodings(t *testing.T) {
	utf8Page := []byte(newsPage)
	latin1 := bytes.ReplaceAll(bytes.ReplaceAll(utf8Page, []byte("ê"), []byte{0xEA}), []byte("£"), []byte{0xA3})
	latin1 = bytes.Replace(latin1, []byte("<head>"), []byte(`<head><meta charset="windows-1252">`), 1)
	utf16le := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(newsPage)) {
		utf16le = append(utf16le, byte(u), byte(u>>8))
	}
	for name, page := range map[string][]byte{
		"utf-8 with a byte order mark": append([]byte{0xEF, 0xBB, 0xBF}, utf8Page...),
		"windows-1252":                 latin1,
		"utf-16le":                     utf16le,
	} {
		t.Run(name, func(t *testing.T) {
			res, err := annotate.Suggest(page, annotate.Options{URL: "https://parish.example/news"})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(annotate.RemoveInserted(res.Page, res.Inserted), page) {
				t.Fatal("the page is changed outside the inserted comments")
			}
			items := res.Wrapped().Resource.Items
			if len(items) != 3 || items[0].Title != "Summer fête raises £1,200" || dateOf(&items[2]) != "2024-06-10T00:00:00Z" {
				t.Errorf("items = %+v", items)
			}
		})
	}
}

func dateOf(it *dynamo.Item) string {
	if d, ok := it.Date(); ok {
		return d.UTC().Format(time.RFC3339)
	}
	return ""
}

func TestSuggestRefuses(t *testing.T) {
	if _, err := annotate.Suggest([]byte("<p>Just one paragraph, <a href=x>one link</a>.</p>"), annotate.Options{}); !errors.Is(err, annotate.ErrNoList) {
		t.Errorf("a page with no list: err = %v, want ErrNoList", err)
	}
	jis := []byte("<meta charset=\"iso-2022-jp\"><ul><li><a href=a>One item here</a><li><a href=b>Two item here</a></ul>")
	if _, err := annotate.Suggest(jis, annotate.Options{}); err == nil || !strings.Contains(err.Error(), "ISO-2022-JP") {
		t.Errorf("an ISO-2022-JP page: err = %v", err)
	}
}

// A page annotated in part keeps its annotations; the suggester adds what
// is missing, with the indexes already written, and numbers new items
// after them.
func TestSuggestPartlyAnnotated(t *testing.T) {
	page := strings.Replace(newsPage, `<h2><a href="/news/fete">Summer fête raises £1,200</a></h2>`,
		`<h2><a href="/news/fete"><!-- <item:title index="7"> -->Summer fête raises £1,200<!-- </item:title> --></a></h2>`, 1)
	page = strings.Replace(page, `<title>Parish news</title>`, `<title>Parish news</title><!-- <channel:description>The news of St Mary's</channel:description> -->`, 1)
	res, err := annotate.Suggest([]byte(page), annotate.Options{URL: "https://parish.example/news"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(annotate.RemoveInserted(res.Page, res.Inserted), []byte(page)) {
		t.Fatal("the page is changed outside the inserted comments")
	}
	if n := bytes.Count(res.Page, []byte(`<item:title index="7">`)); n != 1 {
		t.Errorf("%d titles with index 7, want the one already there", n)
	}
	if !bytes.Contains(res.Page, []byte(`<!-- <item:link index="7"> -->`)) || !bytes.Contains(res.Page, []byte(`<!-- <item:title index="8"> -->`)) {
		t.Errorf("the missing link of item 7 and the new items 8 and 9 should be annotated:\n%s", res.Page)
	}
	if len(res.Wrapped().Warnings) != 0 || len(res.Wrapped().Resource.Items) != 3 {
		t.Errorf("items %d, warnings %v", len(res.Wrapped().Resource.Items), res.Wrapped().Warnings)
	}
	if got := res.Wrapped().Indexes; strings.Join(got, ",") != "7,8,9" {
		t.Errorf("indexes = %q", got)
	}
	if !hasNote(res.Notes, "new items are numbered from 8") {
		t.Errorf("notes %q: want the new items' first index", res.Notes)
	}

	// Suggesting again on the annotated page adds nothing, and says so
	// rather than announcing new items.
	again, err := annotate.Suggest(res.Page, annotate.Options{URL: "https://parish.example/news"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Page, res.Page) || !hasNote(again.Notes, "already annotated") || hasNote(again.Notes, "numbered from") {
		t.Errorf("a page already annotated: changed %v, notes %q", !bytes.Equal(again.Page, res.Page), again.Notes)
	}

	// A page whose items lack only a field gets it, and no new item.
	noLinks := strings.NewReplacer(`<!-- <item:link index="7"> -->`, "", `<!-- <item:link index="8"> -->`, "", `<!-- <item:link index="9"> -->`, "", `<!-- </item:link> -->`, "").Replace(string(res.Page))
	fill, err := annotate.Suggest([]byte(noLinks), annotate.Options{URL: "https://parish.example/news"})
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(fill.Notes, "only fields its items lacked were added") || bytes.Count(fill.Page, []byte("<item:link index=")) != 3 {
		t.Errorf("links only missing: notes %q\n%s", fill.Notes, fill.Page)
	}
}

func hasNote(notes []string, part string) bool {
	for _, n := range notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// Removing the inserted comments gives every corpus page back, byte for
// byte, whichever half it is in.
func TestCorpusBytesKept(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	for _, p := range pages {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := annotate.Suggest(page, annotate.Options{URL: "https://www.example.com/"})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !bytes.Equal(annotate.RemoveInserted(res.Page, res.Inserted), page) {
			t.Errorf("%s: the page is changed outside the inserted comments", p)
		}
		if !wrapper.HasAnnotations(res.Page) {
			t.Errorf("%s: no annotation inserted", p)
		}
	}
}
