package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// testAggregatePages reads the aggregate's pages by aggregate number:
// numbered across sources in the order published (one version's new items
// from the bottom of the page up), each item with its first content;
// copies hidden unless asked for, a primary naming only the copies numbered
// up to the page's end; category and conditions select within a page and
// Older finds the nearest older match; a full page stays the same through
// later versions, edits and copies.
func testAggregatePages(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for _, id := range []string{"x", "y"} {
		src := newSource(id)
		src.Category = "cat-" + id
		if err := s.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	page := func(q dynamo.AggregatePageQuery) *dynamo.AggregatePage {
		t.Helper()
		q.Size = 3
		p, err := s.AggregatePage(ctx, q)
		if err != nil {
			t.Fatalf("AggregatePage(%+v): %v", q, err)
		}
		return p
	}
	empty := page(dynamo.AggregatePageQuery{})
	if empty.Number != 1 || empty.Last != 0 || len(empty.Items) != 0 || empty.Older != 0 || !empty.At.IsZero() {
		t.Errorf("the current page of an empty store: %+v", empty)
	}
	// x: a b (1, 2 as b is on top), y: c (3), x: d (4), y: e f (5, 6).
	a, b, c, d := item(1, "Apple harvest"), item(2, "Bridge opens"), item(3, "Council votes"), item(4, "Dam repaired")
	e, f := item(5, "Election day"), item(6, "Festival bridge")
	record(t, s, "x", t0, doc("x", t0, b, a))
	record(t, s, "y", t0.Add(time.Minute), doc("y", t0.Add(time.Minute), c))
	record(t, s, "x", t0.Add(2*time.Minute), doc("x", t0.Add(2*time.Minute), d, b, a))
	record(t, s, "y", t0.Add(3*time.Minute), doc("y", t0.Add(3*time.Minute), f, e, c))
	check := func(what string, p *dynamo.AggregatePage, number, last, older int64, want ...string) {
		t.Helper()
		var got []string
		for _, it := range p.Items {
			got = append(got, fmt.Sprintf("%s/%s#%d", it.SourceID, it.Item.Title, it.Number))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || p.Number != number || p.Last != last || p.Older != older {
			t.Errorf("%s: page %d %v, last %d, older %d; want page %d %v, last %d, older %d",
				what, p.Number, got, p.Last, p.Older, number, want, last, older)
		}
	}
	first := page(dynamo.AggregatePageQuery{Number: 1})
	check("page 1", first, 1, 6, 0, "y/Council votes#3", "x/Bridge opens#2", "x/Apple harvest#1")
	check("page 2", page(dynamo.AggregatePageQuery{Number: 2}), 2, 6, 3, "y/Festival bridge#6", "y/Election day#5", "x/Dam repaired#4")
	check("current", page(dynamo.AggregatePageQuery{}), 3, 6, 6)
	if !first.At.Equal(t0.Add(time.Minute)) {
		t.Errorf("page 1 dated %v, want the latest first seen on it, %v", first.At, t0.Add(time.Minute))
	}
	check("page 2 of cat-x", page(dynamo.AggregatePageQuery{Number: 2, Category: "cat-x"}), 2, 6, 2, "x/Dam repaired#4")
	bridge := []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "BRIDGE"}}
	check("page 2 titled bridge", page(dynamo.AggregatePageQuery{Number: 2, Conditions: bridge}), 2, 6, 2, "y/Festival bridge#6")
	check("current page of cat-y titled apple", page(dynamo.AggregatePageQuery{Category: "cat-y",
		Conditions: []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "apple"}}}), 3, 6, 0)

	// A copy in y of x's apple story, with an edit of a: page 1 stays as it
	// was; the copy is hidden unless asked for, and names its primary.
	g := item(7, "Apple harvest, again")
	primary := dynamo.ItemKey{SourceID: "x", ItemID: a.ID}
	at := t0.Add(4 * time.Minute)
	recordWith(t, s, "y", at, doc("y", at, g, f, e, c), withDuplicates(at,
		dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: "y", ItemID: g.ID}, Primary: primary, Matched: primary, Rule: "test", Score: 1}))
	record(t, s, "x", at.Add(time.Minute), doc("x", at.Add(time.Minute), d, b, edited(a, "Apple harvest, corrected")))
	// What a page shows: not LastSeen, which moves with the source's
	// versions (feeds never carry it), nor Last.
	shown := func(p *dynamo.AggregatePage) string {
		items := slices.Clone(p.Items)
		for i := range items {
			items[i].LastSeen = time.Time{}
		}
		return fmt.Sprintf("%d %+v %d %v", p.Number, items, p.Older, p.At)
	}
	if again := page(dynamo.AggregatePageQuery{Number: 1}); shown(again) != shown(first) {
		t.Errorf("page 1 changed after a copy and an edit:\n%s\nwas\n%s", shown(again), shown(first))
	}
	if len(first.Items[2].AlsoIn) != 0 {
		t.Errorf("page 1 names copies of a: %v", first.Items[2].AlsoIn)
	}
	check("current after a copy", page(dynamo.AggregatePageQuery{}), 3, 7, 6)
	withCopy := page(dynamo.AggregatePageQuery{IncludeDuplicates: true})
	check("current with copies", withCopy, 3, 7, 6, "y/Apple harvest, again#7")
	if it := withCopy.Items[0]; it.DuplicateOf == nil || *it.DuplicateOf != primary || it.DuplicateRule != "test" {
		t.Errorf("the copy: duplicate of %v, rule %q", it.DuplicateOf, it.DuplicateRule)
	}

	// A copy numbered on its primary's page is named there: numbers 8 (h)
	// and 9 (its copy in x) fill page 3.
	h := item(8, "Harbour news")
	record(t, s, "y", at.Add(2*time.Minute), doc("y", at.Add(2*time.Minute), h, g, f, e, c))
	hCopy := item(9, "Harbour news today")
	hKey := dynamo.ItemKey{SourceID: "y", ItemID: h.ID}
	at3 := at.Add(3 * time.Minute)
	recordWith(t, s, "x", at3, doc("x", at3, hCopy, d, b, a), withDuplicates(at3,
		dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: "x", ItemID: hCopy.ID}, Primary: hKey, Matched: hKey, Rule: "test", Score: 1}))
	third := page(dynamo.AggregatePageQuery{Number: 3})
	check("page 3", third, 3, 9, 6, "y/Harbour news#8")
	if len(third.Items) == 1 && fmt.Sprint(third.Items[0].AlsoIn) != fmt.Sprint([]dynamo.ItemKey{{SourceID: "x", ItemID: hCopy.ID}}) {
		t.Errorf("page 3: h also in %v, want its copy in x", third.Items[0].AlsoIn)
	}
	all, err := s.Aggregate(ctx, dynamo.AggregateQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range all {
		if it.Item.ID == a.ID && len(it.AlsoIn) != 1 {
			t.Errorf("Aggregate names %v as also carrying a, want its copy in y", it.AlsoIn)
		}
	}

	for _, bad := range []dynamo.AggregatePageQuery{{Number: -1, Size: 3}, {Number: 1}, {Number: 1, Size: 3,
		Conditions: []dynamo.Condition{{Field: "author", Value: "x"}}}} {
		_, err := s.AggregatePage(ctx, bad)
		wantErr(t, fmt.Sprintf("AggregatePage(%+v)", bad), err, dynamo.ErrInvalid)
	}
}
