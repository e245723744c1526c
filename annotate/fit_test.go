package annotate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
)

// TestSuggestFits checks, at each boundary, what the suggester does to
// keep the annotated page within Options.MaxBytes (issue 19): every field
// in full up to the size of the whole annotation; one byte below, the same
// annotations written compactly; then without the dates, then without the
// descriptions, and a refusal one byte below the titles and links alone.
// Every item keeps its title and link whatever is left out.
func TestSuggestFits(t *testing.T) {
	page := denseDated(64 << 10)
	suggest := func(limit int) (*annotate.Result, error) {
		return annotate.Suggest(page, annotate.Options{URL: styleBase, MaxBytes: limit})
	}
	whole, err := suggest(0)
	if err != nil {
		t.Fatal(err)
	}
	items := len(whole.Wrapped().Resource.Items)
	if items < 200 || whole.List.Date == "" || whole.List.Description == "" {
		t.Fatalf("%d items, date at %q, description at %q: want a dense list with both", items, whole.List.Date, whole.List.Description)
	}
	full := len(whole.Page)
	compact, err := suggest(full - 1)
	if err != nil {
		t.Fatal(err)
	}
	noDates, err := suggest(len(compact.Page) - 1)
	if err != nil {
		t.Fatal(err)
	}
	titlesAndLinks, err := suggest(len(noDates.Page) - 1)
	if err != nil {
		t.Fatal(err)
	}
	least := len(titlesAndLinks.Page)
	const compacted, noDate, noDesc = "the annotations are written compactly", "the items' dates were left out", "the items' descriptions were left out"
	tests := []struct {
		name          string
		limit         int
		dates, descs  bool
		notes         []string
		refused       bool
		sizeAtMostMax bool
	}{
		{"no limit", 0, true, true, nil, false, false},
		{"exactly the whole annotation", full, true, true, nil, false, true},
		{"one byte less: compact", full - 1, true, true, []string{compacted}, false, true},
		{"exactly compact", len(compact.Page), true, true, []string{compacted}, false, true},
		{"one byte less: no dates", len(compact.Page) - 1, false, true, []string{compacted, noDate}, false, true},
		{"exactly without dates", len(noDates.Page), false, true, []string{compacted, noDate}, false, true},
		{"one byte less: no descriptions either", len(noDates.Page) - 1, false, false, []string{compacted, noDate, noDesc}, false, true},
		{"exactly the titles and links", least, false, false, []string{compacted, noDate, noDesc}, false, true},
		{"one byte less: refused", least - 1, false, false, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := suggest(tt.limit)
			if tt.refused {
				if !errors.Is(err, dynamo.ErrPageTooLarge) || !strings.Contains(err.Error(), "with only its items' titles and links annotated") {
					t.Fatalf("err %v, want a page too large even with titles and links alone", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.sizeAtMostMax && len(res.Page) > tt.limit {
				t.Errorf("%d bytes, over %d", len(res.Page), tt.limit)
			}
			got := res.Wrapped().Resource.Items
			if len(got) != items {
				t.Fatalf("%d items, want %d", len(got), items)
			}
			dates, descs := 0, 0
			for i, it := range got {
				w := whole.Wrapped().Resource.Items[i]
				if it.Title != w.Title || it.Link != w.Link {
					t.Fatalf("item %d: %q %s, want %q %s", i+1, it.Title, it.Link, w.Title, w.Link)
				}
				if len(it.Extensions) > 0 {
					dates++
				}
				if it.Description != "" {
					descs++
				}
			}
			if (dates == items) != tt.dates || (dates == 0) == tt.dates {
				t.Errorf("%d of %d items have a date, want all %v", dates, items, tt.dates)
			}
			if (descs == items) != tt.descs || (descs == 0) == tt.descs {
				t.Errorf("%d of %d items have a description, want all %v", descs, items, tt.descs)
			}
			if c := len(tt.notes) > 0; c != strings.Contains(string(res.Page), `<!--<item:title index=`) || c == strings.Contains(string(res.Page), `<!-- <item:title`) {
				t.Errorf("compact comments %v, want %v", !c, c)
			}
			var fitNotes []string
			for _, n := range res.Notes {
				if strings.Contains(n, "were left out (") || strings.HasPrefix(n, compacted) {
					fitNotes = append(fitNotes, n)
				}
			}
			if len(fitNotes) != len(tt.notes) {
				t.Fatalf("notes %q, want %d saying %q", fitNotes, len(tt.notes), tt.notes)
			}
			for i, n := range fitNotes {
				if !strings.HasPrefix(n, tt.notes[i]) || (tt.notes[i] != compacted && !strings.Contains(n, "every item keeps its title and link")) {
					t.Errorf("note %q, want it to start %q", n, tt.notes[i])
				}
			}
		})
	}
}
