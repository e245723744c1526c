package opml_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
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

// minifluxExport22 is an export of Miniflux 2.2 (its serializer's
// MarshalXML: the type after the miniflux: settings, descriptions, the
// default category "All").
const minifluxExport22 = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0" xmlns:miniflux="https://miniflux.app/opml">
    <head>
        <title>Miniflux</title>
        <dateCreated>Tue, 11 Aug 2026 13:11:17 CEST</dateCreated>
    </head>
    <body>
        <outline text="All">
            <outline title="Renamed by me" text="Renamed by me" xmlUrl="https://podcast.example/feed.xml" htmlUrl="https://podcast.example/" description="A podcast" miniflux:scraperRules="article" miniflux:ignoreEntryUpdates="true" type="rss"></outline>
        </outline>
        <outline text="Work &amp; Play">
            <outline title="Status" text="Status" xmlUrl="https://status.example/history.atom" htmlUrl="https://status.example/" miniflux:disabled="true" type="rss"></outline>
        </outline>
    </body>
</opml>`

// freshRSSExport124 is an export of FreshRSS 1.24 (app/views/helpers/
// export/opml.phtml: the frss namespace declared, categories with a text
// only, a dynamic OPML category's frss:opmlUrl, frss: settings on feeds).
const freshRSSExport124 = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0" xmlns:frss="https://freshrss.org/opml">
  <head>
    <title>FreshRSS</title>
    <dateCreated>Thu, 24 Oct 2024 22:34:29 +0200</dateCreated>
  </head>
  <body>
    <outline text="Blogs" frss:opmlUrl="https://blogroll.example/list.opml">
      <outline text="A blog" type="rss" xmlUrl="https://blog.example/feed/" htmlUrl="https://blog.example/" description="Notes" frss:cssFullContent="article .content"/>
    </outline>
    <outline text="Uncategorized">
      <outline text="Café" type="rss" xmlUrl="https://cafe.example/rss" htmlUrl="https://cafe.example/"/>
    </outline>
  </body>
</opml>`

// Files of Miniflux and FreshRSS in, Dynamo's export out, and back: a
// category with "/" stays one category, a user's title stays the feed's,
// Miniflux's disabled feed is a paused source and is written back as
// disabled.
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
		{"miniflux 2.2", minifluxExport22, []opml.Entry{
			{Title: "Renamed by me", XMLURL: "https://podcast.example/feed.xml", HTMLURL: "https://podcast.example/", Category: "All"},
			{Title: "Status", XMLURL: "https://status.example/history.atom", HTMLURL: "https://status.example/", Category: "Work & Play", Disabled: true},
		}},
		{"freshrss 1.24", freshRSSExport124, []opml.Entry{
			{Title: "A blog", XMLURL: "https://blog.example/feed/", HTMLURL: "https://blog.example/", Category: "Blogs",
				FreshRSS: map[string]string{"cssFullContent": "article .content"}},
			{Title: "Café", XMLURL: "https://cafe.example/rss", HTMLURL: "https://cafe.example/", Category: "Uncategorized"},
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
				if src.Title != e.Title {
					t.Errorf("%s: title %q, want the outline's", e.Title, src.Title)
				}
				// Polled since: the feed's own title is known, and the
				// user's is still the one exported.
				src.Summary.Title = "The feed's own title"
				sources = append(sources, *src)
			}
			var out bytes.Buffer
			if err := opml.WriteSources(&out, sources, "https://dynamo.example"); err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.want {
				// One folder named by the whole category, with its type: not nested.
				var c bytes.Buffer
				_ = xml.EscapeText(&c, []byte(e.Category))
				if !strings.Contains(out.String(), `<outline type="category" text="`+c.String()+`" title="`+c.String()+`">`) {
					t.Errorf("export has no folder %q:\n%s", e.Category, out.String())
				}
			}
			// What Miniflux and FreshRSS read of the export: every feed, in
			// its category, under its title.
			tree := outlineTree(t, out.Bytes())
			for reader, read := range map[string]func([]outline) []subscription{"miniflux": minifluxRead, "freshrss": freshRSSRead} {
				got := read(tree)
				if len(got) != len(tc.want) {
					t.Fatalf("%s reads %d feeds of the export, want %d: %+v", reader, len(got), len(tc.want), got)
				}
				for i, w := range tc.want {
					if got[i].title != w.Title || got[i].category != w.Category || !strings.HasPrefix(got[i].xmlURL, "https://dynamo.example/resources/") {
						t.Errorf("%s reads feed %d as %+v, want %q in %q", reader, i, got[i], w.Title, w.Category)
					}
				}
			}
			if err := freshRSSStrict(tree); err != nil {
				t.Errorf("FreshRSS's OPML library, strict, refuses the export: %v", err)
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

// outline is an OPML outline as the readers below see it: its attributes
// without namespace, by name, and its children.
type outline struct {
	Attrs    []xml.Attr `xml:",any,attr"`
	Outlines []outline  `xml:"outline"`
}

func (o outline) attr(name string) string {
	for _, a := range o.Attrs {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// outlineTree decodes an OPML document's body.
func outlineTree(t *testing.T, doc []byte) []outline {
	t.Helper()
	var d struct {
		Body []outline `xml:"body>outline"`
	}
	if err := xml.Unmarshal(doc, &d); err != nil {
		t.Fatalf("export does not decode: %v", err)
	}
	return d.Body
}

// subscription is a feed as a reader imports it.
type subscription struct{ title, xmlURL, category string }

// minifluxRead follows Miniflux's OPML parser (internal/reader/opml): an
// outline with a non-blank xmlUrl is a subscription, titled by its title,
// else its text; any other outline with children is a category, named the
// same way, whatever its type.
func minifluxRead(outlines []outline) []subscription {
	var out []subscription
	var walk func([]outline, string)
	walk = func(os []outline, category string) {
		for _, o := range os {
			name := o.attr("title")
			if name == "" {
				name = o.attr("text")
			}
			switch {
			case strings.TrimSpace(o.attr("xmlUrl")) != "":
				out = append(out, subscription{name, o.attr("xmlUrl"), category})
			case len(o.Outlines) > 0:
				walk(o.Outlines, name)
			}
		}
	}
	walk(outlines, "")
	return out
}

// freshRSSRead follows FreshRSS's ImportService: an outline with children
// is a category named by its text, else its title; an outline with an
// xmlUrl is a feed named by its text, else its title; the type of a
// category is not read.
func freshRSSRead(outlines []outline) []subscription {
	var out []subscription
	var walk func([]outline, string)
	walk = func(os []outline, category string) {
		for _, o := range os {
			name := o.attr("text")
			if name == "" {
				name = o.attr("title")
			}
			if len(o.Outlines) > 0 {
				walk(o.Outlines, name)
			}
			if o.attr("xmlUrl") != "" {
				out = append(out, subscription{name, o.attr("xmlUrl"), category})
			}
		}
	}
	walk(outlines, "")
	return out
}

// freshRSSStrict checks what FreshRSS's OPML library (lib_opml) requires of
// an outline's type when strict: type rss needs an xmlUrl, link and include
// a url; every outline needs a text.
func freshRSSStrict(outlines []outline) error {
	for _, o := range outlines {
		switch typ := strings.ToLower(o.attr("type")); {
		case typ == "rss" && o.attr("xmlUrl") == "":
			return fmt.Errorf("outline %q: type rss without xmlUrl", o.attr("text"))
		case (typ == "link" || typ == "include") && o.attr("url") == "":
			return fmt.Errorf("outline %q: type %s without url", o.attr("text"), typ)
		case o.attr("text") == "":
			return fmt.Errorf("an outline without text")
		}
		if err := freshRSSStrict(o.Outlines); err != nil {
			return err
		}
	}
	return nil
}
