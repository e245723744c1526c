package transform_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/antchfx/xmlquery"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/transform"
)

// The W3C Feed Validation Service warned on Dynamo's feeds for reasons
// each fixed in one rule (docs/TRANSFORM.md, "Validator warnings"); its code
// cannot be part of the project, so these tests assert the rules on every
// fixture.
func TestValidatorRules(t *testing.T) {
	fixtures := map[string]func() *dynamo.Resource{
		"rich": richResource, "podcast": podcastResource, "hostile": hostileResource, "empty items": emptyItemsResource,
	}
	for name, r := range fixtures {
		t.Run(name, func(t *testing.T) {
			rss2doc := render(t, r(), transform.RSS2, transform.SelfURL(selfURL))
			// No item iTunes fields without the channel ones Apple requires
			// (MissingItunesElement).
			if bytes.Contains(rss2doc, []byte("itunes")) {
				t.Errorf("rss2 carries iTunes fields")
			}
			rss2 := parseXML(t, rss2doc)
			for _, item := range xmlquery.Find(rss2, "//item") {
				// No dc: copy of a core element (the validator's duplicate
				// warnings): pubDate, not dc:date; category, not dc:subject.
				if item.SelectElement("pubDate") != nil && item.SelectElement("dc:date") != nil {
					t.Errorf("rss2 item has pubDate and dc:date")
				}
				if item.SelectElement("dc:subject") != nil {
					t.Errorf("rss2 item has dc:subject, not category")
				}
				// One enclosure, with all three required attributes.
				encs := item.SelectElements("enclosure")
				if len(encs) > 1 {
					t.Errorf("rss2 item has %d enclosures", len(encs))
				}
				for _, e := range encs {
					for _, a := range []string{"url", "length", "type"} {
						if e.SelectAttr(a) == "" {
							t.Errorf("rss2 enclosure lacks %s", a)
						}
					}
				}
			}
			ch := xmlquery.FindOne(rss2, "/rss/channel")
			if ch.SelectElement("language") != nil && ch.SelectElement("dc:language") != nil {
				t.Errorf("rss2 channel has language and dc:language")
			}
			if ch.SelectElement("lastBuildDate") != nil && ch.SelectElement("dc:date") != nil {
				t.Errorf("rss2 channel has lastBuildDate and dc:date")
			}
			// The channel description holds no markup, not even an entity
			// (ContainsHTML).
			if d := ch.SelectElement("description").InnerText(); markup.MatchString(d) {
				t.Errorf("rss2 channel description holds HTML: %q", d)
			}
			if img := ch.SelectElement("image"); img != nil && img.SelectElement("title").InnerText() != ch.SelectElement("title").InnerText() {
				t.Errorf("rss2 image title %q is not the channel's", img.SelectElement("title").InnerText())
			}

			atom := parseXML(t, render(t, r(), transform.Atom, transform.SelfURL(selfURL)))
			seen := map[string]bool{}
			for _, e := range xmlquery.Find(atom, "//entry") {
				u := e.SelectElement("updated").InnerText()
				if seen[u] {
					t.Errorf("two atom entries updated %s (DuplicateUpdated)", u)
				}
				seen[u] = true
				if e.SelectElement("content") == nil && e.SelectElement("summary") == nil {
					t.Errorf("atom entry without textual content")
				}
				if e.SelectElement("published") != nil && e.SelectElement("dc:date") != nil {
					t.Errorf("atom entry has published and dc:date")
				}
				for _, l := range e.SelectElements("link") {
					if l.SelectAttr("rel") == "enclosure" && l.SelectAttr("type") == "" {
						t.Errorf("atom enclosure link without type")
					}
				}
			}
		})
	}
}

// Dynamo's own namespace, which feed validators do not know
// (UnknownNamespace), stays out of RSS 1.0, RSS 2.0 and Atom, declaration
// included, while XMLData and JSON Feed keep its elements for programs;
// the standard elements beside them (the aggregate's ag: and dc:) are
// written in every format.
func TestDynamoNamespaceOnlyForPrograms(t *testing.T) {
	r := &dynamo.Resource{URL: "https://example.com/", RSSID: "agg", Channel: dynamo.Channel{Title: "All", Link: "https://example.com/"},
		Items: []dynamo.Item{{Index: 1, ID: "news/a", Title: "A", Link: "https://example.com/a", Description: "<p>A</p>",
			Extensions: []dynamo.Extension{
				{URI: dynamo.NamespaceDynamo, Prefix: "dynamo", LocalName: "source", Value: "news"},
				{URI: dynamo.NamespaceDynamo, Prefix: "dynamo", LocalName: "alsoIn", Value: "echo"},
				{URI: dynamo.NamespaceAggregation, Prefix: "ag", LocalName: "source", Value: "news"},
				{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "relation", Value: "https://dynamo.example/resources/echo"},
			}}}}
	for _, f := range transform.Formats() {
		doc := render(t, r, f, transform.SelfURL(selfURL))
		own := bytes.Contains(doc, []byte(dynamo.NamespaceDynamo+`"`)) || bytes.Contains(doc, []byte("alsoIn"))
		if program := f == transform.XMLData || f == transform.JSON; own != program {
			t.Errorf("%s: Dynamo's namespace and elements written %v, want %v:\n%s", f, own, program, doc)
		}
		if !bytes.Contains(doc, []byte(dynamo.NamespaceAggregation)) || !bytes.Contains(doc, []byte("https://dynamo.example/resources/echo")) {
			t.Errorf("%s leaves out ag:source or dc:relation:\n%s", f, doc)
		}
	}
}

// markup is what the validator's ContainsHTML looks for: a tag or a
// character or entity reference.
var markup = regexp.MustCompile(`<[a-zA-Z/!]|&#?\w+;`)

func parseXML(t *testing.T, doc []byte) *xmlquery.Node {
	t.Helper()
	n, err := xmlquery.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// An RSS 1.0 item's rdf:about is its own link, unless another item (or the
// channel) has that link: then its urn:uuid, so that RDF does not merge
// them.
func TestRSS1AboutIsTheLink(t *testing.T) {
	r := &dynamo.Resource{URL: "https://example.com/", RSSID: "r", Channel: dynamo.Channel{Title: "R", Link: "https://example.com/"},
		Items: []dynamo.Item{
			{Index: 1, ID: "a", Title: "A", Link: "https://example.com/a"},
			{Index: 2, ID: "b", Title: "B", Link: "https://example.com/shared"},
			{Index: 3, ID: "c", Title: "C", Link: "https://example.com/shared"},
			{Index: 4, ID: "d", Title: "D"}, // no link: the channel's
		}}
	doc := parseXML(t, render(t, r, transform.RSS1))
	var about []string
	for _, it := range xmlquery.Find(doc, "//item") {
		about = append(about, it.SelectAttr("rdf:about"))
	}
	if len(about) != 4 || about[0] != "https://example.com/a" {
		t.Fatalf("rdf:about %q, want the first item's link", about)
	}
	for i, a := range about[1:] {
		if !strings.HasPrefix(a, "urn:uuid:") {
			t.Errorf("item %d: rdf:about %q, want its urn:uuid (its link is shared or not its own)", i+2, a)
		}
	}
}
