package verify

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
)

// JSONFeed checks a JSON Feed 1.1 document. Debian's python3-feedparser
// (6.0.x) predates JSON Feed, so the parser here is gofeed, which the project
// did not write either, plus the spec's MUSTs that a lenient parser lets
// pass: the version URL, a title, items with non-empty string ids, content
// in content_html or content_text, and RFC 3339 dates.
func JSONFeed(t testing.TB, doc []byte) Parsed {
	t.Helper()
	var raw struct {
		Version string `json:"version"`
		Title   string `json:"title"`
		Items   []struct {
			ID            any    `json:"id"`
			ContentHTML   string `json:"content_html"`
			ContentText   string `json:"content_text"`
			DatePublished string `json:"date_published"`
			DateModified  string `json:"date_modified"`
			Attachments   []struct {
				URL         string `json:"url"`
				MIMEType    string `json:"mime_type"`
				SizeInBytes any    `json:"size_in_bytes"`
			} `json:"attachments"`
		} `json:"items"`
	}
	if err := json.Unmarshal(doc, &raw); err != nil {
		t.Fatalf("JSON Feed is not valid JSON: %v\n%s", err, excerpt(doc))
	}
	if raw.Version != "https://jsonfeed.org/version/1.1" {
		t.Fatalf("JSON Feed version %q, want https://jsonfeed.org/version/1.1", raw.Version)
	}
	if raw.Title == "" {
		t.Fatalf("JSON Feed has no title\n%s", excerpt(doc))
	}
	if raw.Items == nil {
		t.Fatalf("JSON Feed has no items array\n%s", excerpt(doc))
	}
	for i, it := range raw.Items {
		if id, ok := it.ID.(string); !ok || id == "" {
			t.Fatalf("JSON Feed item %d: id %v is not a non-empty string", i, it.ID)
		}
		if it.ContentHTML == "" && it.ContentText == "" {
			t.Fatalf("JSON Feed item %d has neither content_html nor content_text", i)
		}
		for _, a := range it.Attachments {
			if a.URL == "" || a.MIMEType == "" {
				t.Fatalf("JSON Feed item %d: an attachment lacks its required url or mime_type", i)
			}
			if n, ok := a.SizeInBytes.(float64); a.SizeInBytes != nil && (!ok || n <= 0 || n != float64(int64(n))) {
				t.Fatalf("JSON Feed item %d: size_in_bytes %v is not a positive whole number", i, a.SizeInBytes)
			}
		}
		for _, d := range []string{it.DatePublished, it.DateModified} {
			if _, err := time.Parse(time.RFC3339, d); d != "" && err != nil {
				t.Fatalf("JSON Feed item %d: date %q is not RFC 3339", i, d)
			}
		}
	}

	feed := parseGofeed(t, doc)
	// gofeed reports a JSON Feed's version as the feed declares it: the
	// version URL.
	if feed.FeedType != "json" || (feed.FeedVersion != "1.1" && feed.FeedVersion != raw.Version) {
		t.Fatalf("gofeed reads %s %s, want json 1.1", feed.FeedType, feed.FeedVersion)
	}
	return fromGofeed(feed, "json11")
}

// Gofeed parses an RSS or Atom document with gofeed, the second reader
// the project did not write (feedparser is the first), and fails the test
// unless gofeed reads it as wantType ("rss" or "atom", gofeed's FeedType).
// Version is gofeed's type and version ("rss1.0", "rss2.0", "atom1.0").
func Gofeed(t testing.TB, doc []byte, wantType string) Parsed {
	t.Helper()
	feed := parseGofeed(t, doc)
	if feed.FeedType != wantType {
		t.Fatalf("gofeed reads a %s feed, want %s\n%s", feed.FeedType, wantType, excerpt(doc))
	}
	p := fromGofeed(feed, feed.FeedType+feed.FeedVersion)
	if feed.UpdatedParsed != nil {
		p.Updated = feed.UpdatedParsed.UTC().Format(time.RFC3339)
	}
	return p
}

func parseGofeed(t testing.TB, doc []byte) *gofeed.Feed {
	t.Helper()
	feed, err := gofeed.NewParser().ParseString(string(doc))
	if err != nil {
		t.Fatalf("gofeed: %v\n%s", err, excerpt(doc))
	}
	return feed
}

// fromGofeed is what gofeed read, in the form feedparser's reading has.
func fromGofeed(feed *gofeed.Feed, version string) Parsed {
	p := Parsed{Version: version, Title: feed.Title, Link: feed.Link, Subtitle: feed.Description, Language: feed.Language}
	for _, it := range feed.Items {
		e := Entry{ID: it.GUID, Title: it.Title, Link: it.Link, Summary: it.Content}
		if e.Summary == "" {
			e.Summary = it.Description
		}
		if it.PublishedParsed != nil {
			e.Published = it.PublishedParsed.UTC().Format(time.RFC3339)
		}
		if it.UpdatedParsed != nil {
			e.Updated = it.UpdatedParsed.UTC().Format(time.RFC3339)
		}
		e.Summary = strings.TrimSpace(e.Summary)
		for _, enc := range it.Enclosures {
			e.Enclosures = append(e.Enclosures, Enclosure{Href: enc.URL, Type: enc.Type, Length: enc.Length})
		}
		p.Entries = append(p.Entries, e)
	}
	return p
}
