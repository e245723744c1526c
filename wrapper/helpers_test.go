package wrapper_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

const pageURL = "http://example.com/news/page.html"

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// wrap runs the wrapper on body, preceded on the same line by a <title>, so
// that the channel has a title without shifting line numbers.
func wrap(body string) *wrapper.Result {
	return wrapper.Wrap([]byte("<title>Page</title>"+body), wrapper.Options{URL: pageURL, RSSID: "test", Now: testNow})
}

// wantWarning is a warning expected on a line, by a part of its message.
type wantWarning struct {
	line int
	text string
}

// checkWarnings fails unless the warnings are exactly those wanted: each
// wanted one present, and no other.
func checkWarnings(t *testing.T, got []dynamo.Warning, want []wantWarning) {
	t.Helper()
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if !used[i] && g.Line == w.line && strings.Contains(g.Message, w.text) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("missing warning on line %d containing %q", w.line, w.text)
		}
	}
	for i, g := range got {
		if !used[i] {
			t.Errorf("unexpected warning: %s", g)
		}
	}
}

// wantItem is an item's informational content.
type wantItem struct {
	title, link, description string
}

func checkItems(t *testing.T, got []dynamo.Item, want []wantItem) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d items, want %d:\n%s", len(got), len(want), describeItems(got))
		return
	}
	for i, w := range want {
		g := got[i]
		if g.Index != i+1 {
			t.Errorf("item %d has Index %d", i+1, g.Index)
		}
		if g.Title != w.title || g.Link != w.link || g.Description != w.description {
			t.Errorf("item %d = {%q, %q, %q}\n      want {%q, %q, %q}", i+1, g.Title, g.Link, g.Description, w.title, w.link, w.description)
		}
	}
}

func describeItems(items []dynamo.Item) string {
	var sb strings.Builder
	for _, it := range items {
		fmt.Fprintf(&sb, "  %d: %q %q %q\n", it.Index, it.Title, it.Link, it.Description)
	}
	return sb.String()
}

// checkInvariants checks what must hold of every result, whatever the
// page: the document reads back, indexes run 1..n, ids are unique, links
// are URLs, annotations and warnings point into the text.
func checkInvariants(t testing.TB, r *wrapper.Result) {
	t.Helper()
	doc := r.Resource.XML()
	back, err := dynamo.DecodeResource(doc)
	if err != nil {
		t.Fatalf("XMLData does not read back: %v\n%s", err, doc)
	}
	if len(back.Items) != len(r.Resource.Items) {
		t.Fatalf("XMLData has %d items, Resource %d", len(back.Items), len(r.Resource.Items))
	}
	ids := map[string]bool{}
	for i, it := range r.Resource.Items {
		if it.Index != i+1 {
			t.Fatalf("item %d has Index %d", i+1, it.Index)
		}
		if ids[it.ID] || it.ID == "" {
			t.Fatalf("item %d: id %q empty or repeated", it.Index, it.ID)
		}
		ids[it.ID] = true
		checkURI(t, "item link", it.Link)
		if it.Image != nil {
			checkURI(t, "item image url", it.Image.URL)
			checkURI(t, "item image link", it.Image.Link)
		}
		for _, e := range it.Extensions {
			if err := e.Valid(); err != nil {
				t.Fatalf("item %d keeps an invalid extension: %v", it.Index, err)
			}
		}
	}
	checkURI(t, "resource url", r.Resource.URL)
	checkURI(t, "channel link", r.Resource.Channel.Link)
	lines := strings.Count(r.Text, "\n") + 1
	for _, w := range r.Warnings {
		if w.Line < 0 || w.Line > lines {
			t.Fatalf("warning %q on line %d of %d", w.Message, w.Line, lines)
		}
	}
	for _, a := range r.Annotations {
		if !(0 <= a.Start && a.Start <= a.ContentStart && a.ContentStart <= a.ContentEnd && a.ContentEnd <= len(r.Text) && a.End <= len(r.Text)) {
			t.Fatalf("annotation %s at line %d has offsets %d %d %d %d in a text of %d bytes",
				a.Name, a.Line, a.Start, a.ContentStart, a.ContentEnd, a.End, len(r.Text))
		}
	}
}

// checkURI fails unless s is empty or a URI without the characters that
// XML Schema's anyURI (as libxml2 checks it) refuses.
func checkURI(t testing.TB, what, s string) {
	t.Helper()
	if s == "" {
		return
	}
	if _, err := url.Parse(s); err != nil {
		t.Fatalf("%s %q is not a URL: %v", what, s, err)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7F || strings.IndexByte("<>\"{}|\\^`", c) >= 0 {
			t.Fatalf("%s %q holds %q", what, s, c)
		}
	}
}
