package nativefeed

import (
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
)

// A podcast feed in: every enclosure with its type and length, the iTunes
// fields worth keeping, the update time; and out again in every format, the
// same episodes with the same files, as feedparser and gofeed read them
// (roundTrip).
func TestPodcastInAndOut(t *testing.T) {
	res := parse(t, read(t, "podcast.xml"), "application/rss+xml")
	items := res.Resource.Items
	if len(items) != 3 {
		t.Fatalf("%d items", len(items))
	}
	wantEnc := [][]dynamo.Enclosure{
		{{URL: "https://cdn.podcast.example.org/3.mp3", Type: "audio/mpeg", Length: 24986239}},
		{{URL: "https://podcast.example.org/media/2.m4a", Type: "audio/x-m4a"},
			{URL: "https://cdn.podcast.example.org/2-transcript.pdf", Type: "application/pdf", Length: 48213}},
		{{URL: "https://cdn.podcast.example.org/1.mp3", Type: "audio/mpeg", Length: 1000}},
	}
	for i, it := range items {
		if len(it.Enclosures) != len(wantEnc[i]) {
			t.Errorf("item %d: enclosures %+v, want %+v", i+1, it.Enclosures, wantEnc[i])
			continue
		}
		for j := range wantEnc[i] {
			if it.Enclosures[j] != wantEnc[i][j] {
				t.Errorf("item %d enclosure %d: %+v, want %+v", i+1, j+1, it.Enclosures[j], wantEnc[i][j])
			}
		}
	}
	for _, c := range []struct {
		item        int
		local, want string
	}{{0, "duration", "52:03"}, {0, "episode", "3"}, {0, "season", "1"}, {0, "explicit", "false"}, {1, "duration", "3120"}, {1, "explicit", ""}} {
		got := ext(items[c.item].Extensions, "itunes", c.local)
		if (c.want == "" && len(got) != 0) || (c.want != "" && (len(got) != 1 || got[0] != c.want)) {
			t.Errorf("item %d itunes:%s = %v, want %q", c.item+1, c.local, got, c.want)
		}
	}
	if img := items[0].Image; img == nil || img.URL != "https://podcast.example.org/3.jpg" {
		t.Errorf("episode image %+v", img)
	}
	if got := items[2].Updated.UTC().Format(time.RFC3339); got != "2026-11-03T08:00:00Z" {
		t.Errorf("updated %s", got)
	}
	wantWarnings(t, res.Warnings, `item 2: the enclosure's length "not known" is not a size in bytes; left out`)
	verify.XMLData(t, res.Resource.XML())

	roundTrip(t, res.Resource)
}
