package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// TestConditionsAgreeWithMatch checks the SQL conditions against
// dynamo.Match, the reference semantics, on random items and random
// condition chains over a small alphabet where case folding, LIKE wildcards
// and multi-byte letters all occur.
func TestConditionsAgreeWithMatch(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	addSource(t, s, "a")
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "B", "é", "É", "ß", "%", "_", `\`, " ", "Ω", "ω", "x"}
	word := func(n int) string {
		w := ""
		for range rng.IntN(n) + 1 {
			w += alphabet[rng.IntN(len(alphabet))]
		}
		return w
	}
	var items []dynamo.Item
	for i := range 120 {
		it := item(i, word(6))
		it.Link += "/" + word(3)
		it.Text = word(8)
		items = append(items, it)
	}
	record(t, s, "a", t0, doc("a", t0, items[:60]...))
	record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), items[40:]...))

	archive, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	newest, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	fields := []dynamo.Field{dynamo.FieldTitle, dynamo.FieldLink, dynamo.FieldDescription}
	for n := range 300 {
		var conds []dynamo.Condition
		for range rng.IntN(4) + 1 {
			conds = append(conds, dynamo.Condition{Or: rng.IntN(2) == 0, Field: fields[rng.IntN(3)], Value: word(2)})
		}
		for _, version := range []int{0, 1} {
			all := archive
			if version == 1 {
				all = newest
			}
			got, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Version: version, Conditions: conds})
			if err != nil {
				t.Fatalf("query %d %v: %v", n, conds, err)
			}
			var want []string
			for _, it := range all {
				if dynamo.Match(conds, &it.Item) {
					want = append(want, it.Item.ID)
				}
			}
			if !reflect.DeepEqual(ids(got), want) {
				t.Fatalf("version %d, conditions %s: %d items, Match says %d", version, describe(conds), len(got), len(want))
			}
		}
	}
}

func describe(conds []dynamo.Condition) string {
	s := ""
	for i, c := range conds {
		if i > 0 {
			s += map[bool]string{true: " or ", false: " and "}[c.Or]
		}
		s += fmt.Sprintf("%s~%q", c.Field, c.Value)
	}
	return s
}

func TestConditionLeftToRight(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	addSource(t, s, "a")
	x, y, z := item(1, "apple"), item(2, "banana"), item(3, "cherry apple")
	record(t, s, "a", t0, doc("a", t0, x, y, z))
	// banana or cherry and apple = (banana or cherry) and apple: only z;
	// read with precedence it would also give y.
	conds := []dynamo.Condition{
		{Field: dynamo.FieldTitle, Value: "BANANA"},
		{Or: true, Field: dynamo.FieldTitle, Value: "cherry"},
		{Field: dynamo.FieldTitle, Value: "Apple"},
	}
	got, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Conditions: conds})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{z.ID}; !reflect.DeepEqual(ids(got), want) {
		t.Errorf("got %v, want %v", ids(got), want)
	}
	_, err = s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Conditions: []dynamo.Condition{{Field: "author", Value: "x"}}})
	if !errors.Is(err, dynamo.ErrInvalid) {
		t.Errorf("unknown field: %v, want ErrInvalid", err)
	}
}
