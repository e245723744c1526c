package main

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
)

// feedOf is an RSS 2.0 feed of one item.
func feedOf(title, description string) string {
	return fmt.Sprintf(`<?xml version="1.0"?><rss version="2.0"><channel><title>%[1]s</title><link>http://127.0.0.1/</link>`+
		`<description>d</description><item><title>%[1]s</title><link>http://127.0.0.1/%[3]d</link>`+
		`<description>%[2]s</description></item></channel></rss>`,
		html.EscapeString(title), html.EscapeString(description), len(title)*7919+len(description))
}

// aggregateItem is what the tests read of a JSON Feed item of /aggregate.
type aggregateItem struct {
	Title  string `json:"title"`
	Dynamo struct {
		Extensions []struct {
			LocalName string `json:"localName"`
			Value     string `json:"value"`
		} `json:"extensions"`
	} `json:"_dynamo"`
}

func (it aggregateItem) ext(name string) []string {
	var out []string
	for _, x := range it.Dynamo.Extensions {
		if x.LocalName == name {
			out = append(out, x.Value)
		}
	}
	return out
}

// first is the item's first extension named name, or "".
func (it aggregateItem) first(name string) string {
	if xs := it.ext(name); len(xs) > 0 {
		return xs[0]
	}
	return ""
}

// The two regression cases, through serve's poller and /aggregate
// over loopback, on both stores: the Kenya pair (one title with the
// "Reuters:" prefix its source declares and "five" for "5", descriptions
// differing by "police said" / "police officials said") is one story,
// shown once and naming both sources; the allotment notice about plot 12
// and the club's congratulations to its under-12 team are two.
func TestAggregateRegressionStories(t *testing.T) {
	stores := map[string]string{
		"sqlite":   sqlitetest.Path(t, t.TempDir(), "dynamo.db"),
		"postgres": pgtest.DSN(t),
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		switch r.URL.Path {
		case "/wire":
			fmt.Fprint(w, feedOf("Explosion on bus in Kenya capital kills at least 5",
				"An explosion on a crowded minibus in Nairobi's central business district killed at least five people on Monday evening, police said. The cause of the blast was not immediately known."))
		case "/reuters":
			fmt.Fprint(w, feedOf("Reuters: Explosion on bus in Kenya capital kills at least five",
				"An explosion on a crowded minibus in Nairobi's central business district killed at least five people on Monday evening, police officials said. The cause of the blast was not immediately known."))
		case "/allotments":
			fmt.Fprint(w, feedOf("Plot 12 is free again; ask at the shed.", ""))
		case "/club":
			fmt.Fprint(w, feedOf("Congratulations to our under-12 team on winning the county cup!", ""))
		default:
			http.NotFound(w, r)
		}
	}))
	defer origin.Close()
	for name, db := range stores {
		t.Run(name, func(t *testing.T) {
			base := startServe(t, serveConfig{db: db, allowPrivate: true, hostGap: -1})
			for _, src := range []struct{ id, prefix string }{{"wire", ""}, {"reuters", "Reuters:"}, {"allotments", ""}, {"club", ""}} {
				body := fmt.Sprintf(`{"id":%q,"url":%q,"kind":"feed","interval":"24h","title_prefix":%q}`, src.id, origin.URL+"/"+src.id, src.prefix)
				resp, err := http.Post(base+"/api/sources", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					t.Fatalf("create %s: %s", src.id, resp.Status)
				}
				resp, err = http.Post(base+"/api/sources/"+src.id+"/poll", "", nil)
				if err != nil {
					t.Fatal(err)
				}
				var out struct{ Status string }
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				// serve's own scheduler may have polled the new source
				// first, so that poll-now finds it unchanged; either way its
				// item is stored, which the reads below check.
				if resp.StatusCode != http.StatusOK || out.Status != "changed" && out.Status != "unchanged" {
					t.Fatalf("poll %s: %s, %+v", src.id, resp.Status, out)
				}
			}
			read := func(query string) []aggregateItem {
				t.Helper()
				var feed struct{ Items []aggregateItem }
				getJSON(t, base+"/aggregate?type=json&max=50"+query, &feed)
				return feed.Items
			}
			byTitle := func(items []aggregateItem, word string) []aggregateItem {
				var out []aggregateItem
				for _, it := range items {
					if strings.Contains(it.Title, word) {
						out = append(out, it)
					}
				}
				return out
			}
			items := read("")
			kenya := byTitle(items, "Kenya")
			if len(kenya) != 1 || kenya[0].first("source") != "wire" || len(kenya[0].ext("alsoIn")) != 1 || kenya[0].first("alsoIn") != "reuters" {
				t.Errorf("the Kenya pair in /aggregate: %+v, want wire's once, also in reuters", kenya)
			}
			if plot, team := byTitle(items, "Plot 12"), byTitle(items, "under-12"); len(plot) != 1 || len(team) != 1 {
				t.Errorf("plot 12 and the under-12 team in /aggregate: %d and %d items, want one each", len(plot), len(team))
			}
			// Every copy: reuters' names its primary, the rule and the score.
			copies := byTitle(read("&dups=include"), "Kenya")
			var copyOf aggregateItem
			for _, it := range copies {
				if len(it.ext("duplicateOf")) > 0 {
					copyOf = it
				}
			}
			score, _ := strconv.ParseFloat(copyOf.first("score"), 64)
			if len(copies) != 2 || copyOf.first("source") != "reuters" || !strings.HasPrefix(copyOf.first("duplicateOf"), "wire/") ||
				copyOf.first("rule") != "text" || score < 0.9 {
				t.Errorf("dups=include: %+v, want reuters' copy of wire's story by the text rule, scoring at least 0.90", copies)
			}
		})
	}
}
