package transform_test

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/gorilla/feeds"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/sanitize"
	"github.com/dynamo-feeds/dynamo/transform"
)

// BenchmarkRender measures each format on a 50-item page (benchResource),
// beside baselines in the same run: copying the finished RSS 2.0 bytes
// into a reused buffer (the floor: what any renderer must at least write), and gorilla/feeds
// rendering the same items (without extensions, images or cleaning) as
// RSS 2.0, Atom and JSON Feed, which is what using it directly would cost.
func BenchmarkRender(b *testing.B) {
	r := benchResource()
	for _, f := range transform.Formats() {
		b.Run(string(f), func(b *testing.B) { benchmarkFormat(b, r, f) })
	}
	// RSS 1.0 writes plain-text descriptions: derived from the HTML above,
	// or taken from Item.Text, which the wrapper sets and storage keeps.
	withText := benchResource()
	for i := range withText.Items {
		withText.Items[i].Text = sanitize.Text(withText.Items[i].Description)
	}
	b.Run("rss1-with-item-text", func(b *testing.B) { benchmarkFormat(b, withText, transform.RSS1) })

	b.Run("baseline-copy-rss2", func(b *testing.B) {
		doc := render(b, r, transform.RSS2)
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			buf.Write(doc)
		}
		b.ReportMetric(float64(len(doc)), "bytes/doc")
	})
	gf := gorillaFeed(r)
	gorilla := map[string]func(io.Writer) error{
		"baseline-gorilla-rss2": gf.WriteRss,
		"baseline-gorilla-atom": gf.WriteAtom,
		"baseline-gorilla-json": gf.WriteJSON,
	}
	for _, name := range []string{"baseline-gorilla-rss2", "baseline-gorilla-atom", "baseline-gorilla-json"} {
		write := gorilla[name]
		b.Run(name, func(b *testing.B) {
			var buf bytes.Buffer
			if err := write(&buf); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if err := write(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "bytes/doc")
		})
	}
}

func benchmarkFormat(b *testing.B, r *dynamo.Resource, f transform.Format) {
	size := len(render(b, r, f))
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if err := transform.Render(io.Discard, r, f); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size), "bytes/doc") // after the loop, whose start deletes reported metrics
}

// gorillaFeed converts r to gorilla/feeds' model as directly as it allows.
func gorillaFeed(r *dynamo.Resource) *feeds.Feed {
	f := &feeds.Feed{
		Title:       r.Channel.Title,
		Link:        &feeds.Link{Href: r.Channel.Link},
		Description: r.Channel.Description,
		Id:          r.Channel.Link,
		Updated:     r.Timestamp,
	}
	for i := range r.Items {
		it := &r.Items[i]
		date, _ := it.Date()
		f.Items = append(f.Items, &feeds.Item{
			Title:       it.Title,
			Link:        &feeds.Link{Href: it.Link},
			Description: it.Description,
			Id:          it.ID,
			Created:     date,
			Updated:     time.Time{},
		})
	}
	return f
}
