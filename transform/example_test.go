package transform_test

import (
	"fmt"
	"os"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/transform"
)

func ExampleRender() {
	r := &dynamo.Resource{
		URL:       "https://example.com/news.html",
		RSSID:     "news",
		Timestamp: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Channel: dynamo.Channel{
			Title:       "Example News",
			Link:        "https://example.com/",
			Description: "All the news",
			Extensions:  []dynamo.Extension{{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "language", Value: "en"}},
		},
		Items: []dynamo.Item{{
			Index: 1, ID: "a1", Title: "Hello", Link: "https://example.com/hello",
			Description: "<p>Hello <b>world</b></p>",
			Extensions: []dynamo.Extension{
				{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "creator", Value: "Alice"},
				{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "date", Value: "2026-02-28T09:30:00Z"},
			},
		}},
	}
	format, err := transform.ParseFormat("rss2")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("Content-Type:", format.ContentType())
	if err := transform.Render(os.Stdout, r, format, transform.SelfURL("https://dynamo.example.org/resources/news")); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Content-Type: application/rss+xml; charset=utf-8
	// <?xml version="1.0" encoding="UTF-8"?>
	// <rss xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0">
	//   <channel>
	//     <title>Example News</title>
	//     <link>https://example.com/</link>
	//     <description>All the news</description>
	//     <language>en</language>
	//     <lastBuildDate>Sun, 01 Mar 2026 12:00:00 +0000</lastBuildDate>
	//     <atom:link rel="self" type="application/rss+xml" href="https://dynamo.example.org/resources/news"/>
	//     <item>
	//       <title>Hello</title>
	//       <link>https://example.com/hello</link>
	//       <description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt;&lt;/p&gt;</description>
	//       <guid isPermaLink="false">urn:uuid:a2ef6ffe-b9d6-586e-a0b7-5122a3ec370a</guid>
	//       <pubDate>Sat, 28 Feb 2026 09:30:00 +0000</pubDate>
	//       <dc:creator>Alice</dc:creator>
	//     </item>
	//   </channel>
	// </rss>
}

func ExampleParseFormat() {
	for _, name := range []string{"", "Atom", "rss3"} {
		f, err := transform.ParseFormat(name)
		fmt.Printf("%q → %q %v\n", name, f, err)
	}
	// Output:
	// "" → "rss2" <nil>
	// "Atom" → "atom" <nil>
	// "rss3" → "" invalid: unknown feed type "rss3": want one of xmldata, rss1, rss2, atom, json
}
