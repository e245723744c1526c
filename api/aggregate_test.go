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
// names the other source, and the other source is also an element a
// program can read: dynamo:alsoIn in JSON Feed (and XMLData), and in RSS and
// Atom, which leave Dynamo's namespace out (feed validators warn on it), a
// dc:relation naming its collection beside the item's ag:source; with
// dups=include both copies show, the copy naming its primary the same ways.
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
				xmlFormat := f != transform.JSON
				// A collection's feed, in the format asked for (links keep it).
				collection := func(id string) string {
					if f == transform.RSS2 {
						return e.http.URL + "/resources/" + id
					}
					return e.http.URL + "/resources/" + id + "?type=" + string(f)
				}
				uri, name, want := dynamo.NamespaceDynamo, "alsoIn", "echo"
				if xmlFormat {
					uri, name, want = dynamo.NamespaceDC, "relation", collection("echo")
					if bytes.Contains(body, []byte(dynamo.NamespaceDynamo)) {
						t.Errorf("%s names Dynamo's namespace, which feed validators warn on", f)
					}
					if src := extensions(t, f, body, dynamo.NamespaceAggregation, "sourceURL")[bravo.title]; !slices.Equal(src, []string{collection("news")}) {
						t.Errorf("ag:sourceURL %q, want news's collection", src)
					}
				}
				got := extensions(t, f, body, uri, name)
				if len(got[bravo.title]) != 1 || got[bravo.title][0] != want {
					t.Errorf("%s extensions %v, want %s on %q only", name, got, want, bravo.title)
				}
				if len(got) != 1 {
					t.Errorf("%s extensions on %d items, want 1: %v", name, len(got), got)
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
				if xmlFormat {
					// The copy's relation is its primary's collection, and
					// both copies' relations are each other's.
					if rel := extensions(t, f, body, dynamo.NamespaceDC, "relation")[bravo.title]; !slices.Equal(rel, []string{collection("news"), collection("echo")}) {
						t.Errorf("dups=include: the copies' dc:relation %q, want news's collection, then echo's", rel)
					}
					return
				}
				of, rule, score := extensions(t, f, body, uri, "duplicateOf"), extensions(t, f, body, uri, "rule"), extensions(t, f, body, uri, "score")
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

// extensions reads the extensions in namespace uri named name
// (dynamo:alsoIn, dc:relation…) of a feed's items by item title: XML
// elements in that namespace (whatever their prefix), or in the _dynamo
// object of JSON Feed items.
func extensions(t *testing.T, f transform.Format, body []byte, uri, name string) map[string][]string {
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
				if x.URI == uri && x.LocalName == name {
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
		case inItem && start.Name.Space == uri && start.Name.Local == name:
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
