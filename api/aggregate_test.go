package api_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/verify"
	"github.com/dynamo-feeds/dynamo/transform"
)

// TestAggregateInEveryFormat reads the aggregate of two sources that carry
// one story in every feed format, through parsers the project did not
// write (python3-feedparser for RSS 1.0, RSS 2.0 and Atom; gofeed for JSON
// Feed, which feedparser predates): the story shows once, its description
// names the other source, and the other source is also an extension
// element (dynamo:alsoIn) that a program can read; with dups=include both
// copies show.
func TestAggregateInEveryFormat(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newsEnv(t, open)
		echo := story{bravo.title, "/echo/b", "Copied from the Courier."}
		e.origin.set("/echo.html", annotatedPage("Echo", echo, story{"Echo only", "/echo/1", "Unique."}))
		e.addSource("echo", "/echo.html", `"category":"copies"`)
		if out := e.poll("echo"); out.Status != dynamo.StatusChanged || out.NewItems != 2 {
			t.Fatalf("poll echo: %+v", out)
		}
		versions := map[transform.Format]string{transform.RSS1: "rss10", transform.RSS2: "rss20", transform.Atom: "atom10"}
		for _, f := range []transform.Format{transform.RSS1, transform.RSS2, transform.Atom, transform.JSON} {
			t.Run(string(f), func(t *testing.T) {
				body := e.get("/aggregate?max=50&type="+string(f)).must(t, http.StatusOK, "aggregate").body
				var p verify.Parsed
				if f == transform.JSON {
					p = verify.JSONFeed(gofeedVersionTolerant{t}, body)
				} else {
					if f == transform.Atom {
						verify.Atom(t, body)
					}
					p = verify.Feed(t, body, versions[f])
				}
				// news has 4 items, echo 2 of which one is bravo's story.
				if len(p.Entries) != 5 {
					t.Errorf("%d entries, want 5 (6 items, one a duplicate): %q", len(p.Entries), parsedTitles(p))
				}
				var copies []verify.Entry
				for _, en := range p.Entries {
					if en.Title == bravo.title {
						copies = append(copies, en)
					}
				}
				if len(copies) != 1 {
					t.Fatalf("the duplicated story shows %d times, want once: %q", len(copies), parsedTitles(p))
				}
				if s := copies[0].Summary; !strings.Contains(s, "From") || !strings.Contains(s, "news") || !strings.Contains(s, "also in") || !strings.Contains(s, "echo") {
					t.Errorf("the story's description does not name both sources: %q", s)
				}
				got := extensions(t, f, body, "alsoIn")
				if len(got[bravo.title]) != 1 || got[bravo.title][0] != "echo" {
					t.Errorf("alsoIn extensions %v, want echo on %q only", got, bravo.title)
				}
				if len(got) != 1 {
					t.Errorf("alsoIn extensions on %d items, want 1: %v", len(got), got)
				}

				body = e.get("/aggregate?max=50&dups=include&type="+string(f)).must(t, http.StatusOK, "dups=include").body
				if f == transform.JSON {
					p = verify.JSONFeed(gofeedVersionTolerant{t}, body)
				} else {
					p = verify.Feed(t, body, versions[f])
				}
				var summaries []string
				for _, en := range p.Entries {
					if en.Title == bravo.title {
						summaries = append(summaries, en.Summary)
					}
				}
				if len(p.Entries) != 6 || len(summaries) != 2 {
					t.Fatalf("dups=include: %d entries with %d copies of the story, want 6 and 2: %q", len(p.Entries), len(summaries), parsedTitles(p))
				}
				// The copy (echo's, first seen last, so listed first) names
				// its primary: in its description, and as the primary's id
				// in this feed with the rule and score of the decision.
				if s := summaries[0]; !strings.Contains(s, "echo") || !strings.Contains(s, "a copy (rule test-same-title, score 1.00) of the story first seen in") || !strings.Contains(s, "news") {
					t.Errorf("the copy's description does not name its primary: %q", s)
				}
				if s := summaries[1]; !strings.Contains(s, "From") || strings.Contains(s, "a copy") {
					t.Errorf("the primary's description: %q", s)
				}
				of, rule, score := extensions(t, f, body, "duplicateOf"), extensions(t, f, body, "rule"), extensions(t, f, body, "score")
				if ids := of[bravo.title]; len(ids) != 1 || !strings.HasPrefix(ids[0], "news/") ||
					!slices.Equal(rule[bravo.title], []string{"test-same-title"}) || !slices.Equal(score[bravo.title], []string{"1.00"}) {
					t.Errorf("duplicateOf %v, rule %v, score %v; want one copy of a news item by test-same-title, 1.00", of, rule, score)
				}
			})
		}
	})
}

func parsedTitles(p verify.Parsed) []string {
	var ts []string
	for _, en := range p.Entries {
		ts = append(ts, en.Title)
	}
	return ts
}

// extensions reads the Dynamo extensions named name (dynamo:alsoIn…) of a
// feed's items by item title: XML elements in Dynamo's namespace (whatever
// their prefix), or the _dynamo object of JSON Feed items.
func extensions(t *testing.T, f transform.Format, body []byte, name string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	if f == transform.JSON {
		var doc struct {
			Items []struct {
				Title  string `json:"title"`
				Dynamo *struct {
					Extensions []struct {
						URI       string `json:"uri"`
						LocalName string `json:"localName"`
						Value     string `json:"value"`
					} `json:"extensions"`
				} `json:"_dynamo"`
			} `json:"items"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		for _, it := range doc.Items {
			if it.Dynamo == nil {
				continue
			}
			for _, x := range it.Dynamo.Extensions {
				if x.URI == dynamo.NamespaceDynamo && x.LocalName == name {
					out[it.Title] = append(out[it.Title], x.Value)
				}
			}
		}
		return out
	}
	// An item is <item> (RSS) or <entry> (Atom); its title is its <title>
	// child, its extensions its children in Dynamo's namespace.
	dec := xml.NewDecoder(bytes.NewReader(body))
	var title string
	var inItem bool
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("read the feed's XML: %v", err)
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			if end, ok := tok.(xml.EndElement); ok && (end.Name.Local == "item" || end.Name.Local == "entry") {
				inItem = false
			}
			continue
		}
		switch {
		case start.Name.Local == "item" || start.Name.Local == "entry":
			inItem, title = true, ""
		case inItem && start.Name.Local == "title" && title == "":
			var s string
			if err := dec.DecodeElement(&s, &start); err != nil {
				t.Fatal(err)
			}
			title = s
		case inItem && start.Name.Space == dynamo.NamespaceDynamo && start.Name.Local == name:
			var s string
			if err := dec.DecodeElement(&s, &start); err != nil {
				t.Fatal(err)
			}
			out[title] = append(out[title], s)
		}
	}
}

// The aggregate takes /resources' conditions, op and category, and they
// compose with dups: a condition that only a hidden copy meets finds the
// copy with dups=include.
func TestAggregateConditions(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newsEnv(t, open)
		e.origin.set("/echo.html", annotatedPage("Echo", story{bravo.title, "/echo/b", "Copied from the Courier."}, story{"Echo only", "/echo/1", "Unique."}))
		e.addSource("echo", "/echo.html", `"category":"copies"`)
		e.poll("echo")
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"/aggregate?title=ECHO&op=or&desc=goal", []string{"Echo only", bravo.title}},
			{"/aggregate?title=echo&op=and&desc=goal", nil},
			{"/aggregate?desc=courier", nil},
			{"/aggregate?desc=courier&dups=include", []string{bravo.title}},
			{"/aggregate?category=copies", []string{"Echo only"}},
			{"/aggregate?category=copies&dups=include", []string{bravo.title, "Echo only"}},
			{"/aggregate?category=local&max=2", []string{delta.title, alpha.title}},
		} {
			_, entries := parseFeed(t, e.get(tc.query).must(t, http.StatusOK, tc.query).body, transform.RSS2)
			if got := titlesOf(entries); !slices.Equal(got, tc.want) {
				t.Errorf("%s: %q, want %q", tc.query, got, tc.want)
			}
		}
	})
}
