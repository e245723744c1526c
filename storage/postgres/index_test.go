package postgres

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
)

// words returns n pseudo-random words, the vocabulary of the generated
// archives: varied enough that trigram statistics resemble real titles.
func words(rng *rand.Rand, n int) []string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 4 + rng.IntN(6) {
			b.WriteByte(letters[rng.IntN(len(letters))])
		}
		out[i] = b.String()
	}
	return out
}

// vocabSize is the number of words of the generated archives' vocabulary.
const vocabSize = 5000

// archiveVocab returns the vocabulary that fillArchive uses, which its
// random source (seeded the same every time) draws first.
func archiveVocab() []string { return words(rand.New(rand.NewPCG(7, 7)), vocabSize) }

// fillArchive stores versions of perVersion new items each until the
// source holds total items, with titles of random words, and returns the
// store's vocabulary.
func fillArchive(t testing.TB, s *Store, id string, total, perVersion int) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	vocab := words(rng, vocabSize)
	sentence := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(ws, " ")
	}
	for v := 0; v*perVersion < total; v++ {
		var items []dynamo.Item
		for i := range perVersion {
			it := item(v*perVersion+i, strings.ToUpper(sentence(1))+" "+sentence(6))
			it.Text = sentence(30)
			it.Description = "<p>" + it.Text + "</p>"
			items = append(items, it)
		}
		at := t0.Add(time.Duration(v) * time.Minute)
		record(t, s, id, at, doc(id, at, items...))
	}
	if _, err := s.pool.Exec(context.Background(), "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	return vocab
}

// explain returns PostgreSQL's plan for an item query.
func explain(t testing.TB, s *Store, q dynamo.ItemQuery) string {
	t.Helper()
	sq, err := archiveQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	return explainQuery(t, s, sq)
}

// explainQuery returns PostgreSQL's plan for sq, a line a step.
func explainQuery(t testing.TB, s *Store, sq query) string {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), "EXPLAIN "+sq.sql, sq.args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// A selective condition on a 50,000-item archive is answered from the
// trigram index rather than by reading every item.
func TestConditionsUseTrigramIndex(t *testing.T) {
	s := open(t)
	addSource(t, s, "big")
	vocab := fillArchiveBulk(t, s, "big", 50_000)
	for _, c := range []dynamo.Condition{
		{Field: dynamo.FieldTitle, Value: vocab[17]},
		{Field: dynamo.FieldDescription, Value: strings.ToUpper(vocab[42])},
	} {
		for _, max := range []int{0, dynamo.DefaultItems} {
			plan := explain(t, s, dynamo.ItemQuery{SourceID: "big", Conditions: []dynamo.Condition{c}, Max: max})
			const index = "item_revisions_fields_trgm"
			if !strings.Contains(plan, index) || strings.Contains(plan, "item_revisions_pkey") {
				t.Errorf("condition %s~%q, max %d, does not use %s alone:\n%s", c.Field, c.Value, max, index, plan)
			}
		}
	}
	// Conditions joined by and are one scan of the index with a key each,
	// in which the rarest leads and the others skip to its items, not a
	// bitmap a condition ANDed afterwards.
	both := []dynamo.Condition{{Field: dynamo.FieldTitle, Value: vocab[17]}, {Field: dynamo.FieldDescription, Value: vocab[42]}}
	for _, max := range []int{0, dynamo.DefaultItems} {
		plan := explain(t, s, dynamo.ItemQuery{SourceID: "big", Conditions: both, Max: max})
		if strings.Count(plan, "item_revisions_fields_trgm") != 1 || strings.Contains(plan, "BitmapAnd") {
			t.Errorf("title and description, max %d: not one scan of item_revisions_fields_trgm:\n%s", max, plan)
		}
	}
	// The values are hidden from the planner (genericConditionSQL), so
	// that a prepared keyword query keeps one generic plan rather than
	// being planned again for each word: PostgreSQL tries five custom
	// plans first.
	ctx := context.Background()
	for _, conds := range [][]dynamo.Condition{
		{{Field: dynamo.FieldTitle, Value: ""}},
		{{Field: dynamo.FieldTitle, Value: ""}, {Field: dynamo.FieldDescription, Value: ""}},
	} {
		pc, err := s.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conn := pc.Hijack() // a connection of its own, without prepared statements
		var sq query
		for i := range 20 {
			for k := range conds {
				conds[k].Value = vocab[i+100*k]
			}
			if sq, err = archiveQuery(dynamo.ItemQuery{SourceID: "big", Conditions: conds, Max: dynamo.DefaultItems, ItemsOnly: true}); err != nil {
				t.Fatal(err)
			}
			rows, err := conn.Query(ctx, sq.sql, sq.args...)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		}
		var generic, custom int64
		err = conn.QueryRow(ctx, `SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0)
			FROM pg_prepared_statements WHERE statement = $1`, sq.sql).Scan(&generic, &custom)
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if custom > 5 || generic < 15 {
			t.Errorf("%d conditions, 20 queries: %d custom plans and %d generic, want at most 5 custom", len(conds), custom, generic)
		}
	}
}

// A windowed archive query (the newest items first, then the older ones
// if the window holds too few matches) answers what the whole archive's
// matches, cut to the limit, hold: for words that fill the window and
// words that do not, alone and joined by or.
func TestWindowedArchiveAgrees(t *testing.T) {
	s := open(t)
	addSource(t, s, "big")
	vocab := fillArchive(t, s, "big", 2_000, 50)
	ctx := context.Background()
	for i := range 30 {
		conds := []dynamo.Condition{{Field: dynamo.FieldTitle, Value: vocab[i]}}
		if i%3 == 0 {
			conds = append(conds, dynamo.Condition{Or: true, Field: dynamo.FieldDescription, Value: vocab[i+100]})
		}
		all, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "big", Conditions: conds})
		if err != nil {
			t.Fatal(err)
		}
		for _, max := range []int{1, 2, 3} {
			if !windowed(conds, max) {
				t.Fatalf("%v, max %d: not windowed", conds, max)
			}
			got, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "big", Conditions: conds, Max: max})
			if err != nil {
				t.Fatal(err)
			}
			want := all[:min(max, len(all))]
			if len(got) != len(want) {
				t.Fatalf("%v, max %d: %d items, want %d", conds, max, len(got), len(want))
			}
			for k := range got {
				if got[k].Item.ID != want[k].Item.ID {
					t.Errorf("%v, max %d: item %d is %s, want %s", conds, max, k, got[k].Item.ID, want[k].Item.ID)
				}
			}
		}
	}
}

// A page of the archived feed reads a range of the items' numbers index,
// at the start of a 5,000-item archive as at its end.
func TestPageUsesIndex(t *testing.T) {
	s := open(t)
	addSource(t, s, "big")
	fillArchiveBulk(t, s, "big", 5_000)
	for _, q := range []dynamo.PageQuery{
		{SourceID: "big", From: 1, To: 100},
		{SourceID: "big", From: 4_901, To: 5_000},
		{SourceID: "big", From: 2_001, To: 2_100, Conditions: []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "ab"}}},
	} {
		sq, err := pageQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		plan := explainQuery(t, s, sq)
		if !strings.Contains(plan, "items_arch_seq") || strings.Contains(plan, "Seq Scan on items") {
			t.Errorf("page %d-%d does not read a range of items_arch_seq:\n%s", q.From, q.To, plan)
		}
	}
}

// A page of the aggregate's archived feed, and the search for the nearest
// older match, read a range of the aggregate numbers' index, at the start
// of a 5,000-item aggregate as at its end.
func TestAggregatePageUsesIndex(t *testing.T) {
	s := open(t)
	addSource(t, s, "big")
	fillArchiveBulk(t, s, "big", 5_000)
	bridge := []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "ab"}}
	var queries []query
	for _, q := range []struct {
		q        dynamo.AggregatePageQuery
		from, to int64
	}{
		{dynamo.AggregatePageQuery{}, 1, 100},
		{dynamo.AggregatePageQuery{}, 4_901, 5_000},
		{dynamo.AggregatePageQuery{Category: "x", Conditions: bridge}, 2_001, 2_100},
	} {
		page, err := aggregatePageQuery(q.q, q.from, q.to)
		if err != nil {
			t.Fatal(err)
		}
		older, err := aggregateOlderQuery(q.q, q.from)
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, page, older)
	}
	for _, sq := range queries {
		plan := explainQuery(t, s, sq)
		if !strings.Contains(plan, "items_agg_seq") || strings.Contains(plan, "Seq Scan on items") {
			t.Errorf("%v does not read a range of items_agg_seq:\n%s", sq.args, plan)
		}
	}
}
