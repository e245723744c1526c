package postgres

import (
	"context"
	"reflect"
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

// FuzzConditions runs arbitrary condition values against a small archive
// in PostgreSQL and holds the answers to dynamo.Match: no value may fail
// the query or match differently.
func FuzzConditions(f *testing.F) {
	s := open(f)
	ctx := context.Background()
	addSource(f, s, "a")
	titles := []string{"Straße ÉTÉ", "100% off_sale", `back\slash`, "İstanbul ǅ", "plain news", "ΣΊΣΥΦΟΣ"}
	var items []dynamo.Item
	for i, title := range titles {
		it := item(i, title)
		it.Text = title + " text"
		items = append(items, it)
	}
	record(f, s, "a", t0, doc("a", t0, items...))
	archive, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a"})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"ss", "%", "_", `\`, "é", "σ", "\x00", "\xff", "i̇", ""} {
		f.Add(seed, "news", true)
	}
	f.Fuzz(func(t *testing.T, v1, v2 string, or bool) {
		conds := []dynamo.Condition{
			{Field: dynamo.FieldTitle, Value: v1},
			{Or: or, Field: dynamo.FieldDescription, Value: v2},
		}
		got, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Conditions: conds})
		if err != nil {
			t.Fatalf("%s: %v", describe(conds), err)
		}
		var want []string
		for _, it := range archive {
			if dynamo.Match(conds, &it.Item) {
				want = append(want, it.Item.ID)
			}
		}
		if !reflect.DeepEqual(ids(got), want) {
			t.Fatalf("%s: %d items, Match says %d", describe(conds), len(got), len(want))
		}
	})
}
