package nativefeed

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
)

// rss50 is a 50-item RSS 2.0 feed shaped like a news site's: guids, dates,
// categories, HTML descriptions with links and images.
func rss50() []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>` +
		`<title>Bench News</title><link>https://bench.example.com/</link><description>Fifty items</description><ttl>15</ttl>`)
	for i := range 50 {
		fmt.Fprintf(&b, `<item><title>Story number %d: something happened &amp; more</title>`+
			`<link>https://bench.example.com/story/%d</link><guid>https://bench.example.com/story/%d</guid>`+
			`<pubDate>Sun, 22 Nov 2026 %02d:%02d:00 +0000</pubDate><category>News</category><dc:creator>Reporter %d</dc:creator>`+
			`<description><![CDATA[<p>Paragraph one of story %d with <a href="/related/%d">a related link</a> and <img src="/img/%d.jpg" alt="photo">.</p>`+
			`<p>Paragraph two has <b>bold</b> and <i>italic</i> text, about forty words long, as summaries in real feeds tend to be, give or take.</p>]]></description></item>`,
			i, i, i, i%24, i%60, i%7, i, i, i)
	}
	b.WriteString(`</channel></rss>`)
	return b.Bytes()
}

// BenchmarkParse compares Parse (repairs, gofeed, normalization, HTML
// sanitizing) with gofeed's own universal parser on the same feed, the
// baseline of what any feed reading costs. Each iteration runs both,
// interleaved, so that the ratio holds on a machine whose load varies.
func BenchmarkParse(b *testing.B) {
	feed := rss50()
	p := gofeed.NewParser()
	opts := Options{URL: "https://bench.example.com/feed", RSSID: "b", Now: now}
	var ours, baseline time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := Parse(feed, "application/rss+xml", opts); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := p.Parse(bytes.NewReader(feed)); err != nil {
			b.Fatal(err)
		}
		ours, baseline = ours+mid.Sub(start), baseline+time.Since(mid)
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N), "nativefeed-µs/op")
	b.ReportMetric(float64(baseline.Microseconds())/float64(b.N), "gofeed-µs/op")
	b.ReportMetric(ours.Seconds()/baseline.Seconds(), "time-ratio")
	b.ReportMetric(float64(len(feed)), "feed-bytes")
}
