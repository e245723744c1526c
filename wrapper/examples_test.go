package wrapper_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

const exampleOrigin = "http://127.0.0.1:8080"

// wrapExample wraps an example page as it is meant to be served.
func wrapExample(t *testing.T, file string) *wrapper.Result {
	t.Helper()
	for _, p := range examples.List {
		if p.File != file {
			continue
		}
		page, err := examples.Read(p.File)
		if err != nil {
			t.Fatal(err)
		}
		loc, err := time.LoadLocation(p.TimeZone)
		if err != nil {
			t.Fatal(err)
		}
		r := wrapper.Wrap(page, wrapper.Options{URL: exampleOrigin + p.Path, RSSID: strings.TrimSuffix(file, ".html"),
			ContentType: p.ContentType, Location: loc, Now: testNow})
		checkInvariants(t, r)
		verify.XMLData(t, r.Resource.XML())
		return r
	}
	t.Fatalf("no example %s", file)
	return nil
}

// itemDate returns the item's date as RFC 3339, "" when it has none.
func itemDate(it dynamo.Item) string {
	if d, ok := it.Date(); ok {
		return d.Format(time.RFC3339)
	}
	return ""
}

func extensionValue(exts []dynamo.Extension, prefix, local string) string {
	for _, e := range exts {
		if e.Prefix == prefix && e.LocalName == local {
			return e.Value
		}
	}
	return ""
}

func TestExampleNews(t *testing.T) {
	r := wrapExample(t, "news.html")
	checkWarnings(t, r.Warnings, nil)
	c := r.Resource.Channel
	if c.Title != "The Millbrook Courier" || c.Link != exampleOrigin+"/news/" ||
		c.Description != "News from Millbrook and the Upper Valley, updated every weekday." {
		t.Errorf("channel = %q %q %q", c.Title, c.Link, c.Description)
	}
	if want := (dynamo.Image{URL: exampleOrigin + "/images/courier-logo.gif", Link: exampleOrigin + "/news/", Title: "The Millbrook Courier"}); c.Image == nil || *c.Image != want {
		t.Errorf("channel image = %+v", c.Image)
	}
	if extensionValue(c.Extensions, "dc", "language") != "en-us" || extensionValue(c.Extensions, "dc", "publisher") != "Millbrook Courier Publishing Co." {
		t.Errorf("channel extensions = %+v", c.Extensions)
	}
	stories := exampleOrigin + "/news/stories/2005/12/"
	want := []struct{ title, link, date string }{
		{"Council Approves 2006 Budget After Late-Night Session", stories + "08/council-budget.html", "2005-12-08T08:25:00-05:00"},
		{"Mill Street Bridge to Close for Repairs in January", stories + "07/mill-street-bridge.html", "2005-12-07T16:10:00-05:00"},
		{"Hawks Clinch Valley Title With Overtime Win", stories + "07/hawks-win.html", "2005-12-07T22:45:00-05:00"},
		{"First Snow Brings 8 Inches, Closes Schools", stories + "06/first-snow.html", "2005-12-06T06:05:00-05:00"},
		{"Library Extends Weekday Hours", stories + "05/library-hours.html", "2005-12-05T11:30:00-05:00"},
		{"Food Drive Tops Goal by 2,000 Pounds", stories + "02/food-drive.html", "2005-12-02T14:15:00-05:00"},
		{"Recycling pickup moves to Wednesdays", exampleOrigin + "/news/briefs/2005/12/01/recycling.html", "2005-12-01T09:00:00-05:00"},
		{"Tree lighting on the green Friday at 6", exampleOrigin + "/news/briefs/2005/11/30/tree-lighting.html", "2005-11-30T15:40:00-05:00"},
		{"Warrant articles due for March town meeting", exampleOrigin + "/news/briefs/2005/11/29/town-meeting.html", "2005-11-29T10:20:00-05:00"},
	}
	items := r.Resource.Items
	if len(items) != len(want) {
		t.Fatalf("%d items, want %d", len(items), len(want))
	}
	for i, w := range want {
		it := items[i]
		if it.Title != w.title || it.Link != w.link || itemDate(it) != w.date || it.IDFromContent {
			t.Errorf("item %d = %q %q %s (IDFromContent %v), want %q %q %s", i+1, it.Title, it.Link, itemDate(it), it.IDFromContent, w.title, w.link, w.date)
		}
	}
	first := items[0]
	if !strings.Contains(first.Description, `voted 5–2 to approve a $14.2 million budget`) ||
		!strings.Contains(first.Description, `<a href="`+stories+`08/council-budget.html">Full story</a>`) {
		t.Errorf("item 1 description = %q", first.Description)
	}
	if extensionValue(first.Extensions, "dc", "creator") != "Ellen Marsh" {
		t.Errorf("item 1 extensions = %+v", first.Extensions)
	}
	if img := items[3].Image; img == nil || img.URL != exampleOrigin+"/images/2005/12/snow-thumb.jpg" || img.Title != "Plow on Route 9" {
		t.Errorf("item 4 image (from its <img>) = %+v", img)
	}
	if items[6].Description != "" {
		t.Errorf("brief item 7 has a description: %q", items[6].Description)
	}
}

func TestExampleBlog(t *testing.T) {
	r := wrapExample(t, "blog.html")
	checkWarnings(t, r.Warnings, []wantWarning{{13, "annotation inside <style> ignored"}})
	c := r.Resource.Channel
	// No channel:title, :link or :description: the page's <title>, its URL
	// and its <meta name="description">.
	if c.Title != "Notes from the Workshop — Jane Holloway" || c.Link != exampleOrigin+"/blog/index.html" ||
		c.Description != "Jane Holloway writes about woodworking, old tools and the occasional bit of code." {
		t.Errorf("channel = %q %q %q", c.Title, c.Link, c.Description)
	}
	weblog := exampleOrigin + "/weblog/" // <base href="/weblog/">
	want := []wantItem{
		{"Restoring a Stanley No. 4 Smoothing Plane", weblog + "2008/03/restoring-a-stanley-no-4.html", ""},
		{"A Tiny Python Script for Cut Lists", weblog + "2008/03/a-tiny-python-script-for-cut-lists.html", ""},
		{"Quick note: the Guild open day is on Saturday 29 March. I will be demonstrating…", exampleOrigin + "/blog/index.html#item-3", ""},
		{"Sharpening Without Fuss", weblog + "2008/02/sharpening-without-fuss.html", ""},
	}
	items := r.Resource.Items
	if len(items) != len(want) {
		t.Fatalf("%d items, want %d", len(items), len(want))
	}
	for i, w := range want {
		if items[i].Title != w.title || items[i].Link != w.link {
			t.Errorf("item %d = %q %q, want %q %q", i+1, items[i].Title, items[i].Link, w.title, w.link)
		}
	}
	desc := items[0].Description
	for _, s := range []string{
		"<strong>Stanley No.\u00a04</strong>", `<a href="` + weblog + `2007/11/citric-acid.html">my earlier notes</a>`,
		`<img src="` + weblog + `images/2008/stanley-4-after.jpg"`, `<blockquote cite="http://www.example.com/hand-tools/planes.html">`,
	} {
		if !strings.Contains(desc, s) {
			t.Errorf("item 1 description lacks %q:\n%s", s, desc)
		}
	}
	for _, bad := range []string{"<script", "trackView", "onclick", "javascript", "iframe"} {
		if strings.Contains(desc+items[1].Description, bad) {
			t.Errorf("descriptions keep %q", bad)
		}
	}
	if !strings.Contains(items[1].Description, "<pre><code>for part in sorted(parts") {
		t.Errorf("item 2 description = %q", items[1].Description)
	}
	if itemDate(items[0]) != "2008-03-14T09:30:00Z" || itemDate(items[1]) != "2008-03-02T18:05:00Z" ||
		extensionValue(items[1].Extensions, "atom", "updated") != "2008-03-04T07:15:00Z" {
		t.Errorf("dates = %s %s %+v", itemDate(items[0]), itemDate(items[1]), items[1].Extensions)
	}
	if !items[2].IDFromContent || items[0].IDFromContent {
		t.Errorf("IDFromContent = %v, %v", items[0].IDFromContent, items[2].IDFromContent)
	}
	if img := items[0].Image; img == nil || img.URL != weblog+"images/2008/stanley-4-after.jpg" || img.Title != "The plane after restoration" {
		t.Errorf("item 1 image = %+v", img)
	}
}

func TestExampleLegacy1252(t *testing.T) {
	r := wrapExample(t, "legacy-1252.html")
	// Served as ISO-8859-1, read as windows-1252 (WHATWG): the euro signs and
	// curly quotes are in 0x80-0x9F, which ISO-8859-1 lacks.
	if r.Charset != "windows-1252" || r.CharsetFrom != wrapper.FromHTTP {
		t.Errorf("charset %s from %s", r.Charset, r.CharsetFrom)
	}
	checkWarnings(t, r.Warnings, []wantWarning{{58, "<item:link> is a javascript: URL"}})
	c := r.Resource.Channel
	if c.Title != "Saint-Rémy-sur-Loire : les actualités de la commune" ||
		c.Description != "Toute l’actualité de la mairie, des écoles et des associations – « vivre ensemble au bord de l’eau »" {
		t.Errorf("channel = %q %q", c.Title, c.Description)
	}
	if d, ok := c.Date(); !ok || d.Format(time.RFC3339) != "2005-12-08T18:30:00+01:00" { // 08/12/2005 is day first in Paris
		t.Errorf("channel date = %v %v", d, ok)
	}
	items := r.Resource.Items
	if len(items) != 4 {
		t.Fatalf("%d items", len(items))
	}
	if items[0].Title != "Conseil municipal : le budget 2006 adopté" || itemDate(items[0]) != "2005-12-08T08:25:00+01:00" ||
		!strings.Contains(items[0].Description, "1,2 M€, dont 180 000 € pour la rénovation de l’école") {
		t.Errorf("item 1 = %q %s %q", items[0].Title, itemDate(items[0]), items[0].Description)
	}
	if !strings.Contains(items[1].Description, "“Marché de Noël”") || !strings.Contains(items[1].Description, "œuvres") ||
		items[1].Link != exampleOrigin+"/mairie/actualites.html#item-2" {
		t.Errorf("item 2 = %q %q", items[1].Link, items[1].Description)
	}

	// Read from a file (no Content-Type), its <meta> decides.
	page, _ := examples.Read("legacy-1252.html")
	fromFile := wrapper.Wrap(page, wrapper.Options{URL: "file:///tmp/legacy-1252.html"})
	if fromFile.Charset != "windows-1252" || fromFile.CharsetFrom != wrapper.FromMeta || fromFile.Resource.Channel.Title != c.Title {
		t.Errorf("from a file: charset %s from %s, title %q", fromFile.Charset, fromFile.CharsetFrom, fromFile.Resource.Channel.Title)
	}
}

func TestExampleKOI8R(t *testing.T) {
	r := wrapExample(t, "koi8-r.html")
	if r.Charset != "koi8-r" || r.CharsetFrom != wrapper.FromMeta {
		t.Errorf("charset %s from %s", r.Charset, r.CharsetFrom)
	}
	checkWarnings(t, r.Warnings, nil)
	if c := r.Resource.Channel; c.Title != "Вестник Заречья" || extensionValue(c.Extensions, "dc", "language") != "ru" {
		t.Errorf("channel = %q %+v", c.Title, c.Extensions)
	}
	news := exampleOrigin + "/gazeta/news/2005/12/"
	want := []struct{ title, link, date string }{
		{"Трамвай вернётся на улицу Ленина к весне", news + "08/tramvai.html", "2005-12-08T08:25:00+03:00"},
		{"В парке Победы открылся каток", news + "07/katok.html", "2005-12-07T16:40:00+03:00"},
		{"Центральная библиотека получила 2000 новых книг", news + "05/biblioteka.html", "2005-12-05T11:10:00+03:00"},
	}
	items := r.Resource.Items
	if len(items) != len(want) {
		t.Fatalf("%d items", len(items))
	}
	for i, w := range want {
		if items[i].Title != w.title || items[i].Link != w.link || itemDate(items[i]) != w.date {
			t.Errorf("item %d = %q %q %s", i+1, items[i].Title, items[i].Link, itemDate(items[i]))
		}
	}
	if items[1].Text != "Каток работает ежедневно с 10:00 до 22:00. Вход свободный, прокат коньков - 50 рублей в час." {
		t.Errorf("item 2 text = %q", items[1].Text)
	}
}

// The sloppy page yields most of its content, and a warning for each
// mistake: this is the list docs/WRAPPER.md shows.
func TestExampleSloppy(t *testing.T) {
	r := wrapExample(t, "sloppy.html")
	checkWarnings(t, r.Warnings, []wantWarning{
		{5, "annotation inside <script> ignored"},
		{11, "unknown annotation <chanel:description> ignored; did you mean <channel:description>?"},
		{13, "<channel:extension> has no uri; prefix dc is taken to mean http://purl.org/dc/elements/1.1/"},
		{16, "<item:title>: the quote of attribute index is not closed"},
		{25, "<item:title> is never closed"},
		{33, "index 3 is used twice for <item:title> (first on line 31)"},
		{38, "unknown annotation <item:summary> ignored"},
		{39, "<item:extension> has no uri"},
		{39, `dc:date: "sometime last week" is not a date Dynamo can read`},
		{42, `<item:title> index "six" is not an integer`},
		{47, "<item:description> has no index; it joins the item of the annotation before it (item with index 7)"},
		{51, `<item:title index="10"> is inside <item:description index="8"> of line 50`},
		{54, "<item:title> is empty"},
		{54, "item with index 9 has neither title nor description; it is titled with its link's text"},
		{56, "</item:title> closes nothing"},
		{59, "comment is not closed with -->; the annotation tags on its line are used"},
	})
	c := r.Resource.Channel
	if c.Title != "Oak Hill Chess Club news" || c.Link != exampleOrigin+"/club/" || c.Description != "" {
		t.Errorf("channel = %q %q %q", c.Title, c.Link, c.Description)
	}
	page := exampleOrigin + "/club/news.htm"
	want := []wantItem{
		{"Club championship: Petrov retains title", exampleOrigin + "/club/results/2006-championship.html",
			"<p>Ivan Petrov won the club championship for the third year running,\nwith 6½/7. <b>Well played!</b></p>"},
		{"Blitz night moves to Thursdays", exampleOrigin + "/club/blitz.html", "From February, blitz night is every Thursday at 7:30."},
		{"Junior section starts", page + "#item-3", "Juniors meet on Saturday mornings from 10 to 12."},
		{"New club shirts", page + "#item-4", "Order your shirt from Maria before the end of the month."},
		{"League match against Riverside", page + "#item-5", ""},
		{"Library of chess books", page + "#item-6", "Members may borrow up to three books at a time."},
		{"Congratulations to our under-12 team, who finished second in the county league.", page + "#item-7",
			"<p>Congratulations to our under-12 team, who finished second in the county\nleague. </p>"},
		{"Photo gallery", exampleOrigin + "/club/photos/", ""},
		{"Next season", page + "#item-9", ""},
		{"Club closed on Monday 16 January", page + "#item-10", ""},
		{"Simul against a grandmaster", exampleOrigin + "/club/simul.html", ""},
	}
	checkItems(t, r.Resource.Items, want)
	if d := itemDate(r.Resource.Items[0]); d != "2006-01-14T18:00:00-06:00" {
		t.Errorf("item 1 date = %s", d)
	}
	if img := r.Resource.Items[1].Image; img == nil || img.URL != exampleOrigin+"/club/images/blitz.jpg" {
		t.Errorf("item 2 image = %+v", img)
	}
}

func TestExamplesHaveAnnotations(t *testing.T) {
	for _, p := range examples.List {
		page, err := examples.Read(p.File)
		if err != nil {
			t.Fatal(err)
		}
		if !wrapper.HasAnnotations(page) {
			t.Errorf("HasAnnotations(%s) = false", p.File)
		}
	}
}
