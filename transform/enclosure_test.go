package transform_test

import (
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/transform"
)

// podcastResource has episodes with enclosures (typed and sized, bare, and
// several on one item), an updated time, iTunes fields, and an episode
// stored before enclosures were XMLData elements (dynamo:enclosure and
// dcterms:modified extensions).
func podcastResource() *dynamo.Resource {
	itunes := func(local, value string) dynamo.Extension {
		return dynamo.Extension{URI: "http://www.itunes.com/dtds/podcast-1.0.dtd", Prefix: "itunes", LocalName: local, Value: value}
	}
	return &dynamo.Resource{
		URL: "https://pod.example.com/feed.xml", RSSID: "pod",
		Timestamp: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
		Channel:   dynamo.Channel{Title: "A Podcast", Link: "https://pod.example.com/", Description: "Talk"},
		Items: []dynamo.Item{
			{
				Index: 1, ID: "e1", Title: "Episode 1", Link: "https://pod.example.com/1", Description: "<p>One</p>",
				Enclosures: []dynamo.Enclosure{{URL: "https://cdn.example.com/1.mp3", Type: "audio/mpeg", Length: 12345678}},
				Updated:    time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC),
				Extensions: []dynamo.Extension{dc("date", "2026-02-01T00:00:00Z"), itunes("duration", "1:02:03"),
					itunes("episode", "1"), itunes("explicit", "false")},
			},
			{
				Index: 2, ID: "e2", Title: "Episode 2", Link: "https://pod.example.com/2", Description: "<p>Two</p>",
				Enclosures: []dynamo.Enclosure{{URL: "media/2.ogg"}, {URL: "https://cdn.example.com/2.pdf", Type: "application/pdf", Length: 99}},
				Extensions: []dynamo.Extension{dc("date", "2026-02-08T00:00:00Z")},
			},
			{
				Index: 3, ID: "e3", Title: "Episode 3 (stored long ago)", Link: "https://pod.example.com/3", Description: "<p>Three</p>",
				Extensions: []dynamo.Extension{dc("date", "2026-02-15T00:00:00Z"),
					{URI: dynamo.NamespaceDynamo, Prefix: "dynamo", LocalName: "enclosure", Value: "https://cdn.example.com/3.mp3"},
					{URI: dynamo.NamespaceDCTerms, Prefix: "dcterms", LocalName: "modified", Value: "2026-02-16T12:00:00+01:00"}},
			},
		},
	}
}

// Every format carries every enclosure the way its readers expect, read
// back by feedparser (RSS 1.0, RSS 2.0, Atom) and gofeed (JSON Feed), and
// the updated time as the format's own.
func TestEnclosuresInEveryFormat(t *testing.T) {
	type enc struct{ href, typ, length string }
	want := [][]enc{
		{{"https://cdn.example.com/1.mp3", "audio/mpeg", "12345678"}},
		{{"https://pod.example.com/media/2.ogg", "", ""}, {"https://cdn.example.com/2.pdf", "application/pdf", "99"}},
		{{"https://cdn.example.com/3.mp3", "", ""}},
	}
	wantUpdated := []string{"2026-02-03T04:05:06Z", "", "2026-02-16T11:00:00Z"}
	for _, f := range []transform.Format{transform.RSS1, transform.RSS2, transform.Atom, transform.JSON} {
		t.Run(string(f), func(t *testing.T) {
			got := readBack(t, render(t, podcastResource(), f, transform.SelfURL(selfURL)), f)
			for i, e := range got.Entries {
				if len(e.Enclosures) != len(want[i]) {
					t.Errorf("entry %d: enclosures %+v, want %+v", i, e.Enclosures, want[i])
					continue
				}
				for j, w := range want[i] {
					g := e.Enclosures[j]
					typ, length := w.typ, w.length
					if typ == "" { // always written: required, or read as text/html when absent
						typ = "application/octet-stream"
					}
					if f == transform.RSS2 && j == 0 && length == "" { // required
						length = "0"
					}
					if g.Href != w.href || g.Type != typ || g.Length != length {
						t.Errorf("entry %d enclosure %d: %+v, want %s %q %q", i, j, g, w.href, typ, length)
					}
				}
				if wantUpdated[i] == "" && f != transform.JSON {
					continue // atom:updated falls back to the date; feedparser reads the date as updated
				}
				if e.Updated != wantUpdated[i] {
					t.Errorf("entry %d: updated %q, want %q", i, e.Updated, wantUpdated[i])
				}
			}
		})
	}
}

// No format repeats an enclosure or an updated time as an extension.
func TestEnclosureNotRepeated(t *testing.T) {
	for _, f := range []transform.Format{transform.RSS1, transform.RSS2, transform.Atom, transform.JSON} {
		doc := string(render(t, podcastResource(), f))
		for _, dup := range []string{"dynamo:enclosure", `"localName": "enclosure"`, `"localName": "modified"`} {
			if contains(doc, dup) {
				t.Errorf("%s repeats %s", f, dup)
			}
		}
		if n := count(doc, "2026-02-16T11:00:00Z") + count(doc, "2026-02-16T12:00:00+01:00"); f != transform.XMLData && n != 1 {
			t.Errorf("%s writes the updated time %d times, want once", f, n)
		}
	}
}

func contains(s, sub string) bool { return count(s, sub) > 0 }

func count(s, sub string) int {
	n := 0
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			n++
		}
	}
	return n
}
