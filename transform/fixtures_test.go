package transform_test

import (
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

const nsExample = "http://example.com/ns/custom"

func dc(localName, value string) dynamo.Extension {
	return dynamo.Extension{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: localName, Value: value}
}

// richResource uses every XMLData feature: a channel image and extensions,
// items with dates, authors, subjects, pictures, HTML and Unicode, an item
// with a relative link, one without a title or link, and an extension whose
// prefix clashes with Dublin Core's.
func richResource() *dynamo.Resource {
	return &dynamo.Resource{
		URL:       "https://example.com/news/index.html",
		RSSID:     "example-news",
		Timestamp: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
		Channel: dynamo.Channel{
			Title:       "Example News — Ünïcödé 日本語",
			Link:        "https://example.com/news/",
			Description: `<p>Latest <b>news</b> from Example &amp; friends</p>`,
			Image:       &dynamo.Image{URL: "https://example.com/logo.png", Link: "https://example.com/", Title: "Example logo"},
			Extensions: []dynamo.Extension{
				dc("language", "en-US"),
				dc("creator", "Jane Doe"),
				dc("date", "2026-03-01T09:00:00Z"),
				{URI: nsExample, Prefix: "ex", LocalName: "rating", Value: "5 & <up>"},
			},
		},
		Items: []dynamo.Item{
			{
				Index: 1, ID: "8d3f0c1e2b4a59687766554433221100",
				Title:       "First <story> & more",
				Link:        "https://example.com/news/1.html",
				Description: `<p>Hello <a href="https://example.com/x">world</a></p>`,
				Image:       &dynamo.Image{URL: "https://example.com/img/1.jpg", Link: "https://example.com/news/1.html", Title: "One"},
				Extensions: []dynamo.Extension{
					dc("date", "2005-12-08T08:25:00+01:00"),
					dc("creator", "Alice"),
					dc("subject", "Science"),
					dc("subject", "Space"),
					{URI: nsExample, Prefix: "ex", LocalName: "rating", Value: "4"},
				},
			},
			{
				Index: 2, ID: "b2",
				Title:       "Deuxième   histoire\n— été",
				Link:        "2.html?a=1&b=2",
				Description: `Text with ]]> inside and <em>emphasis</em>`,
				Extensions:  []dynamo.Extension{dc("date", "around Christmas")},
			},
			{
				Index: 3, ID: "c3",
				Description: `<p>An item without a title gets the start of its description as one, cut at a word boundary when it is long.</p>`,
				Extensions: []dynamo.Extension{
					{URI: "http://example.com/other", Prefix: "dc", LocalName: "note", Value: "a prefix bound elsewhere"},
				},
			},
		},
	}
}

// minimalResource is what a listing with nothing in it, or a page with no
// annotations, gives: nothing at all.
func minimalResource() *dynamo.Resource { return &dynamo.Resource{} }

// emptyItemsResource has items with nothing in them and no date anywhere.
func emptyItemsResource() *dynamo.Resource {
	return &dynamo.Resource{
		RSSID: "empty",
		Items: []dynamo.Item{{Index: 1, ID: "e1"}, {Index: 2, ID: "e2", Image: &dynamo.Image{}}},
	}
}

// hostileResource holds what a careless or malicious page can put in
// XMLData: markup in titles, "]]>", control characters, invalid UTF-8,
// scripts, unusable links, bad extensions and impossible dates.
func hostileResource() *dynamo.Resource {
	return &dynamo.Resource{
		URL:       "not a url \x00",
		RSSID:     "hostile<&>\"",
		Timestamp: time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC),
		Channel: dynamo.Channel{
			Title:       "<script>alert('t')</script> Bad\x00\x01\x1f\uFFFE\xff\xfe channel ]]>",
			Link:        "javascript:alert(1)",
			Description: "]]><![CDATA[ <script>alert(1)</script>\x0b",
			Image:       &dynamo.Image{URL: "data:image/png;base64,AAAA", Title: "x"},
			Extensions: []dynamo.Extension{
				{URI: "http://www.w3.org/XML/1998/namespace", Prefix: "x", LocalName: "lang", Value: "en"},
				{URI: "http://www.w3.org/2005/Atom", Prefix: "a", LocalName: "title", Value: "second title"},
				{URI: "http://purl.org/rss/1.0/", Prefix: "r", LocalName: "title", Value: "second title"},
				{URI: "urn:x", Prefix: "1bad", LocalName: "x", Value: "invalid prefix"},
				{URI: "urn:x\x00", Prefix: "ok", LocalName: "ctl", Value: "value\x00with\x1bcontrols\xc3"},
				dc("language", "not a language tag!"),
			},
		},
		Items: []dynamo.Item{
			{
				Index: 1, ID: "h1",
				Title:       "<script>alert(\"x\")</script>\x07 & ]]>",
				Link:        "http://exa mple.com/a",
				Description: "<p>]]> and ]]&gt; and <![CDATA[x]]></p>\x00\ufffe",
				Extensions:  []dynamo.Extension{dc("date", "0000-01-01T00:00:00Z")},
			},
			{
				Index: 2, ID: "h2",
				Title:       "Invalid \xff\xfe UTF-8 \xed\xa0\x80 surrogate",
				Link:        "http://bücher.example/ö path?q=a b#frag ment",
				Description: "<p onclick=\"x()\">plain</p>",
				Image:       &dynamo.Image{URL: "javascript:alert(1)"},
				Extensions:  []dynamo.Extension{dc("date", "9999-12-31T23:59:59-05:00")},
			},
			{
				Index: 3, ID: "h3",
				Title:       "Percent %zz and \"quotes\" and 'apostrophes'",
				Link:        "https://example.com/a\"b<c>d%zz",
				Description: strings.Repeat("é", 10),
			},
		},
	}
}

// hugeResource has 1 MB descriptions and a 64 KB title.
func hugeResource() *dynamo.Resource {
	r := &dynamo.Resource{
		URL: "https://example.com/", RSSID: "huge",
		Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Channel:   dynamo.Channel{Title: "Huge", Link: "https://example.com/"},
	}
	for i := 1; i <= 2; i++ {
		r.Items = append(r.Items, dynamo.Item{
			Index: i, ID: strings.Repeat("x", i),
			Title:       strings.Repeat("long title ", 6<<10),
			Link:        "https://example.com/" + strings.Repeat("p", i),
			Description: "<p>" + strings.Repeat("a < b &amp; ]]> ", 1<<16) + "</p>",
		})
	}
	return r
}

// benchResource is a typical rendered page: 50 items with HTML descriptions
// of about 1 KB, dates, authors and a picture.
func benchResource() *dynamo.Resource {
	r := richResource()
	r.Items = nil
	para := "<p>" + strings.Repeat("Some <b>news</b> text &amp; a <a href=\"https://example.com/l\">link</a>. ", 14) + "</p>"
	for i := 1; i <= 50; i++ {
		r.Items = append(r.Items, dynamo.Item{
			Index: i, ID: strings.Repeat("0", 31) + string(rune('a'+i%26)) + string(rune('0'+i%10)),
			Title:       "Item number " + strings.Repeat("x", i%7) + " — news",
			Link:        "https://example.com/news/" + strings.Repeat("n", i%9+1) + ".html",
			Description: para,
			Image:       &dynamo.Image{URL: "https://example.com/img.jpg"},
			Extensions: []dynamo.Extension{
				dc("date", time.Date(2026, 2, i%28+1, i%24, 0, 0, 0, time.UTC).Format(time.RFC3339)),
				dc("creator", "Author"),
			},
		})
	}
	return r
}
