package nativefeed

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo"
)

// fuzzSeeds are broken feeds beside the well-formed ones in testdata/.
var fuzzSeeds = []string{
	`<rss version="2.0"><channel><title>T &nbsp; & </title><item><title>A</title><guid>g</guid><guid>g2</guid></item><item><guid>g</guid></item></channel></rss>`,
	`<?xml version="1.0" encoding="windows-1252"?><rss version="0.92"><channel><title>Caf` + "\xe9" + `</title><item><description>&#146;` + "\x01" + `</description></item></channel></rss>`,
	`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><item><title>x</title><link>javascript:alert(1)</link></item></rdf:RDF>`,
	`<feed xmlns="http://www.w3.org/2005/Atom" xml:base="../x/"><entry><id></id><link href="::bad"/><content type="html">&lt;script&gt;</content></entry><entry/></feed>`,
	`<!DOCTYPE rss [<!ENTITY a "&b;"><!ENTITY b "&a;">]><rss><channel><title>&a;</title></channel></rss>`,
	`<rss><channel><item><title><![CDATA[unterminated`,
	`<rss><channel><ttl>99999999999999999999</ttl><item><pubDate>Mon, 99 Foo 2026 25:61:61 XYZ</pubDate></item></channel></rss>`,
	`{"version":"https://jsonfeed.org/version/1","items":[{"id":null},{"id":{"a":1}},{"url":"\u0000"},{"content_html":"<a href='//x'>"}],"title":5}`,
	`{"version":"https://jsonfeed.org/version/1.1","items":"nope"}`,
	"\xff\xfe<\x00r\x00s\x00s\x00>\x00",
	`<?xml version="1.0" encoding="utf-16"?><rss><channel><title>t</title></channel></rss>`,
	`<feed xmlns="http://www.w3.org/2005/Atom" xml:base="::"><link href="a"/><entry xml:base="x.html" xml:base="y/"><link href="#f" xml:base="//h"/><content type="xhtml" xml:base="/m/"><div xmlns="http://www.w3.org/1999/xhtml"><a href="b">b</a></div></content></entry><entry xml:base="javascript:x"><link href="c"/></entry></feed>`,
	`<rss xml:base="https://s.example/a.html"><channel><item><title>mar, 24 nov</title><pubDate>mar, 24 nov 2026 09:00:00 +0100</pubDate><media:group xmlns:media="http://search.yahoo.com/mrss/"><media:thumbnail url="t.jpg"/><media:description type="html">&lt;b&gt;d</media:description></media:group><enclosure url="e"/><media:content xmlns:media="http://search.yahoo.com/mrss/" url="e" fileSize="9"/></item></channel></rss>`,
}

func FuzzParse(f *testing.F) {
	for _, dir := range []string{"testdata", filepath.Join("testdata", "corpus", "dev")} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					f.Fatal(err)
				}
				f.Add(b, "")
			}
		}
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "application/rss+xml; charset=iso-8859-1")
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		res, err := Parse(body, contentType, Options{URL: "https://feeds.example.com/a/feed", RSSID: "fuzz", Now: now})
		if err != nil {
			return
		}
		if !Detect(body, contentType) {
			t.Errorf("Parse read a feed that Detect rejects")
		}
		checkDocument(t, res)
	})
}

// checkDocument checks what the schema and the archive require of a
// result, without the external validator (too slow for fuzzing).
func checkDocument(t *testing.T, res *Result) {
	t.Helper()
	switch res.Format {
	case FormatRSS09x, FormatRSS10, FormatRSS20, FormatAtom, FormatJSON:
	default:
		t.Errorf("format %q", res.Format)
	}
	if res.TTL < 0 || res.TTL > MaxTTL {
		t.Errorf("TTL %s", res.TTL)
	}
	doc := res.Resource
	xml := doc.XML()
	if !utf8.Valid(xml) {
		t.Fatal("XMLData is not UTF-8")
	}
	back, err := dynamo.DecodeResource(xml)
	if err != nil {
		t.Fatalf("XMLData does not read back: %v\n%s", err, xml)
	}
	if len(back.Items) != len(doc.Items) || back.Channel.Title != doc.Channel.Title {
		t.Errorf("XMLData read back differs")
	}
	ids := map[string]bool{}
	for i, it := range doc.Items {
		if it.Index != i+1 || it.ID == "" || ids[it.ID] {
			t.Errorf("item %d: index %d, id %q (duplicate %v)", i+1, it.Index, it.ID, ids[it.ID])
		}
		ids[it.ID] = true
		if it.Title == "" || it.Link == "" {
			t.Errorf("item %d has no title or link: %+v", i+1, it)
		}
		for _, e := range it.Extensions {
			if err := e.Valid(); err != nil {
				t.Errorf("item %d: %v", i+1, err)
			}
			if dynamo.IsDateName(e.LocalName) && e.Value == "" {
				t.Errorf("item %d: empty date", i+1)
			}
		}
	}
}

// TestSeedsMakeValidXMLData runs the fuzz seeds through the real validator.
func TestSeedsMakeValidXMLData(t *testing.T) {
	for _, s := range fuzzSeeds {
		res, err := Parse([]byte(s), "", Options{URL: "https://feeds.example.com/feed", RSSID: "seed", Now: now})
		if err != nil {
			t.Logf("%.40q: %v", s, err)
			continue
		}
		checkDocument(t, res)
		verifyXMLData(t, res)
	}
}
