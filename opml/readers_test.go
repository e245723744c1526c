package opml_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/opml"
)

// minifluxExport is an export in Miniflux's format (its OPML serializer:
// flat categories as folder outlines without a type, feeds with title,
// text, type rss, and its settings in the miniflux: namespace).
const minifluxExport = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0" xmlns:miniflux="https://miniflux.app/opml">
  <head>
    <title>Miniflux</title>
    <dateCreated>Mon, 23 Nov 2026 10:00:00 UTC</dateCreated>
  </head>
  <body>
    <outline text="News/Local">
      <outline title="Town Crier" text="Town Crier" type="rss" xmlUrl="https://crier.example/feed" htmlUrl="https://crier.example/" miniflux:disabled="true" miniflux:crawler="true"></outline>
    </outline>
    <outline text="Tech">
      <outline title="The Go Blog" text="The Go Blog" type="rss" xmlUrl="https://go.dev/blog/feed.atom" htmlUrl="https://go.dev/blog/"></outline>
    </outline>
  </body>
</opml>`

// freshRSSExport is an export in FreshRSS's format (its opml export view:
// a folder outline per category, feeds with text, type rss, xmlUrl, htmlUrl
// and description).
const freshRSSExport = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
	<head>
		<title>FreshRSS</title>
		<dateCreated>Mon, 23 Nov 2026 10:00:00 +0000</dateCreated>
	</head>
	<body>
		<outline text="Sport/Foot">
			<outline text="Le blog du foot" type="rss" xmlUrl="https://foot.example/rss" htmlUrl="https://foot.example/" description="Foot"/>
		</outline>
		<outline text="Uncategorized">
			<outline text="Misc" type="rss" xmlUrl="https://misc.example/atom" htmlUrl="https://misc.example/" description=""/>
		</outline>
	</body>
</opml>`

// Files of Miniflux and FreshRSS in, Dynamo's export out, and back: a
// category with "/" stays one category, Miniflux's disabled feed is a paused
// source and is written back as disabled.
func TestReadersRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []opml.Entry
	}{
		{"miniflux", minifluxExport, []opml.Entry{
			{Title: "Town Crier", XMLURL: "https://crier.example/feed", HTMLURL: "https://crier.example/", Category: "News/Local", Disabled: true},
			{Title: "The Go Blog", XMLURL: "https://go.dev/blog/feed.atom", HTMLURL: "https://go.dev/blog/", Category: "Tech"},
		}},
		{"freshrss", freshRSSExport, []opml.Entry{
			{Title: "Le blog du foot", XMLURL: "https://foot.example/rss", HTMLURL: "https://foot.example/", Category: "Sport/Foot"},
			{Title: "Misc", XMLURL: "https://misc.example/atom", HTMLURL: "https://misc.example/", Category: "Uncategorized"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries, err := opml.Parse(strings.NewReader(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(entries, tc.want) {
				t.Errorf("parsed\n%#v\nwant\n%#v", entries, tc.want)
			}
			var sources []dynamo.Source
			for _, e := range entries {
				src, _, err := opml.EntrySource(e)
				if err != nil {
					t.Fatal(err)
				}
				if src.Paused != e.Disabled {
					t.Errorf("%s: paused %v, want %v", e.Title, src.Paused, e.Disabled)
				}
				src.Summary.Title = e.Title
				sources = append(sources, *src)
			}
			var out bytes.Buffer
			if err := opml.WriteSources(&out, sources, "https://dynamo.example"); err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.want {
				// One folder named by the whole category: not nested.
				if !strings.Contains(out.String(), `<outline text="`+e.Category+`" title="`+e.Category+`">`) {
					t.Errorf("export has no folder %q:\n%s", e.Category, out.String())
				}
			}
			back, err := opml.Parse(&out)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range back {
				src, _, err := opml.EntrySource(e)
				if err != nil {
					t.Fatal(err)
				}
				if e.Category != tc.want[i].Category || e.Title != tc.want[i].Title || src.Paused != tc.want[i].Disabled || e.Disabled != tc.want[i].Disabled {
					t.Errorf("back %d: %+v (paused %v), want %+v", i, e, src.Paused, tc.want[i])
				}
			}
		})
	}
}
