package nativefeed

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

func rssDoc(decl, title, extra string) string {
	return decl + `<rss version="2.0"><channel><title>Feed</title><link>https://s.example/</link>` +
		`<item><title>` + title + `</title><link>https://s.example/a</link>` + extra + `</item></channel></rss>`
}

func win1252(s string) string {
	b, err := charmap.Windows1252.NewEncoder().String(s)
	if err != nil {
		panic(err)
	}
	return b
}

// TestRepairs feeds the breakages real feeds have; each must be read, with
// a warning, and make valid XMLData.
func TestRepairs(t *testing.T) {
	const utf8Decl = `<?xml version="1.0" encoding="utf-8"?>`
	tests := []struct {
		name        string
		body        string
		contentType string
		title       string // the item's title as read
		text        string // the item's text, when checked
		link        string // the item's link, when checked
		warning     string // part of a warning; "" for none expected
	}{
		{name: "control characters", body: rssDoc(utf8Decl, "A\x01B\x0bC\x1f", "<description>x\x00y</description>"),
			title: "ABC", text: "xy", warning: "control characters"},
		{name: "U+FFFE", body: rssDoc(utf8Decl, "A\uFFFEB", ""), title: "AB", warning: "control characters"},
		{name: "html entities", body: rssDoc(utf8Decl, "Caf&eacute;&nbsp;&mdash;&hellip;", ""), title: "Café —…", warning: "HTML entities"},
		{name: "entity in description", body: rssDoc("", "T", "<description>&lt;p&gt;caf&eacute; &amp;amp;&lt;/p&gt;</description>"),
			title: "T", text: "café &", warning: "HTML entities"},
		{name: "bare ampersands", body: rssDoc("", "Tom & Jerry &co; &", `<description>AT&T</description>`),
			title: "Tom & Jerry &co; &", text: "AT&T", warning: "bare ampersands"},
		{name: "bare ampersand in link", body: `<rss version="2.0"><channel><title>F</title><link>https://s.example/</link>` +
			`<item><title>T</title><link>https://s.example/?a=1&b=2</link></item></channel></rss>`,
			title: "T", link: "https://s.example/?a=1&b=2", warning: "bare ampersands"},
		{name: "cp1252 character references", body: rssDoc("", "It&#146;s &#147;quoted&#148;", ""),
			title: "It’s “quoted”", warning: "windows-1252"},
		{name: "illegal character references", body: rssDoc("", "A&#1;B&#x0;C&#xFFFF;D&#99999999999;", ""),
			title: "ABCD", warning: "character references to characters XML does not allow"},
		{name: "legal character references kept", body: rssDoc("", "&#233;&#x263A;&amp;&lt;", ""), title: "é☺&<"},
		{name: "cdata untouched", body: rssDoc("", "T", "<description><![CDATA[a &nbsp; & <b>b</b>]]></description>"),
			title: "T", text: "a & b"},
		{name: "comment untouched", body: rssDoc("", "T<!-- & -->", ""), title: "T"},
		{name: "windows-1252 declared as utf-8", body: rssDoc(utf8Decl, win1252("Café “quoted”"), ""),
			title: "Café “quoted”", warning: "read as windows-1252"},
		{name: "stray cp1252 byte in utf-8", body: rssDoc(utf8Decl, "Crème brûlée "+win1252("’"), ""),
			title: "Crème brûlée ’", warning: "bytes that are not UTF-8, read as windows-1252: 1"},
		{name: "utf-8 declared as latin-1", body: rssDoc(`<?xml version="1.0" encoding="ISO-8859-1"?>`, "Café ☺", ""),
			title: "Café ☺", warning: "the feed is UTF-8"},
		{name: "latin-1 as declared", body: rssDoc(`<?xml version="1.0" encoding="ISO-8859-1"?>`, win1252("Café"), ""), title: "Café"},
		{name: "koi8-r as declared", body: rssDoc(`<?xml version='1.0' encoding='koi8-r'?>`, koi8r("Привет"), ""), title: "Привет"},
		{name: "charset from http", body: rssDoc("", win1252("Café"), ""), contentType: "application/rss+xml; charset=windows-1252", title: "Café"},
		{name: "http beats the declaration", body: rssDoc(utf8Decl, win1251("Привет"), ""), contentType: "text/xml; charset=windows-1251", title: "Привет"},
		{name: "http charset with defects", body: rssDoc(utf8Decl, win1252("Café"), ""), contentType: "text/xml;charset= 'iso-8859-1'", title: "Café"},
		{name: "http charset wrong, bytes utf-8", body: rssDoc(utf8Decl, "Café", ""), contentType: "text/xml; charset=iso-8859-1",
			title: "Café", warning: "the Content-Type header says windows-1252 but the feed is UTF-8"},
		{name: "undeclared koi8-r detected", body: rssDoc("", koi8r("Новости дня: правительство обсудило новый бюджет"), ""),
			title: "Новости дня: правительство обсудило новый бюджет", warning: "detected koi8-r"},
		{name: "undeclared shift_jis detected", body: rssDoc("", shiftJIS("今日のニュース：新しい予算が議会で承認されました"), ""),
			title: "今日のニュース：新しい予算が議会で承認されました", warning: "detected shift_jis"},
		{name: "undeclared, detector unsure", body: rssDoc("", "A\x81\x8d\x8f\x90\x9d B", ""),
			title: "A\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD B", warning: "the detector is unsure"},
		{name: "unknown encoding", body: rssDoc(`<?xml version="1.0" encoding="x-klingon"?>`, "Qapla'", ""),
			title: "Qapla'", warning: "unknown encoding"},
		{name: "utf-16 with bom", body: string(utf16le(rssDoc(`<?xml version="1.0" encoding="utf-16"?>`, "Grüße", ""))), title: "Grüße"},
		{name: "utf-8 bom", body: "\xef\xbb\xbf" + rssDoc(utf8Decl, "Grüße", ""), title: "Grüße"},
		{name: "declared entity left alone", body: `<!DOCTYPE rss [<!ENTITY site "Example">]>` + rssDoc("", "A &site; B", ""), title: "A &site; B"},
		{name: "json control characters", body: `{"version": "https://jsonfeed.org/version/1", "title": "J", "items": [{"id": "1", "title": "a` + "\t" + `b", "content_text": "line` + "\n" + `two"}]}`,
			title: "a b", text: "line two", warning: "control characters inside JSON strings"},
		{name: "json escapes of characters XML does not allow", body: `{"version": "https://jsonfeed.org/version/1", "title": "J", "items": [{"id": "1", "title": "a\u0000b\\u0001\uFFFE \ud83d\ude00", "content_text": "x` + "\x01" + `y"}]}`,
			title: `ab\u0001 😀`, text: "xy", warning: "escapes of characters that XML does not allow (control characters), removed: 2"},
		{name: "json in windows-1252", body: `{"version": "https://jsonfeed.org/version/1", "title": "J", "items": [{"id": "1", "title": "` + win1252("Café") + `"}]}`,
			title: "Café", warning: "read as windows-1252"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := parse(t, []byte(tc.body), tc.contentType)
			if len(res.Resource.Items) != 1 {
				t.Fatalf("%d items", len(res.Resource.Items))
			}
			it := res.Resource.Items[0]
			if it.Title != tc.title {
				t.Errorf("title = %q, want %q", it.Title, tc.title)
			}
			if tc.text != "" && it.Text != tc.text {
				t.Errorf("text = %q, want %q", it.Text, tc.text)
			}
			if tc.link != "" && it.Link != tc.link {
				t.Errorf("link = %q, want %q", it.Link, tc.link)
			}
			if tc.warning == "" {
				if len(res.Warnings) != 0 {
					t.Errorf("warnings %v, want none", res.Warnings)
				}
				return
			}
			wantWarnings(t, res.Warnings, tc.warning)
		})
	}
}

func win1251(s string) string {
	b, err := charmap.Windows1251.NewEncoder().String(s)
	if err != nil {
		panic(err)
	}
	return b
}

func shiftJIS(s string) string {
	b, err := japanese.ShiftJIS.NewEncoder().String(s)
	if err != nil {
		panic(err)
	}
	return b
}

func koi8r(s string) string {
	b, err := charmap.KOI8R.NewEncoder().String(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestDropEncodingDecl(t *testing.T) {
	tests := map[string]string{
		`<?xml version="1.0" encoding="ISO-8859-1"?><rss/>`:                `<?xml version="1.0"?><rss/>`,
		`<?xml version='1.0' encoding = 'koi8-r' standalone="yes"?><rss/>`: `<?xml version='1.0' standalone="yes"?><rss/>`,
		`<rss/>`: `<rss/>`,
		`<?xml version="1.0"?><rss encoding="x"/>`: `<?xml version="1.0"?><rss encoding="x"/>`,
	}
	for in, want := range tests {
		if got := dropEncodingDecl(in); got != want {
			t.Errorf("dropEncodingDecl(%q) = %q, want %q", in, got, want)
		}
	}
	if !strings.Contains(fixMarkup("a & b", &repairs{}), "&amp;") {
		t.Error("fixMarkup left a bare ampersand")
	}
}

// TestSalvage reads the items before the point where a feed breaks off or
// breaks down.
func TestSalvage(t *testing.T) {
	full := string(read(t, "rss20.xml"))
	atom := string(read(t, "atom.xml"))
	cutAfter := func(s, marker string, n int) string {
		i := 0
		for range n {
			i += strings.Index(s[i:], marker) + len(marker)
		}
		return s[:i]
	}
	tests := []struct {
		name  string
		body  string
		items int
	}{
		{"rss cut mid-item", cutAfter(full, "</item>", 2) + "\n<item><title>Half", 2},
		{"rss cut after an item", cutAfter(full, "</item>", 3), 3},
		{"rss cut in cdata", cutAfter(full, "<![CDATA[", 1), 0},
		{"atom cut mid-entry", cutAfter(atom, "</entry>", 1) + "<entry><title>x", 1},
		{"comment never closed", cutAfter(full, "</item>", 1) + "<!-- swallows the rest " + full[len(cutAfter(full, "</item>", 1)):], 1},
	}
	for _, tc := range tests {
		res, err := Parse([]byte(tc.body), "", Options{URL: "https://feeds.example.com/feed", Now: now})
		if tc.items == 0 {
			if err == nil {
				t.Errorf("%s: read %d items, want an error", tc.name, len(res.Resource.Items))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		verifyXMLData(t, res)
		if len(res.Resource.Items) != tc.items {
			t.Errorf("%s: %d items, want %d", tc.name, len(res.Resource.Items), tc.items)
		}
		wantWarnings(t, res.Warnings, "complete items before the damage were read")
	}
}

// TestGzipInsideContentEncoding reads a body compressed once more than its
// Content-Encoding said, and refuses one that decompresses too far or not
// at all, with an error saying so.
func TestGzipInsideContentEncoding(t *testing.T) {
	feed := rssDoc("", "Twice", "")
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		z := gzip.NewWriter(&buf)
		z.Write(b)
		z.Close()
		return buf.Bytes()
	}
	body := gz([]byte(feed))
	if !Detect(body, "application/rss+xml") {
		t.Error("Detect does not see the feed inside the gzip")
	}
	res := parse(t, body, "application/rss+xml")
	if len(res.Resource.Items) != 1 || res.Resource.Items[0].Title != "Twice" {
		t.Errorf("items %+v", res.Resource.Items)
	}
	wantWarnings(t, res.Warnings, "gzip-compressed once more")
	if _, err := Parse(body[:len(body)/2], "", Options{}); err == nil {
		t.Error("half a gzip stream: no error")
	}
	bomb := gz(bytes.Repeat([]byte(" "), maxInnerGzip+1))
	if _, err := Parse(bomb, "", Options{}); err == nil || !strings.Contains(err.Error(), "decompresses to more than") {
		t.Errorf("gzip bomb: err = %v", err)
	}
	if _, err := Parse([]byte{0x1f, 0x8b, 8, 0, 0}, "", Options{}); err == nil || !strings.Contains(err.Error(), "does not decompress") {
		t.Errorf("broken gzip: err = %v", err)
	}
}

// TestSmallerRepairs: Atom 0.3's escaped text, placeholder dates and
// FeedBurner's original links.
func TestSmallerRepairs(t *testing.T) {
	atom03 := `<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title mode="escaped">A &amp;amp; B</title>` +
		`<entry><title mode="escaped" type="text/plain">x &amp;lt;y&amp;gt;</title><link rel="alternate" href="https://a.example/1"/>` +
		`<content mode="escaped">&lt;p&gt;Hi &lt;b&gt;there&lt;/b&gt;&lt;/p&gt;</content></entry></feed>`
	res := parse(t, []byte(atom03), "")
	if it := res.Resource.Items[0]; res.Resource.Channel.Title != "A & B" || it.Title != "x <y>" || it.Text != "Hi there" {
		t.Errorf("atom 0.3: %q, %q, %q", res.Resource.Channel.Title, it.Title, it.Text)
	}
	rss := `<rss version="2.0" xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0"><channel><title>T</title><link>https://s.example/</link>
	<item><title>Zero</title><link>https://feeds.example/~r/x/1</link><feedburner:origLink>https://s.example/1</feedburner:origLink><pubDate>Mon, 01 Jan 0001 00:00:00 +0000</pubDate></item>
	<item><title>Epoch</title><link>https://s.example/2</link><pubDate>1970-01-01T00:00:00Z</pubDate></item>
	<item><title>Old but real</title><link>https://s.example/3</link><pubDate>1970-01-02T00:00:00Z</pubDate></item></channel></rss>`
	res = parse(t, []byte(rss), "")
	checkItems(t, res.Resource.Items, []wantItem{
		{title: "Zero", link: "https://s.example/1"},
		{title: "Epoch", link: "https://s.example/2"},
		{title: "Old but real", link: "https://s.example/3", date: "1970-01-02T00:00:00Z"},
	})
	wantWarnings(t, res.Warnings, `item 1: the date "Mon, 01 Jan 0001 00:00:00 +0000" is a zero value`, `item 2: the date "1970-01-01T00:00:00Z" is a zero value`)
}
