package wrapper_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/examples"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// nastyFragments are broken pages that seed the fuzzer and whose results
// xmllint checks against the schema.
var nastyFragments = []string{
	``,
	`<!--`,
	`<!---->`,
	`<!-->`,
	`<!--->`,
	`-->`,
	`<!-- <item:title`,
	`<!-- <item:title index="1`,
	`<!-- <item:title index='1'/>`,
	`<!-- </item:title x="-->"> -->`,
	`<!-- <item:title index=1> --><!-- <item:title index=1> --><!-- </item:title> --><!-- </item:title> -->`,
	`<!-- <item:link index=1> --><a href="javascript:x">a</a><!-- </item:link> -->`,
	`<!-- <item:link index=1> --><a href="http://[::1]:80/a b?c=%zz#d#e">a</a><!-- </item:link> -->`,
	`<!-- <item:link index=1> -->mailto:a@b<!-- </item:link> --><!-- <item:link index=2> -->//host/p<!-- </item:link> -->`,
	`<!-- <item:link index=1> --><a href="&#0;&#x1;">x</a><!-- </item:link> --><!-- <item:title index=1>` + "\x00\x01\x1f\ufffe" + `</item:title> -->`,
	`<!-- <item:image index=1 url="[" link="]"/> --><!-- <item:title index=1>t</item:title> -->`,
	`<!-- <channel:link> -->http://a b/<!-- </channel:link> -->`,
	`<base href="::"><!-- <item:link index=1> -->x<!-- </item:link> -->`,
	`<!-- <item:extension index=1 uri="u" prefix="p" localName="date">99/99/9999</item:extension> -->`,
	`<!-- <channel:extension uri="u" prefix="p" localName="DATE">03/26/2024</channel:extension> --><!-- <item:extension index=1 uri="u" prefix="p" localName="date">25/03/2024</item:extension> --><!-- <item:extension index=2 uri="u" prefix="p" localName="date">05/03/24 8 PM</item:extension> --><!-- <item:extension index=2 uri="u" prefix="q" localName="date">05-03-2024</item:extension> -->`,
	`<!-- <item:extension index=1 uri="u" prefix="p:q" localName="a b">v</item:extension> -->`,
	`<!-- <item:description index=99999999999999999999>x</item:description> -->`,
	`<!-- <item:description index=-0>x</item:description> --><!-- <item:description index=+0>y</item:description> -->`,
	`<script><!-- <item:title index=1> --></script><!-- <item:title index=2>x</item:title> -->`,
	`<title>a<!-- <item:title index=1>x</item:title> --></title>`,
	`<textarea>`,
	`<script>`,
	`<meta charset="utf-16"><!-- <item:title index=1>é</item:title> -->`,
	"\xfe\xff\x00<",
	"\xff\xfe<\x00!\x00-\x00",
	"\xef\xbb\xbf<!-- <item:title index=1>x</item:title> -->",
	"<!-- <item:title index=1>\xff\xfe\xfd</item:title> -->",
	"<!-- <ITEM:TITLE\n\tINDEX\n=\n\"1\"\n>x</item:TITLE\n> -->",
	`<!-- <channel:title> --><!-- <channel:link> --><!-- <channel:description> --><!-- </channel:title> -->`,
	`<!-- <item:title index=1> -->a<!-- <item:link index=1> -->b<!-- </item:title> -->c<!-- </item:link> -->`,
	strings.Repeat(`<!-- <item:title index=1> -->`, 50),
	strings.Repeat(`<!-- </item:description> -->`, 50),
	strings.Repeat(`<!-- <item:title>t</item:title> -->`, 50),
	`<!-- <item:title index=1>t</item:title> --><!-- <item:enclosure index=1 type="audio/mpeg; x=&quot;y&quot;" length=" 9"> --><a href=" a b.mp3">x</a><!-- </item:enclosure> --><!-- <item:enclosure url=e.ogg/> -->`,
}

func FuzzWrap(f *testing.F) {
	for _, p := range examples.List {
		page, err := examples.Read(p.File)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(page, p.ContentType)
	}
	for _, s := range nastyFragments {
		f.Add([]byte(s), "")
	}
	f.Add([]byte("caf\xe9"), "text/html; charset=shift_jis")
	f.Fuzz(func(t *testing.T, page []byte, contentType string) {
		r := wrapper.Wrap(page, wrapper.Options{URL: "http://example.com/dir/page.html?q=1", RSSID: "fuzz", ContentType: contentType, Now: testNow})
		checkInvariants(t, r)
		// HasAnnotations decides whether a page is wrapped at all: it must
		// see every page in which Wrap finds annotations. (It reads the
		// bytes undecoded, which is only the same text for charsets that
		// keep ASCII bytes for ASCII characters.)
		if len(r.Annotations) > 0 && !notASCIICompatible[r.Charset] && !wrapper.HasAnnotations(page) {
			t.Fatalf("Wrap finds %d annotations, HasAnnotations none", len(r.Annotations))
		}
	})
}

// notASCIICompatible are the charsets in which a byte below 0x80 is not
// always that ASCII character.
var notASCIICompatible = map[string]bool{"utf-16le": true, "utf-16be": true, "iso-2022-jp": true, "replacement": true}

// The nasty fragments' results are valid XMLData by xmllint, not only by
// the cheap in-process checks the fuzzer makes.
func TestNastyFragmentsAreSchemaValid(t *testing.T) {
	for _, s := range nastyFragments {
		r := wrapper.Wrap([]byte(s), wrapper.Options{URL: "http://example.com/dir/page.html?q=1", RSSID: "fuzz", Now: testNow})
		checkInvariants(t, r)
		verify.XMLData(t, r.Resource.XML())
	}
}

// Pathological pages are handled in about linear time: each of these would
// take hours if some step were quadratic in the page, and takes
// milliseconds. (Timing is not asserted; the figures are in
// docs/benchmarks/wrapper.md.)
func TestPathologicalPages(t *testing.T) {
	const n = 100_000
	pages := map[string]string{
		"unclosed comments":             strings.Repeat("<!--", n),
		"unclosed annotation comments":  strings.Repeat("<!-- <item:title index=1>", n),
		"unclosed comments, no '>'":     strings.Repeat("<!-- <item:title index=1", n),
		"nested annotations":            strings.Repeat("<!-- <item:description index=1> -->x", n) + strings.Repeat("<!-- </item:description> -->", n),
		"nested different annotations":  strings.Repeat("<!-- <channel:title> --><!-- <channel:link> --><!-- <channel:description> -->", n/3),
		"closing tags without openings": strings.Repeat("<!-- </item:title> -->", n),
		"one huge comment":              "<!--" + strings.Repeat("<item:x ", n) + "-->",
		"one huge annotation comment":   "<!-- <item:title index=1>" + strings.Repeat("<a", n) + "</item:title> -->",
		"many attributes":               "<!-- <item:title " + strings.Repeat(`index="1" `, n) + "> -->",
		"unclosed quotes":               strings.Repeat(`<!-- <item:title index="1> -->`, n),
		"unclosed scripts":              strings.Repeat("<script>", n),
		"scripts full of comments":      "<script>" + strings.Repeat("<!-- <item:title index=1>", n) + "</script>",
		"many end tags in a script":     "<script>" + strings.Repeat("</scrip", n) + "</script>",
		"many items":                    strings.Repeat("<!-- <item:title>t</item:title> -->", n/2),
		"many tags":                     strings.Repeat("<p><b><script></script><title>x</title><base href=x><meta name=description content=x>", n/10),
		"one huge link":                 "<!-- <item:link index=1> -->" + strings.Repeat("<a ", n) + "<!-- </item:link> -->",
		"one huge description":          "<!-- <item:description index=1> -->" + strings.Repeat("<p>word ", n) + "<!-- </item:description> -->",
		"huge date":                     "<!-- <item:extension index=1 uri=u prefix=p localName=date>" + strings.Repeat("December 8 ", n) + "</item:extension> -->",
		"misspelt prefixes":             strings.Repeat("<!-- <chanel:title> -->", n),
		"long names":                    "<!-- <" + strings.Repeat("channel", n) + ":title> -->",
	}
	for name, page := range pages {
		start := time.Now()
		r := wrapper.Wrap([]byte(page), wrapper.Options{URL: pageURL, Now: testNow})
		checkInvariants(t, r)
		t.Logf("%-30s %8d bytes  %6d items  %4d warnings  %v", name, len(page), len(r.Resource.Items), len(r.Warnings), time.Since(start).Round(time.Millisecond))
	}
}
