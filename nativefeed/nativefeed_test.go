package nativefeed

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t testing.TB, body []byte, contentType string) *Result {
	t.Helper()
	res, err := Parse(body, contentType, Options{URL: "https://feeds.example.com/feed", RSSID: "src", Now: now})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	verify.XMLData(t, res.Resource.XML())
	return res
}

func ext(exts []dynamo.Extension, prefix, local string) []string {
	var vals []string
	for _, e := range exts {
		if e.Prefix == prefix && e.LocalName == local {
			vals = append(vals, e.Value)
		}
	}
	return vals
}

func date(it dynamo.Item) string {
	if d, ok := it.Date(); ok {
		return d.Format(time.RFC3339)
	}
	return ""
}

type wantItem struct {
	title, link, date string
	id                string // expected id; "" to skip
	fromContent       bool
	// Checked when set: a fragment of the item's text and of its
	// description, its image URL, its update time in UTC (RFC 3339) and
	// its enclosures.
	text, desc, image, updated string
	enclosures                 []dynamo.Enclosure
}

func checkItems(t *testing.T, got []dynamo.Item, want []wantItem) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d items, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		it := got[i]
		if it.Index != i+1 || it.Title != w.title || it.Link != w.link || date(it) != w.date || it.IDFromContent != w.fromContent {
			t.Errorf("item %d = %d %q %q %q (from content %v)\nwant %q %q %q (from content %v)",
				i+1, it.Index, it.Title, it.Link, date(it), it.IDFromContent, w.title, w.link, w.date, w.fromContent)
		}
		if w.id != "" && it.ID != w.id {
			t.Errorf("item %d id = %s, want %s", i+1, it.ID, w.id)
		}
		if !strings.Contains(it.Text, w.text) {
			t.Errorf("item %d text = %q, want it to contain %q", i+1, truncate(it.Text, 300), w.text)
		}
		if !strings.Contains(it.Description, w.desc) {
			t.Errorf("item %d description = %q, want it to contain %q", i+1, truncate(it.Description, 300), w.desc)
		}
		if w.image != "" && (it.Image == nil || it.Image.URL != w.image) {
			t.Errorf("item %d image = %+v, want %s", i+1, it.Image, w.image)
		}
		if w.updated != "" && it.Updated.UTC().Format(time.RFC3339) != w.updated {
			t.Errorf("item %d updated = %s, want %s", i+1, it.Updated, w.updated)
		}
		if w.enclosures != nil && !slices.Equal(it.Enclosures, w.enclosures) {
			t.Errorf("item %d enclosures = %+v\nwant %+v", i+1, it.Enclosures, w.enclosures)
		}
	}
}

func TestRSS091(t *testing.T) {
	res := parse(t, read(t, "rss091.xml"), "text/xml")
	if res.Format != FormatRSS09x || res.TTL != 0 {
		t.Errorf("format %s ttl %s", res.Format, res.TTL)
	}
	c := res.Resource.Channel
	if c.Title != "Scripting News" || c.Link != "http://www.scripting.com/" || c.Description != "A weblog about scripting &amp; stuff." {
		t.Errorf("channel = %q %q %q", c.Title, c.Link, c.Description)
	}
	if c.Image == nil || c.Image.URL != "http://www.scripting.com/gifs/tinyScriptingNews.gif" {
		t.Errorf("channel image = %+v (want its relative URL resolved)", c.Image)
	}
	if got := ext(c.Extensions, "dc", "language"); len(got) != 1 || got[0] != "en-us" {
		t.Errorf("dc:language = %v", got)
	}
	checkItems(t, res.Resource.Items, []wantItem{
		{title: "Café notes", link: "http://www.scripting.com/2000/08/19.html",
			id: dynamo.ItemID("http://www.scripting.com/2000/08/19.html", true, "", "")},
		{title: "Second", link: "http://www.scripting.com/2000/08/20.html"},
	})
	first := res.Resource.Items[0]
	if first.Description != "Notes\u00a0from the café © Dave" || first.Text != "Notes from the café © Dave" {
		t.Errorf("description %q text %q: the DTD's HTML entities should read as characters", first.Description, first.Text)
	}
}

func TestRSS10(t *testing.T) {
	res := parse(t, read(t, "rss10.rdf"), "application/rdf+xml")
	if res.Format != FormatRSS10 || res.TTL != 30*time.Minute {
		t.Errorf("format %s ttl %s, want rss1.0 and 30m (sy: hourly, twice)", res.Format, res.TTL)
	}
	checkItems(t, res.Resource.Items, []wantItem{
		{title: "One", link: "http://example.org/one", date: "2005-12-08T08:25:00+01:00"},
		{title: "Two", link: "http://example.org/two", date: "2005-12-08T09:30:00Z"},
	})
	one := res.Resource.Items[0]
	if want := `<p>Full <b>content</b> of one, with <a href="http://example.org/more">a relative link</a>.</p>`; one.Description != want {
		t.Errorf("description = %q, want content:encoded, absolute: %q", one.Description, want)
	}
	if one.Text != "Full content of one, with a relative link." {
		t.Errorf("text = %q", one.Text)
	}
	if got := ext(one.Extensions, "dc", "creator"); len(got) != 1 || got[0] != "Anna Autor" {
		t.Errorf("dc:creator = %v", got)
	}
	if got := ext(one.Extensions, "dc", "subject"); len(got) != 1 || got[0] != "Politik" {
		t.Errorf("dc:subject = %v", got)
	}
}

func TestRSS20(t *testing.T) {
	res := parse(t, read(t, "rss20.xml"), "application/rss+xml; charset=utf-8")
	if res.Format != FormatRSS20 || res.TTL != 30*time.Minute {
		t.Errorf("format %s ttl %s", res.Format, res.TTL)
	}
	c := res.Resource.Channel
	if c.Title != "News & Views" || c.Link != "https://news.example.com/" {
		t.Errorf("channel %q %q", c.Title, c.Link)
	}
	if d := ext(c.Extensions, "dc", "date"); len(d) != 1 || d[0] != "2026-11-22T10:00:00Z" {
		t.Errorf("channel dc:date = %v", d)
	}
	story := "https://news.example.com/2026/11/22/story"
	checkItems(t, res.Resource.Items, []wantItem{
		// A permalink guid is the link, and its id is the link's.
		{title: "Permalink guid, no link", link: story, date: "2026-11-22T09:00:00Z", id: dynamo.ItemID(story, true, "", "")},
		// An opaque guid is the id; the link stays the link.
		{title: "Opaque guid", link: "https://news.example.com/b", date: "2026-11-21T18:30:00-05:00",
			id: dynamo.ItemID("tag:news.example.com,2026:b", true, "", "")},
		{title: "No guid", link: "https://news.example.com/c", date: "2026-11-21T08:00:00Z",
			id: dynamo.ItemID("https://news.example.com/c", true, "", "")},
		{title: "An item with neither title nor link, only this text that is long enough to need…",
			link: "https://news.example.com/#item-4", fromContent: true},
		{title: "Bad date", link: "https://news.example.com/d"},
		{title: "Duplicate of no guid", link: "https://news.example.com/c"},
	})
	items := res.Resource.Items
	if want := `<p>Story with <img src="https://news.example.com/img/a.png" alt="a"/> and a <a href="https://news.example.com/2026/11/22/story-2">relative</a> link.</p>`; items[0].Description != want {
		t.Errorf("description = %q\nwant %q (sanitized, resolved against the item link)", items[0].Description, want)
	}
	if got := ext(items[0].Extensions, "dc", "subject"); strings.Join(got, ",") != "World,Politics" {
		t.Errorf("categories = %v", got)
	}
	if got := ext(items[0].Extensions, "dc", "creator"); len(got) != 1 || got[0] != "The Editor" {
		t.Errorf("author = %v", got)
	}
	if img := items[1].Image; img == nil || img.URL != "https://cdn.example.com/b.jpg" || img.Link != items[1].Link {
		t.Errorf("media:content image = %+v", img)
	}
	if got := items[1].Enclosures; len(got) != 1 || got[0] != (dynamo.Enclosure{URL: "https://cdn.example.com/b.mp3", Type: "audio/mpeg", Length: 1234}) {
		t.Errorf("enclosures = %+v", got)
	}
	if got := ext(items[4].Extensions, "dc", "date"); len(got) != 1 || got[0] != "sometime last week" {
		t.Errorf("unreadable date = %v, want its text kept", got)
	}
	if items[5].ID == items[2].ID {
		t.Error("two items with one link share an id")
	}
	wantWarnings(t, res.Warnings, `the date "sometime last week" cannot be read`, "item 6 has the same link as an earlier item")
}

func TestAtom(t *testing.T) {
	res := parse(t, read(t, "atom.xml"), "application/atom+xml")
	if res.Format != FormatAtom {
		t.Errorf("format %s", res.Format)
	}
	c := res.Resource.Channel
	if c.Title != "A & B's Blog" || c.Link != "https://blog.example.net/" || c.Description != "<em>Thoughts</em>" {
		t.Errorf("channel %q %q %q", c.Title, c.Link, c.Description)
	}
	if c.Image == nil || c.Image.URL != "https://blog.example.net/logo.svg" {
		t.Errorf("logo = %+v", c.Image)
	}
	if got := ext(c.Extensions, "dc", "creator"); len(got) != 1 || got[0] != "B. Writer" {
		t.Errorf("feed author = %v", got)
	}
	checkItems(t, res.Resource.Items, []wantItem{
		{title: "Hello World", link: "https://blog.example.net/posts/hello", date: "2026-11-19T10:00:00+02:00",
			id: dynamo.ItemID("urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a", true, "", "")},
		{title: "Text content", link: "https://blog.example.net/posts/text", date: "2026-11-18T09:00:00Z"},
	})
	hello, text := res.Resource.Items[0], res.Resource.Items[1]
	if want := `<p>XHTML <a href="https://blog.example.net/about">content</a></p>`; hello.Description != want {
		t.Errorf("xhtml content = %q, want %q", hello.Description, want)
	}
	if got := hello.Updated.Format(time.RFC3339); got != "2026-11-20T18:30:02Z" {
		t.Errorf("updated = %s", got)
	}
	if got := ext(hello.Extensions, "dcterms", "modified"); len(got) != 0 {
		t.Errorf("dcterms:modified kept beside Updated: %v", got)
	}
	if text.Text != "if a < b && c > d then <b>not bold</b>" {
		t.Errorf("type=text content read as markup: text %q, description %q", text.Text, text.Description)
	}
}

func TestJSONFeed(t *testing.T) {
	res := parse(t, read(t, "feed.json"), "application/feed+json")
	if res.Format != FormatJSON {
		t.Errorf("format %s", res.Format)
	}
	c := res.Resource.Channel
	if c.Title != "JSON Example" || c.Link != "https://json.example.org/" || len(ext(c.Extensions, "dc", "date")) != 0 {
		t.Errorf("channel %q %q %+v", c.Title, c.Link, c.Extensions)
	}
	checkItems(t, res.Resource.Items, []wantItem{
		{title: "HTML item", link: "https://json.example.org/2", date: "2026-11-22T08:00:00-05:00", id: dynamo.ItemID("2", true, "", "")},
		{title: "Plain text <not a tag> second line", link: "https://elsewhere.example.com/article", id: dynamo.ItemID("1", true, "", "")},
		{title: "Only a summary", link: "https://json.example.org/#item-3"},
	})
	items := res.Resource.Items
	if strings.Contains(items[0].Description, "iframe") || !strings.Contains(items[0].Description, `href="https://json.example.org/x"`) {
		t.Errorf("content_html = %q, want sanitized and absolute", items[0].Description)
	}
	if items[1].Description != "Plain text &lt;not a tag&gt;<br/>\nsecond line" {
		t.Errorf("content_text = %q, want escaped", items[1].Description)
	}
}

// TestJSONFeedByContentType reads a JSON Feed that omits its version when
// the server says what it is.
func TestJSONFeedByContentType(t *testing.T) {
	body := []byte(`{"title": "No version", "items": [{"id": "a", "url": "https://j.example/a", "title": "A"}]}`)
	if _, err := Parse(body, "application/json", Options{}); !errors.Is(err, ErrNotFeed) {
		t.Errorf("as application/json: err = %v, want ErrNotFeed", err)
	}
	res := parse(t, body, "application/feed+json; charset=utf-8")
	if res.Format != FormatJSON || len(res.Resource.Items) != 1 || res.Resource.Items[0].Title != "A" {
		t.Errorf("as application/feed+json: %s %+v", res.Format, res.Resource.Items)
	}
}

func wantWarnings(t *testing.T, got []dynamo.Warning, want ...string) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g.Message, w)
		}
		if !found {
			t.Errorf("no warning containing %q in %v", w, got)
		}
	}
}

// TestIDsAreStable checks the id rule across versions of one feed: an item
// keeps its id when its title or text change, when it moves, and when a
// permalink guid appears or disappears.
func TestIDsAreStable(t *testing.T) {
	v1 := `<rss version="2.0"><channel><title>T</title><link>https://s.example/</link>
	<item><title>A</title><link>https://s.example/a</link></item>
	<item><title>B</title><guid isPermaLink="false">b-1</guid></item>
	<item><title>C</title><description>c text</description></item>
	</channel></rss>`
	v2 := `<rss version="2.0"><channel><title>T</title><link>https://s.example/</link>
	<item><title>New</title><link>https://s.example/new</link></item>
	<item><title>C</title><description>c   text</description></item>
	<item><title>B edited</title><guid isPermaLink="false">b-1</guid><description>now with text</description></item>
	<item><title>A edited</title><guid>https://s.example/a</guid></item>
	</channel></rss>`
	ids := func(body string) map[string]string {
		m := map[string]string{}
		for _, it := range parse(t, []byte(body), "").Resource.Items {
			m[it.Title[:1]] = it.ID
		}
		return m
	}
	a, b := ids(v1), ids(v2)
	for _, k := range []string{"A", "B", "C"} {
		if a[k] != b[k] {
			t.Errorf("item %s changed id across versions: %s → %s", k, a[k], b[k])
		}
	}
	if b["N"] == "" || b["N"] == a["A"] {
		t.Errorf("new item id %q", b["N"])
	}
}

func TestDatesUseLocation(t *testing.T) {
	feed := `<rss version="2.0"><channel><title>T</title><link>https://s.example/</link>
	<item><title>A</title><link>https://s.example/a</link><pubDate>2026-11-22 10:00</pubDate></item>
	<item><title>B</title><link>https://s.example/b</link><pubDate>Sun, 22 Nov 2026 10:00:00 +0000</pubDate></item>
	</channel></rss>`
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse([]byte(feed), "", Options{URL: "https://s.example/feed", Location: berlin, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got := date(res.Resource.Items[0]); got != "2026-11-22T10:00:00+01:00" {
		t.Errorf("zone-less date = %s, want it read in Europe/Berlin", got)
	}
	if got := date(res.Resource.Items[1]); got != "2026-11-22T10:00:00Z" {
		t.Errorf("date with zone = %s", got)
	}
	if !res.Resource.Timestamp.Equal(now) || res.Resource.URL != "https://s.example/feed" {
		t.Errorf("resource %s %s", res.Resource.Timestamp, res.Resource.URL)
	}
}

func TestTTL(t *testing.T) {
	tests := []struct {
		channel string
		want    time.Duration
		warning string
	}{
		{"<ttl>60</ttl>", time.Hour, ""},
		{"<ttl> 15 </ttl>", 15 * time.Minute, ""},
		{"<ttl>999999</ttl>", MaxTTL, ""},
		{"<ttl>soon</ttl>", 0, "is not a number of minutes"},
		{"<ttl>-5</ttl>", 0, "is not a number of minutes"},
		{`<sy:updatePeriod xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">daily</sy:updatePeriod>`, 24 * time.Hour, ""},
		{`<sy:updatePeriod xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">yearly</sy:updatePeriod>`, MaxTTL, ""},
		{"", 0, ""},
	}
	for _, tc := range tests {
		feed := `<rss version="2.0"><channel><title>T</title><link>https://s.example/</link>` + tc.channel + `</channel></rss>`
		res := parse(t, []byte(feed), "")
		if res.TTL != tc.want {
			t.Errorf("%s: TTL %s, want %s", tc.channel, res.TTL, tc.want)
		}
		if tc.warning != "" {
			wantWarnings(t, res.Warnings, tc.warning)
		}
	}
}

func TestNotAFeed(t *testing.T) {
	tests := []struct {
		name, body, say string
	}{
		{"html", "<!DOCTYPE html><html><head><title>x</title></head><body>hi</body></html>", "<html>"},
		{"xhtml", `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body/></html>`, "<html>"},
		{"other xml", `<?xml version="1.0"?><!-- c --><urlset><url/></urlset>`, "<urlset>"},
		{"empty", "", "neither XML nor JSON"},
		{"text", "Service Unavailable", "neither XML nor JSON"},
		{"png", "\x89PNG\r\n\x1a\n\x00\x00", "neither XML nor JSON"},
		{"json", `{"status": "ok"}`, "names no JSON Feed version"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.body), "", Options{})
		if !errors.Is(err, ErrNotFeed) || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%s: err = %v, want ErrNotFeed saying %q", tc.name, err, tc.say)
		}
		if Detect([]byte(tc.body), "") {
			t.Errorf("%s: Detect = true", tc.name)
		}
	}
	// A feed root with a document too broken to parse is an error too,
	// but not ErrNotFeed.
	for _, body := range []string{`<rss version="2.0"><channel><title>x</ti`, `{"version": "https://jsonfeed.org/version/1", "items": [`} {
		if _, err := Parse([]byte(body), "", Options{}); err == nil || errors.Is(err, ErrNotFeed) {
			t.Errorf("%q: err = %v, want a parse error", body, err)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		body, contentType string
		want              bool
	}{
		{"<rss version=\"2.0\"><channel/></rss>", "", true},
		{"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- generator -->\n<?xml-stylesheet href=\"s.xsl\"?><rss>", "", true},
		{`<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "x"><rss version="0.91">`, "", true},
		{`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">`, "", true},
		{`<feed xmlns="http://www.w3.org/2005/Atom">`, "", true},
		{`<atom:feed xmlns:atom="http://www.w3.org/2005/Atom">`, "", true},
		{"  {\"version\": \"https://jsonfeed.org/version/1.1\", \"items\": []}", "", true},
		{`{"items": []}`, "application/feed+json", true},
		{`{"items": []}`, "application/json", false},
		{`{"items": [` + strings.Repeat(`{"id": "x"},`, 2000) + `{}], "version": "https://jsonfeed.org/version/1"}`, "application/json", true},
		{"<!DOCTYPE html><html>", "application/rss+xml", false},
		{"<html><head><link rel=alternate type=application/rss+xml href=/feed></head>", "", false},
		{"<!-- <rss> --><html>", "", false},
		{string(utf16le("<?xml version=\"1.0\" encoding=\"utf-16\"?><rss version=\"2.0\">")), "", true},
	}
	for _, tc := range tests {
		if got := Detect([]byte(tc.body), tc.contentType); got != tc.want {
			t.Errorf("Detect(%q, %q) = %v, want %v", tc.body, tc.contentType, got, tc.want)
		}
	}
}

func utf16le(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

func TestWarningsAreBounded(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`<rss version="2.0"><channel><title>T</title><link>https://s.example/</link>`)
	for i := range 500 {
		sb.WriteString("<item><title>x</title><link>https://s.example/" + string(rune('a'+i%26)) + "</link><pubDate>never</pubDate></item>")
	}
	sb.WriteString("</channel></rss>")
	res := parse(t, []byte(sb.String()), "")
	if len(res.Resource.Items) != 500 {
		t.Fatalf("%d items", len(res.Resource.Items))
	}
	if n := len(res.Warnings); n != maxWarnings+1 || !strings.Contains(res.Warnings[n-1].Message, "more warnings") {
		t.Errorf("%d warnings, last %v", n, res.Warnings[n-1])
	}
}

func verifyXMLData(t *testing.T, res *Result) {
	t.Helper()
	verify.XMLData(t, res.Resource.XML())
}

// TestDateFormats runs the date shapes found in real feeds through Parse.
func TestDateFormats(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"Mon, 02 Jan 2006 15:04:05 -0700", "2006-01-02T15:04:05-07:00"},
		{"Mon, 2 Jan 2006 15:04:05 GMT", "2006-01-02T15:04:05Z"},
		{"Mon, 02 Jan 2006 15:04:05 PST", "2006-01-02T15:04:05-08:00"},
		{"Mon, 02 Jan 2006 15:04 +0100", "2006-01-02T15:04:00+01:00"},
		{"02 Jan 06 15:04 +0000", "2006-01-02T15:04:00Z"},
		{"Tue, 03 Jan 2006 15:04:05 -0700", "2006-01-03T15:04:05-07:00"}, // weekday wrong: ignored
		{"2006-01-02T15:04:05Z", "2006-01-02T15:04:05Z"},
		{"2006-01-02T15:04:05.123+02:00", "2006-01-02T15:04:05+02:00"},
		{"2006-01-02 15:04:05", "2006-01-02T15:04:05Z"},
		{"2006-01-02", "2006-01-02T00:00:00Z"},
		{"January 2, 2006 3:04 PM", "2006-01-02T15:04:00Z"},
		{"  Mon,  02 Jan 2006 15:04:05 +0000  ", "2006-01-02T15:04:05Z"},
		{"mar, 24 nov 2026 09:00:00 +0100", "2026-11-24T09:00:00+01:00"}, // Spanish Tuesday, not March
		{"Di, 24 Nov 2026 09:00:00 +0100", "2026-11-24T09:00:00+01:00"},
	}
	for _, tc := range tests {
		feed := `<rss version="2.0"><channel><title>T</title><link>https://s.example/</link>` +
			`<item><title>A</title><link>https://s.example/a</link><pubDate>` + tc.raw + `</pubDate></item></channel></rss>`
		res, err := Parse([]byte(feed), "", Options{URL: "https://s.example/feed", Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if got := ext(res.Resource.Items[0].Extensions, "dc", "date"); len(got) != 1 || got[0] != tc.want {
			t.Errorf("pubDate %q → %v, want %s", tc.raw, got, tc.want)
		}
	}
}

// TestNamespaces reads feeds whose elements carry prefixes or foreign
// namespaces.
func TestNamespaces(t *testing.T) {
	tests := []struct {
		name, body string
		title      string // the first item's
		link       string
	}{
		{"prefixed atom", `<a:feed xmlns:a="http://www.w3.org/2005/Atom"><a:title>P</a:title><a:link href="https://p.example/"/>` +
			`<a:entry><a:id>urn:x:1</a:id><a:title>Prefixed</a:title><a:link href="/one"/><a:updated>2026-11-01T00:00:00Z</a:updated></a:entry></a:feed>`,
			"Prefixed", "https://p.example/one"},
		{"rss with foreign elements", `<rss version="2.0" xmlns:x="urn:x" xmlns:slash="http://purl.org/rss/1.0/modules/slash/"><channel><title>F</title><link>https://f.example/</link>` +
			`<x:meta><x:deep>ignored</x:deep></x:meta><item><x:title>not the title</x:title><title>Real</title><slash:comments>3</slash:comments><link>https://f.example/r</link></item></channel></rss>`,
			"Real", "https://f.example/r"},
		{"rss 1.0 prefixed", `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rss="http://purl.org/rss/1.0/">` +
			`<rss:channel rdf:about="https://r.example/"><rss:title>R</rss:title><rss:link>https://r.example/</rss:link></rss:channel>` +
			`<rss:item rdf:about="https://r.example/1"><rss:title>One</rss:title><rss:link>https://r.example/1</rss:link></rss:item></rdf:RDF>`,
			"One", "https://r.example/1"},
	}
	for _, tc := range tests {
		res := parse(t, []byte(tc.body), "")
		if len(res.Resource.Items) == 0 {
			t.Errorf("%s: no items", tc.name)
			continue
		}
		if it := res.Resource.Items[0]; it.Title != tc.title || it.Link != tc.link {
			t.Errorf("%s: item %q %q, want %q %q", tc.name, it.Title, it.Link, tc.title, tc.link)
		}
	}
}
