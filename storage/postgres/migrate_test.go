package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// A database whose versions list their revisions in the format this store
// wrote before both stores shared archive.PackRevs's (the varint of each
// id's difference from the one before) is upgraded by migration 0002: every
// version rebuilds as it did, and new versions are stored after them.
func TestRevsMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	addSource(t, s, "a")
	var items []dynamo.Item
	for i := range 12 {
		items = append(items, item(i, "story"))
	}
	// Pages whose items move, come and go, so that the lists hold runs up
	// and down and single ids.
	record(t, s, "a", t0, doc("a", t0, items[:6]...))
	record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), slices.Concat(items[8:10], []dynamo.Item{items[5]}, items[:4])...))
	record(t, s, "a", t0.Add(2*time.Hour), doc("a", t0.Add(2*time.Hour), items[11], items[3], items[7], items[1]))
	var want []*dynamo.Resource
	for index := 3; index >= 1; index-- {
		d, _, err := s.Document(ctx, "a", index)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
	}

	// Write the lists back in the old format, as a database migrated up to
	// 0001 holds them, and forget 0002.
	rows, err := s.pool.Query(ctx, "SELECT seq, revs FROM versions WHERE source_id = 'a'")
	if err != nil {
		t.Fatal(err)
	}
	old := map[int][]byte{}
	for rows.Next() {
		var seq int
		var packed []byte
		if err := rows.Scan(&seq, &packed); err != nil {
			t.Fatal(err)
		}
		revs, err := archive.UnpackRevs(packed)
		if err != nil {
			t.Fatal(err)
		}
		var varints []byte
		prev := int64(0)
		for _, r := range revs {
			varints, prev = binary.AppendVarint(varints, r-prev), r
		}
		old[seq] = varints
	}
	if rows.Err() != nil || len(old) != 3 {
		t.Fatalf("read %d versions: %v", len(old), rows.Err())
	}
	for seq, varints := range old {
		if _, err := s.pool.Exec(ctx, "UPDATE versions SET revs = $2 WHERE source_id = 'a' AND seq = $1", seq, varints); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM schema_migrations WHERE version = 2"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	upgraded := openDSN(t, dsn)
	if got := upgraded.Applied(); !slices.Equal(got, []string{"0002_revs_as_runs"}) {
		t.Fatalf("reopening applied %v, want 0002_revs_as_runs", got)
	}
	for i, index := 0, 3; index >= 1; i, index = i+1, index-1 {
		d, _, err := upgraded.Document(ctx, "a", index)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d, want[i]) {
			t.Errorf("version %d after the migration:\n%+v\nwant\n%+v", index, d, want[i])
		}
	}
	res := record(t, upgraded, "a", t0.Add(3*time.Hour), doc("a", t0.Add(3*time.Hour), items[3], items[10]))
	if res.Version == nil || res.Version.Removed != 3 || len(res.NewItems) != 1 {
		t.Errorf("a version after the migration: %+v, want 1 new item and 3 removed", res)
	}
}

// A database from before issue 16 (items with SimHash fingerprints,
// duplicates with Hamming distances) is upgraded by migration 0004: a
// duplicate becomes rule "simhash", score 1 - distance/64, decided against
// its primary, and new polls number their items.
func TestStoriesMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	addSource(t, s, "a")
	addSource(t, s, "b")
	story, copyOf := item(1, "Storm hits coast"), item(2, "Storm hits the coast")
	record(t, s, "a", t0, doc("a", t0, story))
	primary := dynamo.ItemKey{SourceID: "a", ItemID: story.ID}
	dup := dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: "b", ItemID: copyOf.ID}, Primary: primary, Matched: primary, Rule: "text", Score: 0.9}
	at := t0.Add(time.Hour)
	if _, err := s.LeaseSource(ctx, "b", "test", at, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "b", Owner: "test", At: at, Document: doc("b", at, copyOf)},
		func(r dynamo.PollResult) dynamo.PollUpdate {
			u := decideFlat(at)(r)
			u.Duplicates = []dynamo.Duplicate{dup}
			return u
		}); err != nil {
		t.Fatal(err)
	}

	// Put the tables back as 0001 made them, and forget 0004.
	undo := []string{
		"ALTER TABLE duplicates ADD COLUMN distance integer NOT NULL DEFAULT 4",
		"ALTER TABLE duplicates DROP COLUMN rule, DROP COLUMN score, DROP COLUMN matched_source, DROP COLUMN matched_item",
		"DROP INDEX items_story_seq",
		"DROP INDEX items_first_seen",
		"ALTER TABLE items DROP COLUMN story_seq, ADD COLUMN fingerprint bigint NOT NULL DEFAULT 1",
		"CREATE INDEX items_fingerprints ON items (first_seen) WHERE fingerprint <> 0",
		"ALTER TABLE item_revisions ADD COLUMN fingerprint bigint NOT NULL DEFAULT 1",
		"DROP SEQUENCE story_seq",
		"DELETE FROM schema_migrations WHERE version = 4",
	}
	upgraded := undoMigration(t, s, dsn, undo, "0004_stories.sql")
	items, err := upgraded.Items(ctx, dynamo.ItemQuery{SourceID: "b"})
	if err != nil || len(items) != 1 {
		t.Fatalf("archive of b: %+v, %v", items, err)
	}
	if it := items[0]; it.DuplicateOf == nil || *it.DuplicateOf != primary || it.DuplicateRule != "simhash" ||
		it.DuplicateScore != 1-4.0/64 || it.DuplicateMatched == nil || *it.DuplicateMatched != primary {
		t.Errorf("the migrated duplicate: %+v", it)
	}
	at = t0.Add(2 * time.Hour)
	if _, err := upgraded.LeaseSource(ctx, "a", "test", at, time.Minute); err != nil {
		t.Fatal(err)
	}
	res, err := upgraded.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "test", At: at,
		Document: doc("a", at, story, item(3, "Later")), Stories: true}, decideFlat(at))
	if err != nil || res.StoriesSeq != 1 {
		t.Errorf("a story poll after the migration: numbered up to %d, %v; want 1", res.StoriesSeq, err)
	}
}

// TestItemNumbersMigration stores versions (one with an edited item), takes
// the item numbers and first revisions away as a database from before 0009
// would lack them, reopens, and checks that the migration gives every item
// the number and first revision that storing it gave.
func TestItemNumbersMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	for _, id := range []string{"a", "b"} {
		addSource(t, s, id)
		for v := range 4 {
			var items []dynamo.Item
			for n := v*2 + 4; n >= v*2; n-- {
				items = append(items, item(n, fmt.Sprintf("Story %d of %s", n, id)))
			}
			if v == 3 {
				items[4].Description, items[4].Text = "<p>edited</p>", "edited"
			}
			at := t0.Add(time.Duration(v) * time.Hour)
			record(t, s, id, at, doc(id, at, items...))
		}
	}
	numbers := func(s *Store) []string {
		t.Helper()
		rows, err := s.pool.Query(ctx, "SELECT source_id || ' ' || item_id || ' ' || arch_seq || ' ' || first_rev FROM items ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	stored := numbers(s)
	if len(stored) != 2*(5+3*2) {
		t.Fatalf("%d items stored, want 22", len(stored))
	}
	undo := []string{
		"DROP INDEX items_arch_seq",
		"ALTER TABLE items DROP COLUMN arch_seq, DROP COLUMN first_rev",
		"DELETE FROM schema_migrations WHERE version = 9",
	}
	upgraded := undoMigration(t, s, dsn, undo, "0009_item_numbers.sql")
	if got := numbers(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
}

// TestAggregateNumbersMigration numbers the items of a database written
// before aggregate numbers as polls number them (in the order first seen,
// which is here the order stored), and the counter continues from the last.
func TestAggregateNumbersMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	addSource(t, s, "a")
	addSource(t, s, "b")
	poll := func(s *Store, id string, v int) {
		var items []dynamo.Item
		for n := v*2 + 4; n >= v*2; n-- {
			items = append(items, item(n, fmt.Sprintf("Story %d of %s", n, id)))
		}
		at := t0.Add(time.Duration(v) * time.Hour)
		record(t, s, id, at, doc(id, at, items...))
	}
	for v := range 4 {
		poll(s, "a", v)
		poll(s, "b", v)
	}
	numbers := func(s *Store) []string {
		t.Helper()
		rows, err := s.pool.Query(ctx, `SELECT source_id || ' ' || arch_seq || ' ' || agg_seq || ' ' || (SELECT n FROM aggregate_counter)
			FROM items ORDER BY agg_seq`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	stored := numbers(s)
	if len(stored) != 2*(5+3*2) || stored[0] != "a 1 1 22" || stored[5] != "b 1 6 22" {
		t.Fatalf("numbered as stored: %v; want 22 items, a's five first, then b's", stored)
	}
	undo := []string{
		"DROP INDEX items_agg_seq, items_unnumbered",
		"ALTER TABLE items DROP COLUMN agg_seq",
		"DROP TABLE aggregate_counter",
		"DELETE FROM schema_migrations WHERE version = 12",
	}
	upgraded := undoMigration(t, s, dsn, undo, "0012_aggregate_numbers.sql")
	if got := numbers(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	poll(upgraded, "a", 4)
	if got := numbers(upgraded); len(got) != 24 || got[23] != "a 13 24 24" {
		t.Errorf("the next poll numbered %v; want items 23 and 24", got[22:])
	}
}

// undoMigration takes the database s stores in back to before migration
// with the statements undo, closes s and opens dsn again, checking that
// the reopening applied migration and nothing else.
func undoMigration(t *testing.T, s *Store, dsn string, undo []string, migration string) *Store {
	t.Helper()
	for _, q := range undo {
		if _, err := s.pool.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	upgraded := openDSN(t, dsn)
	if got := upgraded.Applied(); !slices.Equal(got, []string{migration}) {
		t.Fatalf("reopening applied %v, want %s", got, migration)
	}
	return upgraded
}

// TestFoldOnceMigration stores items whose fields fold in each way (ASCII
// letters only, non-ASCII letters, nothing to fold), puts back the folded
// copies that a database from before 0013 kept for every field with an
// upper-case letter, and checks that the migration leaves the copies that
// storing them now leaves and that conditions still find every item.
func TestFoldOnceMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	addSource(t, s, "a")
	titles := []string{"Council Budget", "École ouverte", "quiet news", "STRASSE or Straße", "\u212A for Kelvin"}
	var items []dynamo.Item
	for i, title := range titles {
		items = append(items, item(i, title))
	}
	record(t, s, "a", t0, doc("a", t0, items...))
	copies := func(s *Store) []string {
		t.Helper()
		rows, err := s.pool.Query(ctx, `SELECT title || ': ' || coalesce(title_f, '-') || ', ' || coalesce(link_f, '-') || ', ' || coalesce(text_f, '-')
			FROM item_revisions ORDER BY rev_id`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	stored := copies(s)
	if want := "Council Budget: -, -, -"; stored[0] != want {
		t.Fatalf("stored %q, want %q: ASCII lowering folds it, no copy", stored[0], want)
	}
	if want := "École ouverte: école ouverte, -, école ouverte body"; stored[1] != want {
		t.Fatalf("stored %q, want %q", stored[1], want)
	}
	var old []string
	for _, c := range []struct{ copy, field string }{{"title_f", "title"}, {"link_f", "link"}, {"text_f", "plain_text"}} {
		old = append(old, fmt.Sprintf(`UPDATE item_revisions SET %s = lower(%s COLLATE "C") WHERE %[1]s IS NULL AND lower(%[2]s COLLATE "C") <> %[2]s`, c.copy, c.field))
	}
	titleCopies := func(s *Store) int {
		t.Helper()
		var n int
		if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM item_revisions WHERE title_f IS NOT NULL").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := titleCopies(s); n != 2 {
		t.Fatalf("%d titles with a folded copy, want 2 (École, Kelvin)", n)
	}
	undo := append(old,
		"DROP INDEX item_revisions_fields_trgm",
		"CREATE INDEX item_revisions_title_trgm ON item_revisions USING gin (coalesce(title_f, title) gin_trgm_ops) WITH (fastupdate = off)",
		"CREATE INDEX item_revisions_link_trgm ON item_revisions USING gin (coalesce(link_f, link) gin_trgm_ops) WITH (fastupdate = off)",
		"CREATE INDEX item_revisions_text_trgm ON item_revisions USING gin (coalesce(text_f, plain_text) gin_trgm_ops) WITH (fastupdate = off)",
		"DELETE FROM schema_migrations WHERE version = 13")
	for _, q := range old {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if n := titleCopies(s); n != 4 {
		t.Fatalf("%d titles with a folded copy as before 0013, want 4 (all but the lower-case one)", n)
	}
	upgraded := undoMigration(t, s, dsn, undo[len(old):], "0013_fold_once.sql")
	if got := copies(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	for i, title := range titles {
		for _, value := range []string{title, strings.ToUpper(title), dynamo.FoldCase(title)} {
			got, err := upgraded.Items(ctx, dynamo.ItemQuery{SourceID: "a", Conditions: []dynamo.Condition{{Field: dynamo.FieldTitle, Value: value}}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(ids(got), items[i].ID) {
				t.Errorf("title condition %q: %v, want item %d among them", value, ids(got), i)
			}
		}
	}
}

// TestChannelsMigration stores versions of two sources whose channel
// changes and changes back, puts each version's channel back in its row as
// before 0014, reopens, and checks that every version reads the channel it
// was stored with, that each source keeps one row per distinct channel,
// and that a later poll finds its channel among them.
func TestChannelsMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	titles := []string{"News", "News", "Breaking news", "News", "Breaking news"}
	poll := func(s *Store, id string, v int, title string) {
		t.Helper()
		at := t0.Add(time.Duration(v) * time.Hour)
		d := doc(id, at, item(v, fmt.Sprintf("Story %d of %s", v, id)))
		d.Channel.Title = title
		record(t, s, id, at, d)
	}
	for _, id := range []string{"a", "b"} {
		addSource(t, s, id)
		for v, title := range titles {
			poll(s, id, v, id+" "+title)
		}
	}
	channels := func(s *Store) []string {
		t.Helper()
		var out []string
		for _, id := range []string{"a", "b"} {
			for index := 1; index <= len(titles); index++ {
				d, _, err := s.Head(ctx, id, index)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, id+" "+d.Channel.Title+" "+d.Channel.Link)
			}
		}
		return out
	}
	count := func(s *Store) int {
		t.Helper()
		var n int
		if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM channels").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	stored := channels(s)
	if stored[0] != "a a Breaking news http://127.0.0.1/a" || count(s) != 4 {
		t.Fatalf("stored %v in %d channel rows, want the newest first and 4 rows", stored, count(s))
	}
	undo := []string{
		"ALTER TABLE versions ADD COLUMN channel json",
		"UPDATE versions v SET channel = c.body FROM channels c WHERE c.channel_id = v.channel_id",
		"ALTER TABLE versions ALTER COLUMN channel SET NOT NULL, DROP COLUMN channel_id",
		"DROP TABLE channels",
		"DELETE FROM schema_migrations WHERE version = 14",
	}
	upgraded := undoMigration(t, s, dsn, undo, "0014_channels.sql")
	if got := channels(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	if n := count(upgraded); n != 4 {
		t.Errorf("%d channel rows after the migration, want 4 (two per source)", n)
	}
	poll(upgraded, "a", len(titles), "a News")
	if n := count(upgraded); n != 4 {
		t.Errorf("%d channel rows after a poll with a stored channel, want 4", n)
	}
	if d, _, err := upgraded.Head(ctx, "a", 1); err != nil || d.Channel.Title != "a News" {
		t.Errorf("the newest version's channel: %+v, %v", d, err)
	}
}

// TestIndexBytesMigration stores items, some with story numbers, puts back
// the indexes as before 0017 (a unique story_seq index with every item, the
// aggregate's index descending, 256 kB pending lists), reopens, and checks
// the indexes' new definitions, that story numbers stay unique, and that
// the aggregate, a keyword condition and a later poll answer as before.
func TestIndexBytesMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	for _, id := range []string{"a", "b"} {
		addSource(t, s, id)
		for v := range 4 {
			at := t0.Add(time.Duration(v) * time.Hour)
			var items []dynamo.Item
			for n := 0; n <= v; n++ {
				items = append(items, item(n, fmt.Sprintf("Story %d of %s", n, id)))
			}
			record(t, s, id, at, doc(id, at, items...))
		}
	}
	if _, err := s.pool.Exec(ctx, "UPDATE items SET story_seq = nextval('story_seq') WHERE arch_seq % 2 = 0"); err != nil {
		t.Fatal(err)
	}
	answers := func(s *Store) []string {
		t.Helper()
		agg, err := s.Aggregate(ctx, dynamo.AggregateQuery{Max: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range agg {
			out = append(out, it.SourceID+"/"+it.Item.ID)
		}
		found, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "b", Conditions: []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "story 2 of"}}})
		if err != nil {
			t.Fatal(err)
		}
		return append(out, "title: "+strings.Join(ids(found), " "))
	}
	stored := answers(s)
	if len(stored) != 9 || !strings.HasPrefix(stored[8], "title: ") || len(strings.Fields(stored[8])) != 2 {
		t.Fatalf("stored %v, want 8 items and one title match", stored)
	}
	undo := append(slices.Clone(perFieldTrgm),
		"ALTER INDEX item_revisions_title_trgm SET (gin_pending_list_limit = 256)",
		"ALTER INDEX item_revisions_link_trgm SET (gin_pending_list_limit = 256)",
		"ALTER INDEX item_revisions_text_trgm SET (gin_pending_list_limit = 256)",
		"DROP INDEX items_story_seq",
		"CREATE UNIQUE INDEX items_story_seq ON items (story_seq)",
		"DROP INDEX item_revisions_recent",
		"CREATE INDEX item_revisions_recent ON item_revisions (first_seen DESC) WHERE latest",
		"DELETE FROM schema_migrations WHERE version = 17",
	)
	upgraded := undoMigration(t, s, dsn, undo, "0017_index_bytes.sql")
	rows, err := upgraded.pool.Query(ctx, `SELECT c.relname || ' ' || pg_get_indexdef(c.oid) || ' ' || coalesce(array_to_string(c.reloptions, ','), '')
		FROM pg_class c WHERE c.relname IN ('items_story_seq', 'item_revisions_recent', 'item_revisions_title_trgm', 'item_revisions_link_trgm', 'item_revisions_text_trgm')
		ORDER BY c.relname`)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 5 {
		t.Fatalf("indexes after the migration: %v", defs)
	}
	for _, d := range defs {
		var want string
		switch {
		case strings.HasSuffix(strings.Fields(d)[0], "_trgm"):
			want = "gin_pending_list_limit=64"
		case strings.HasPrefix(d, "items_story_seq"):
			want = "(story_seq) WHERE (story_seq IS NOT NULL)"
		default:
			want = "(first_seen) WHERE latest"
		}
		if !strings.Contains(d, want) {
			t.Errorf("%s: want %q in it", d, want)
		}
	}
	if got := answers(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	_, err = upgraded.pool.Exec(ctx, "UPDATE items SET story_seq = (SELECT min(story_seq) FROM items) WHERE story_seq IS NULL AND arch_seq = 1")
	if err == nil || !strings.Contains(err.Error(), "items_story_seq") {
		t.Errorf("a story number given twice: %v, want the unique index's violation", err)
	}
	at := t0.Add(10 * time.Hour)
	record(t, upgraded, "a", at, doc("a", at, item(0, "Story 0 of a"), item(9, "Story 9 of a")))
	agg, err := upgraded.Aggregate(ctx, dynamo.AggregateQuery{Max: 1})
	if err != nil || len(agg) != 1 || agg[0].Item.Title != "Story 9 of a" {
		t.Errorf("the aggregate's newest item after a poll: %+v, %v", agg, err)
	}
}

// recordGrowing stores four hourly versions of source "a", version v with
// items 0 to 2v titled by title's format.
func recordGrowing(t *testing.T, s *Store, title string) {
	t.Helper()
	for v := range 4 {
		at := t0.Add(time.Duration(v) * time.Hour)
		var items []dynamo.Item
		for n := 0; n <= 2*v; n++ {
			items = append(items, item(n, fmt.Sprintf(title, n)))
		}
		record(t, s, "a", at, doc("a", at, items...))
	}
}

// TestSeenBrinRangesMigration stores items, puts back 0015's BRIN index
// (128 pages a range), reopens, and checks the index's new ranges and that
// a windowed keyword query, alone and or-joined, answers as before.
func TestSeenBrinRangesMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	addSource(t, s, "a")
	recordGrowing(t, s, "Story %d of a")
	queries := [][]dynamo.Condition{
		{{Field: dynamo.FieldTitle, Value: "story 2"}},
		{{Field: dynamo.FieldTitle, Value: "story 5"}, {Or: true, Field: dynamo.FieldDescription, Value: "story 1 "}},
	}
	answers := func(s *Store) []string {
		t.Helper()
		var out []string
		for _, conds := range queries {
			if !windowed(conds, 2) {
				t.Fatalf("%v: not a windowed query", conds)
			}
			found, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Conditions: conds, Max: 2})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.Join(ids(found), " "))
		}
		return out
	}
	stored := answers(s)
	if len(strings.Fields(stored[0])) != 1 || len(strings.Fields(stored[1])) != 2 {
		t.Fatalf("stored %q, want one match and two", stored)
	}
	undo := []string{
		"DROP INDEX item_revisions_seen",
		"CREATE INDEX item_revisions_seen ON item_revisions USING brin (first_seen) WITH (autosummarize = on)",
		"DELETE FROM schema_migrations WHERE version = 18",
	}
	upgraded := undoMigration(t, s, dsn, undo, "0018_seen_brin_ranges.sql")
	var def string
	if err := upgraded.pool.QueryRow(ctx, "SELECT pg_get_indexdef('item_revisions_seen'::regclass)").Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "brin (first_seen)") || !strings.Contains(def, "pages_per_range='16'") {
		t.Errorf("item_revisions_seen after the migration: %s", def)
	}
	if got := answers(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration: %q, stored %q", got, stored)
	}
}

// perFieldTrgm puts back the trigram indexes as they were before 0019: one
// index a field, each with a 64 kB pending list (0013, 0016, 0017).
var perFieldTrgm = []string{
	"DROP INDEX item_revisions_fields_trgm",
	`CREATE INDEX item_revisions_title_trgm ON item_revisions USING gin (coalesce(title_f, lower(title COLLATE "C")) gin_trgm_ops) WITH (fastupdate = on, gin_pending_list_limit = 64)`,
	`CREATE INDEX item_revisions_link_trgm ON item_revisions USING gin (coalesce(link_f, lower(link COLLATE "C")) gin_trgm_ops) WITH (fastupdate = on, gin_pending_list_limit = 64)`,
	`CREATE INDEX item_revisions_text_trgm ON item_revisions USING gin (coalesce(text_f, lower(plain_text COLLATE "C")) gin_trgm_ops) WITH (fastupdate = on, gin_pending_list_limit = 64)`,
}

// TestFieldsTrgmMigration stores items, puts back the per-field trigram
// indexes of before 0019, reopens, and checks that one index over the
// three fields replaces them, that conditions on each field, joined by and
// and by or, answer as before, and that a later poll's items are found.
func TestFieldsTrgmMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	addSource(t, s, "a")
	recordGrowing(t, s, "Story %d of A")
	queries := [][]dynamo.Condition{
		{{Field: dynamo.FieldTitle, Value: "STORY 2"}},
		{{Field: dynamo.FieldDescription, Value: "story 3 of a body"}},
		{{Field: dynamo.FieldLink, Value: "/4"}},
		{{Field: dynamo.FieldTitle, Value: "story"}, {Field: dynamo.FieldDescription, Value: "5 of a"}},
		{{Field: dynamo.FieldTitle, Value: "story 5"}, {Or: true, Field: dynamo.FieldDescription, Value: "story 1 "}},
		{{Field: dynamo.FieldTitle, Value: "story 6"}, {Field: dynamo.FieldLink, Value: "/6"}, {Field: dynamo.FieldDescription, Value: "body"}},
	}
	answers := func(s *Store) []string {
		t.Helper()
		var out []string
		for _, conds := range queries {
			for _, max := range []int{0, 2} {
				found, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Conditions: conds, Max: max})
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, strings.Join(ids(found), " "))
			}
		}
		return out
	}
	stored := answers(s)
	for i, a := range stored {
		if a == "" {
			t.Fatalf("query %v: no match stored", queries[i/2])
		}
	}
	undo := append(slices.Clone(perFieldTrgm), "DELETE FROM schema_migrations WHERE version = 19")
	upgraded := undoMigration(t, s, dsn, undo, "0019_fields_trgm.sql")
	rows, err := upgraded.pool.Query(ctx, "SELECT indexname || ' ' || indexdef FROM pg_indexes WHERE indexname LIKE 'item_revisions_%_trgm'")
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 1 || !strings.HasPrefix(defs[0], "item_revisions_fields_trgm ") ||
		!strings.Contains(defs[0], `USING gin (COALESCE(title_f, lower((title COLLATE "C"))) gin_trgm_ops, COALESCE(link_f, lower((link COLLATE "C"))) gin_trgm_ops, COALESCE(text_f, lower((plain_text COLLATE "C"))) gin_trgm_ops)`) ||
		!strings.Contains(defs[0], "gin_pending_list_limit='64'") {
		t.Fatalf("trigram indexes after the migration: %q", defs)
	}
	if got := answers(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%q\nstored:\n%q", got, stored)
	}
	at := t0.Add(10 * time.Hour)
	record(t, upgraded, "a", at, doc("a", at, item(0, "Story 0 of A"), item(9, "Story 9 of A")))
	found, err := upgraded.Items(ctx, dynamo.ItemQuery{SourceID: "a", Conditions: []dynamo.Condition{
		{Field: dynamo.FieldTitle, Value: "story 9"}, {Field: dynamo.FieldDescription, Value: "9 of a"}}})
	if err != nil || len(found) != 1 || found[0].Item.Title != "Story 9 of A" {
		t.Errorf("a later poll's item by title and description: %+v, %v", found, err)
	}
}

// TestItemsHotMigration stores items, puts back items' full pages of
// before 0020, reopens, and checks that the table keeps a tenth of each new
// page free and that a later poll whose items left the page marks them gone
// (its last_seen update, which the free room keeps on the row's page) and
// keeps the others shown (last seen by the poll).
func TestItemsHotMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	addSource(t, s, "a")
	recordGrowing(t, s, "Story %d of a")
	undo := []string{"ALTER TABLE items RESET (fillfactor)", "DELETE FROM schema_migrations WHERE version = 20"}
	upgraded := undoMigration(t, s, dsn, undo, "0020_items_hot.sql")
	var options string
	if err := upgraded.pool.QueryRow(ctx, "SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = 'items'::regclass").Scan(&options); err != nil {
		t.Fatal(err)
	}
	if options != "fillfactor=90" {
		t.Errorf("items' options after the migration: %q, want fillfactor=90", options)
	}
	at := t0.Add(10 * time.Hour)
	record(t, upgraded, "a", at, doc("a", at, item(0, "Story 0 of a"), item(9, "Story 9 of a")))
	found, err := upgraded.Items(ctx, dynamo.ItemQuery{SourceID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	gone := map[string]bool{}
	for _, it := range found {
		gone[it.Item.Title] = it.LastSeen.Before(at)
	}
	want := map[string]bool{"Story 0 of a": false, "Story 9 of a": false}
	for n := 1; n <= 6; n++ {
		want[fmt.Sprintf("Story %d of a", n)] = true
	}
	if !maps.Equal(gone, want) {
		t.Errorf("items gone after a poll: %v, want %v", gone, want)
	}
}

// TestItemsOnceMigration stores items by polls that number stories, puts
// back the index entries that such polls left before 0021 (two more row
// versions an item, each with an entry in every index of items), reopens,
// and checks that the rebuilt indexes are smaller, that the aggregate's
// page and the story numbers read back as before, and that a later story
// poll numbers its new item.
func TestItemsOnceMigration(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	addSource(t, s, "a")
	for v := 1; v <= 30; v++ {
		d := storetest.SizePage("a", v, false)
		recordStory(t, s, "a", d.Timestamp, d)
	}
	read := func(s *Store) string {
		page, err := s.AggregatePage(ctx, dynamo.AggregatePageQuery{Size: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range page.Items {
			out = append(out, fmt.Sprintf("%d %s %s %v", it.Number, it.Item.ID, it.Item.Title, it.LastSeen))
		}
		var stories string
		if err := s.pool.QueryRow(ctx, "SELECT string_agg(item_id || ':' || story_seq, ',' ORDER BY story_seq) FROM items").Scan(&stories); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "\n") + "\n" + stories
	}
	indexBytes := func(s *Store) int64 {
		var n int64
		if err := s.pool.QueryRow(ctx, "SELECT pg_indexes_size('items')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := read(s)
	// Each update a new row version with an entry in every index, as the
	// story number's and the aggregate number's updates were (the b-tree
	// keeps one entry for equal keys, so the story numbers change): ten,
	// for the few items to fill pages, and one to put the numbers back.
	for _, q := range append(slices.Repeat([]string{"UPDATE items SET story_seq = story_seq + 1000000"}, 10),
		"UPDATE items SET story_seq = story_seq - 10000000") {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, "VACUUM items"); err != nil {
		t.Fatal(err)
	}
	bloated := indexBytes(s)
	upgraded := undoMigration(t, s, dsn, []string{"DELETE FROM schema_migrations WHERE version = 21"}, "0021_items_once.sql")
	if got := indexBytes(upgraded); got >= bloated {
		t.Errorf("items' indexes after the migration: %d bytes, before %d: want fewer", got, bloated)
	}
	if got := read(upgraded); got != before {
		t.Errorf("after the migration:\n%s\nwant\n%s", got, before)
	}
	d := storetest.SizePage("a", 31, false)
	res := recordStory(t, upgraded, "a", d.Timestamp, d)
	if len(res.NewItems) != 1 || res.StoriesSeq == 0 {
		t.Fatalf("a later story poll: %d new items, numbered up to %d", len(res.NewItems), res.StoriesSeq)
	}
	var agg, story *int64
	if err := upgraded.pool.QueryRow(ctx, "SELECT agg_seq, story_seq FROM items WHERE item_id = $1",
		res.NewItems[0].Item.ID).Scan(&agg, &story); err != nil {
		t.Fatal(err)
	}
	if agg == nil || story == nil || *story != res.StoriesSeq {
		t.Errorf("the later poll's item: aggregate number %v, story number %v, want both (story %d)", agg, story, res.StoriesSeq)
	}
}
