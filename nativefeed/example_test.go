package nativefeed_test

import (
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo/nativefeed"
)

func ExampleParse() {
	feed := `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel>
  <title>Caf&eacute; News</title><link>https://cafe.example/</link><ttl>60</ttl>
  <item>
    <title>Opening hours & prices</title>
    <link>/news/hours</link>
    <pubDate>Sun, 22 Nov 2026 09:00:00 +0100</pubDate>
    <description><![CDATA[<p>Open <b>daily</b>. <script>track()</script><a href="menu">Menu</a></p>]]></description>
  </item>
</channel></rss>`
	res, err := nativefeed.Parse([]byte(feed), "application/rss+xml", nativefeed.Options{
		URL: "https://cafe.example/feed.xml", RSSID: "cafe", Now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	it := res.Resource.Items[0]
	fmt.Println(res.Format, res.TTL, res.Resource.Channel.Title)
	fmt.Println(it.Title, it.Link)
	fmt.Println(it.Description)
	fmt.Println(it.Extensions[0].Prefix+":"+it.Extensions[0].LocalName, it.Extensions[0].Value)
	for _, w := range res.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// rss2.0 1h0m0s Café News
	// Opening hours & prices https://cafe.example/news/hours
	// <p>Open <b>daily</b>. <a href="https://cafe.example/news/menu">Menu</a></p>
	// dc:date 2026-11-22T09:00:00+01:00
	// warning: HTML entities that XML does not define (such as &nbsp;), read as characters: 1
	// warning: bare ampersands, read as a literal '&': 1
}
