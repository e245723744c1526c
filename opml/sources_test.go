package opml_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/opml"
)

func TestSourceEntryRoundTrip(t *testing.T) {
	src := dynamo.Source{ID: "town", URL: "http://example.org/news.html", Kind: dynamo.KindHTML, Interval: dynamo.Duration(15 * time.Minute),
		Policy: "smart", Category: "Local/ Town ", TitlePrefix: "TOWN: ", Subscribers: 3, Timezone: "Europe/Paris", Paused: true}
	src.Summary.Title = "Town News"
	e := opml.SourceEntry(&src, "https://feeds.example.org")
	if e.Title != "Town News" || e.XMLURL != "https://feeds.example.org/resources/town?max=50" || e.HTMLURL != src.URL {
		t.Errorf("entry %+v", e)
	}
	if e.Extra["category"] != "Local/ Town " || e.Extra["interval"] != "15m" || e.Extra["paused"] != "true" || e.Extra["subscribers"] != "3" {
		t.Errorf("settings %v", e.Extra)
	}
	back, derived, err := opml.EntrySource(e)
	if err != nil || derived {
		t.Fatalf("EntrySource: %v, derived %v", err, derived)
	}
	back.Summary = src.Summary
	if !reflect.DeepEqual(*back, src) {
		t.Errorf("read back %+v, want %+v", *back, src)
	}
	// A folder that survives being read back is not repeated.
	plain := dynamo.Source{ID: "a", URL: "http://x/a.xml", Kind: dynamo.KindFeed, Interval: dynamo.DefaultInterval, Category: "Tech/Go"}
	if e := opml.SourceEntry(&plain, ""); len(e.Extra) != 4 || e.Category != "Tech/Go" {
		t.Errorf("a plain source's entry carries %v", e.Extra)
	}
}

func TestEntrySource(t *testing.T) {
	src, derived, err := opml.EntrySource(opml.Entry{Title: "Renamed", XMLURL: " http://www.example.org/feed/ ", Category: "News"})
	if err != nil || !derived || src.ID != "example.org-feed" || src.Kind != dynamo.KindFeed || src.Interval != dynamo.DefaultInterval ||
		src.Category != "News" || src.Title != "Renamed" {
		t.Errorf("a reader's entry: %+v, derived %v, %v", src, derived, err)
	}
	// The user's title is the outline's, on export too, and travels in
	// dynamo:title; in Dynamo's export, an outline titled by the feed's
	// own title (or the id) gives no user title.
	src.Summary.Title = "Example feed"
	e := opml.SourceEntry(src, "http://dynamo.example")
	if e.Title != "Renamed" || e.Extra["title"] != "Renamed" {
		t.Errorf("exported as %+v, want the user's title", e)
	}
	if back, _, err := opml.EntrySource(e); err != nil || back.Title != "Renamed" {
		t.Errorf("read back: %+v, %v", back, err)
	}
	src.Title = ""
	e = opml.SourceEntry(src, "http://dynamo.example")
	if back, _, err := opml.EntrySource(e); err != nil || e.Title != "Example feed" || back.Title != "" {
		t.Errorf("without a user title: exported as %q, read back as %q (%v)", e.Title, back.Title, err)
	}
	for extra, mention := range map[string]string{
		"intervall=1h":   "unknown attribute dynamo:intervall",
		"interval=soon":  `dynamo:interval: duration "soon"`,
		"subscribers=x":  `dynamo:subscribers: "x" is not a whole number`,
		"paused=perhaps": `dynamo:paused: "perhaps" must be true or false`,
	} {
		k, v, _ := strings.Cut(extra, "=")
		_, _, err := opml.EntrySource(opml.Entry{XMLURL: "http://x/", Extra: map[string]string{k: v}})
		if err == nil || !errors.Is(err, dynamo.ErrInvalid) || !strings.Contains(err.Error(), mention) {
			t.Errorf("%s: %v, want an ErrInvalid saying %q", extra, err, mention)
		}
	}
}

// FreshRSS's "HTML + XPath" outlines are selectors sources, and selectors
// sources in XPath are written back as FreshRSS writes them.
func TestFreshRSSOutlines(t *testing.T) {
	e := opml.Entry{Title: "Town", XMLURL: "https://town.example/news", HTMLURL: "https://town.example/news", Category: "Local",
		Type: "HTML+XPath", FreshRSS: map[string]string{"xPathItem": "//article", "xPathItemTitle": "descendant::h2",
			"xPathItemUri": "descendant::a/@href", "xPathItemThumbnail": "descendant::img/@src", "xPathItemAuthor": `"Anonymous"`,
			"xPathItemTimeFormat": "d/m/Y", "ttl": "-1800"}}
	src, derived, err := opml.EntrySource(e)
	if err != nil || !derived {
		t.Fatalf("%v (derived %v)", err, derived)
	}
	if src.Kind != dynamo.KindSelectors || src.SelectorSyntax != "xpath" || src.ItemSelector != "//article" || src.TitleSelector != "descendant::h2" ||
		src.LinkSelector != "descendant::a/@href" || src.ImageSelector != "descendant::img/@src" || src.AuthorSelector != `"Anonymous"` ||
		!src.Paused || time.Duration(src.Interval) != 30*time.Minute || src.ID != "town.example-news" {
		t.Errorf("source %+v", src)
	}
	back := opml.SourceEntry(src, "http://dynamo.example")
	delete(e.FreshRSS, "xPathItemTimeFormat") // not kept
	if src.Title != "Town" {
		t.Errorf("title %q, want the outline's", src.Title)
	}
	if !reflect.DeepEqual(back, opml.Entry{Title: e.Title, XMLURL: e.XMLURL, HTMLURL: e.HTMLURL, Category: e.Category, Type: e.Type, FreshRSS: e.FreshRSS, Extra: map[string]string{}}) {
		t.Errorf("written back as %+v", back)
	}
	for _, typ := range []string{"XML+XPath", "JSON+DotNotation"} {
		if _, _, err := opml.EntrySource(opml.Entry{XMLURL: "https://x.example/", Type: typ}); err == nil || !strings.Contains(err.Error(), "outline type "+typ+" is not one Dynamo reads") {
			t.Errorf("type %s: %v", typ, err)
		}
	}
}
