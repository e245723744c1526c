package wrapper_test

import (
	"bytes"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// An annotated page's item:enclosure reaches every format as its readers
// expect it: read back by feedparser (RSS 1.0, RSS 2.0, Atom:
// entries[i].enclosures href, type, length) and by JSON Feed's rules
// (attachments url, mime_type, size_in_bytes).
func TestItemEnclosureInEveryFormat(t *testing.T) {
	page := `<html><head><title>Podcast</title></head><body>
<!-- <item:title index="1"> -->Episode 1<!-- </item:title> -->
<!-- <item:link index="1"> --><a href="episodes/1.html">notes</a><!-- </item:link> -->
<!-- <item:enclosure index="1" type="audio/mpeg" length="12345678"> --><a href="media/ep1.mp3">Listen</a><!-- </item:enclosure> -->
<!-- <item:title index="2"> -->Episode 2<!-- </item:title> -->
<!-- <item:description index="2"> --><p>Two files.</p><!-- </item:description> -->
<!-- <item:enclosure index="2" url="https://cdn.example.org/ep2.ogg" type="audio/ogg" length="4096"/> -->
<!-- <item:enclosure index="2" url="ep2.pdf" type="application/pdf" length="99"/> -->
</body></html>`
	r := wrapper.Wrap([]byte(page), wrapper.Options{URL: "https://pod.example.org/index.html", RSSID: "pod", Now: testNow})
	if len(r.Warnings) != 0 {
		t.Fatalf("warnings: %+v", r.Warnings)
	}
	type enc struct{ href, typ, length string }
	want := [][]enc{
		{{"https://pod.example.org/media/ep1.mp3", "audio/mpeg", "12345678"}},
		{{"https://cdn.example.org/ep2.ogg", "audio/ogg", "4096"}, {"https://pod.example.org/ep2.pdf", "application/pdf", "99"}},
	}
	for _, tc := range []struct {
		format  transform.Format
		version string
	}{{transform.RSS1, "rss10"}, {transform.RSS2, "rss20"}, {transform.Atom, "atom10"}, {transform.JSON, ""}} {
		t.Run(string(tc.format), func(t *testing.T) {
			var doc bytes.Buffer
			if err := transform.Render(&doc, r.Resource, tc.format, transform.SelfURL("https://dynamo.example/resources/pod?type="+string(tc.format))); err != nil {
				t.Fatal(err)
			}
			var got verify.Parsed
			if tc.format == transform.JSON {
				got = verify.JSONFeed(t, doc.Bytes())
			} else {
				got = verify.Feed(t, doc.Bytes(), tc.version)
			}
			if len(got.Entries) != len(want) {
				t.Fatalf("%d entries, want %d", len(got.Entries), len(want))
			}
			for i, w := range want {
				e := got.Entries[i].Enclosures
				if len(e) != len(w) {
					t.Errorf("entry %d: enclosures %+v, want %+v", i, e, w)
					continue
				}
				for j := range w {
					if e[j].Href != w[j].href || e[j].Type != w[j].typ || e[j].Length != w[j].length {
						t.Errorf("entry %d enclosure %d: %+v, want %+v", i, j, e[j], w[j])
					}
				}
			}
		})
	}
}
