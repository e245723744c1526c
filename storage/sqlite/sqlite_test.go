package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// t0 is the tests' clock origin, in whole seconds.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// addSource registers an html source due at t0.
func addSource(t testing.TB, s *Store, id string) {
	t.Helper()
	src := &dynamo.Source{ID: id, URL: "http://127.0.0.1/" + id, Kind: dynamo.KindHTML,
		Interval: dynamo.Duration(time.Hour), CreatedAt: t0, State: dynamo.PollState{NextPoll: t0}}
	if err := s.CreateSource(context.Background(), src); err != nil {
		t.Fatalf("CreateSource(%s): %v", id, err)
	}
}

// page returns a document of n items of which the first fresh are new in
// version v: items are numbered so that version v shows stories
// v*fresh .. v*fresh+n-1, newest first.
func page(source string, v, n, fresh int) *dynamo.Resource {
	at := t0.Add(time.Duration(v) * time.Minute)
	r := &dynamo.Resource{URL: "http://127.0.0.1/" + source, RSSID: source, Timestamp: at,
		Channel: dynamo.Channel{Title: source + " news", Link: "http://127.0.0.1/" + source}}
	top := v*fresh + n - 1
	for i := range n {
		num := top - i
		link := fmt.Sprintf("http://127.0.0.1/%s/story/%d", source, num)
		text := fmt.Sprintf("Story number %d of %s, with enough words to look like a summary of the news.", num, source)
		r.Items = append(r.Items, dynamo.Item{Index: i + 1, ID: dynamo.ItemID(link, true, "", ""),
			Title: fmt.Sprintf("Headline %d: Ärger über Straße", num), Link: link,
			Description: "<p>" + text + "</p>", Text: text})
	}
	return r
}

// store leases source id and records d as the poll at its timestamp.
func store(t testing.TB, s *Store, id string, d *dynamo.Resource) dynamo.PollResult {
	t.Helper()
	res, err := storeErr(s, id, d)
	if err != nil {
		t.Fatalf("store %s: %v", id, err)
	}
	return res
}

func storeErr(s *Store, id string, d *dynamo.Resource) (dynamo.PollResult, error) {
	ctx := context.Background()
	if _, err := s.LeaseSource(ctx, id, "test", d.Timestamp, time.Minute); err != nil {
		return dynamo.PollResult{}, err
	}
	return s.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: "test", At: d.Timestamp, Document: d},
		func(r dynamo.PollResult) dynamo.PollUpdate {
			status := dynamo.StatusUnchanged
			if r.Version != nil {
				status = dynamo.StatusChanged
			}
			return dynamo.PollUpdate{
				State: dynamo.PollState{LastPoll: d.Timestamp, NextPoll: d.Timestamp.Add(time.Hour), LastStatus: status},
				Log:   dynamo.PollLogEntry{At: d.Timestamp, Status: status, NewItems: len(r.NewItems)},
			}
		})
}

// TestMigrationsApplyOnce opens a new file (every migration applies),
// reopens it (none does), then adds a newer migration, as an upgrade would,
// and a failing one, which leaves nothing behind.
func TestMigrationsApplyOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	first, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatalf("migrations: %v", err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if !slices.Equal(first.Applied(), names) || len(names) == 0 {
		t.Errorf("first Open applied %v, want %v", first.Applied(), names)
	}
	addSource(t, first, "a")
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	again := openPath(t, path)
	if len(again.Applied()) != 0 {
		t.Errorf("second Open applied %v, want nothing", again.Applied())
	}
	applied, err := migrate(context.Background(), again.w, ms)
	if err != nil || len(applied) != 0 {
		t.Errorf("migrate on an up-to-date file applied %v, %v", applied, err)
	}

	// An older file gets exactly the migrations it lacks, once.
	later := append(slices.Clone(ms), migration{Version: 9999, Name: "9999_later.sql",
		SQL: "CREATE TABLE later (x INTEGER) STRICT; INSERT INTO later VALUES (1);"})
	for round, want := range [][]string{{"9999_later.sql"}, nil} {
		applied, err := migrate(context.Background(), again.w, later)
		if err != nil || !slices.Equal(applied, want) {
			t.Errorf("round %d: migrate with a newer migration applied %v (%v), want %v", round, applied, err, want)
		}
	}
	var rows int
	if err := again.r.QueryRow("SELECT count(*) FROM later").Scan(&rows); err != nil || rows != 1 {
		t.Errorf("the newer migration ran %d times (%v), want once", rows, err)
	}
	broken := append(slices.Clone(ms), migration{Version: 10000, Name: "10000_broken.sql",
		SQL: "CREATE TABLE half (x INTEGER); SELECT no_such_function();"})
	if _, err := migrate(context.Background(), again.w, broken); err == nil || !strings.Contains(err.Error(), "10000_broken.sql") {
		t.Errorf("a failing migration: error %v, want one naming it", err)
	}
	if err := again.r.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = 'half'").Scan(&rows); err != nil || rows != 0 {
		t.Errorf("a failing migration left %d of its tables (%v)", rows, err)
	}
	var recordedNames int
	if err := again.r.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&recordedNames); err != nil || recordedNames != len(names)+1 {
		t.Errorf("schema_migrations holds %d rows (%v), want %d", recordedNames, err, len(names)+1)
	}
	if _, err := again.Source(context.Background(), "a"); err != nil {
		t.Errorf("source lost across reopening: %v", err)
	}
}

func TestOpenSettings(t *testing.T) {
	s := open(t)
	for pragma, want := range map[string]string{"journal_mode": "wal", "foreign_keys": "1", "synchronous": "2",
		"busy_timeout": fmt.Sprint(busyTimeout.Milliseconds())} {
		var got string
		if err := s.w.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil || got != want {
			t.Errorf("writer PRAGMA %s = %q (%v), want %q", pragma, got, err, want)
		}
	}
	var readOnly string
	if err := s.r.QueryRow("PRAGMA query_only").Scan(&readOnly); err != nil || readOnly != "1" {
		t.Errorf("readers' query_only = %q (%v), want 1", readOnly, err)
	}
}

func TestOpenRefusesBadPaths(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{"", filepath.Join(dir, "a?mode=ro"), filepath.Join(dir, "missing", "dir", "x.db")} {
		if s, err := Open(context.Background(), path); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", path)
		}
	}
	notDB := filepath.Join(dir, "text.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(context.Background(), notDB); err == nil {
		s.Close()
		t.Errorf("Open of a text file succeeded")
	}
}

// TestReopenReadsEverything writes through one Store, closes it, and reads
// every kind of record back through another.
func TestReopenReadsEverything(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	addSource(t, s, "a")
	addSource(t, s, "b")
	var docs []*dynamo.Resource
	for v := range 5 {
		d := page("a", v, 10, 2)
		docs = append(docs, d)
		store(t, s, "a", d)
	}
	b := page("b", 0, 3, 3)
	b.Items[0].Extensions = []dynamo.Extension{{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "date", Value: "2026-03-01T10:00:00Z"}}
	store(t, s, "b", b)
	if err := s.PutSetting(ctx, "policy", `{"name":"smart"}`); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSource(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	type snapshot struct {
		Sources, Collections []dynamo.Source
		Versions             []dynamo.Version
		Archive              []dynamo.ArchivedItem
		Polls                []dynamo.PollLogEntry
		Stats                dynamo.Stats
		Setting              string
		Docs                 []string
	}
	read := func(s *Store) snapshot {
		var snap snapshot
		var err error
		errs := []error{}
		snap.Sources, err = s.Sources(ctx)
		errs = append(errs, err)
		snap.Collections, err = s.Collections(ctx)
		errs = append(errs, err)
		snap.Versions, err = s.Versions(ctx, "a")
		errs = append(errs, err)
		snap.Archive, err = s.Items(ctx, dynamo.ItemQuery{SourceID: "a"})
		errs = append(errs, err)
		snap.Polls, err = s.Polls(ctx, "a", 100)
		errs = append(errs, err)
		snap.Stats, err = s.Stats(ctx)
		errs = append(errs, err)
		snap.Setting, err = s.Setting(ctx, "policy")
		errs = append(errs, err)
		for _, id := range []string{"a", "b"} {
			for index := 1; ; index++ {
				d, _, err := s.Document(ctx, id, index)
				if errors.Is(err, dynamo.ErrNotFound) {
					break
				}
				errs = append(errs, err)
				if d != nil {
					snap.Docs = append(snap.Docs, string(d.XML()))
				}
			}
		}
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("reading the store: %v", err)
		}
		return snap
	}
	before := read(s)
	if len(before.Docs) != 6 || len(before.Archive) != 18 {
		t.Fatalf("before reopening: %d documents and %d archive items, want 6 and 18", len(before.Docs), len(before.Archive))
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	after := read(openPath(t, path))
	if !reflect.DeepEqual(before, after) {
		t.Errorf("after reopening the store reads\n%+v\nwant\n%+v", after, before)
	}
	if after.Docs[0] != string(docs[4].XML()) {
		t.Errorf("newest document after reopening:\n%s\nwant\n%s", after.Docs[0], docs[4].XML())
	}
}

func TestConditionErrors(t *testing.T) {
	s := open(t)
	addSource(t, s, "a")
	store(t, s, "a", page("a", 0, 3, 3))
	ctx := context.Background()
	tooMany := make([]dynamo.Condition, maxConditions+1)
	for i := range tooMany {
		tooMany[i] = dynamo.Condition{Field: dynamo.FieldTitle, Value: "x"}
	}
	queries := map[string]dynamo.ItemQuery{
		"unknown field":  {SourceID: "a", Conditions: []dynamo.Condition{{Field: "author", Value: "x"}}},
		"too many":       {SourceID: "a", Conditions: tooMany},
		"version, field": {SourceID: "a", Version: 1, Conditions: []dynamo.Condition{{Field: "", Value: "x"}}},
	}
	for name, q := range queries {
		if _, err := s.Items(ctx, q); !errors.Is(err, dynamo.ErrInvalid) {
			t.Errorf("%s: error %v, want ErrInvalid", name, err)
		}
	}
	most := tooMany[:maxConditions]
	if _, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Conditions: most}); err != nil {
		t.Errorf("%d conditions: %v", len(most), err)
	}
	if _, err := s.Aggregate(ctx, dynamo.AggregateQuery{Conditions: tooMany}); !errors.Is(err, dynamo.ErrInvalid) {
		t.Errorf("Aggregate with too many conditions: error %v, want ErrInvalid", err)
	}
}

// TestWriteErrorsLeaveNothingHalfDone fills the file to a page limit, the
// way a full disk would, and checks that the failing poll is an error that
// writes nothing, and that the store works again once there is room.
func TestWriteErrorsLeaveNothingHalfDone(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	addSource(t, s, "a")
	store(t, s, "a", page("a", 0, 5, 5))
	var pages int
	if err := s.w.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	before, err := s.Source(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	big := page("a", 1, 400, 400)
	_, err = storeErr(s, "a", big)
	if err == nil {
		t.Fatal("storing 400 new items in a full file succeeded")
	}
	if !strings.Contains(err.Error(), "record poll of a") {
		t.Errorf("error %q does not say what failed", err)
	}
	after, err := s.Source(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if after.Summary.Versions != before.Summary.Versions || after.Summary.Items != before.Summary.Items ||
		!after.State.NextPoll.Equal(before.State.NextPoll) {
		t.Errorf("a failed write changed the source: %+v, was %+v", after.Summary, before.Summary)
	}
	if items, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a"}); err != nil || len(items) != 5 {
		t.Errorf("archive after a failed write: %d items, %v; want 5", len(items), err)
	}

	if _, err := s.w.Exec("PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	res := store(t, s, "a", big)
	if res.Version == nil || res.Version.Seq != 2 || len(res.NewItems) != 400 {
		t.Errorf("storing once there is room: %+v", res.Version)
	}
}

// TestNoWriteWhileUnchanged checks the promise that makes storage grow
// with content: an unchanged poll writes no item or revision row.
func TestNoWriteWhileUnchanged(t *testing.T) {
	s := open(t)
	addSource(t, s, "a")
	d := page("a", 0, 50, 50)
	store(t, s, "a", d)
	count := func() (n [3]int) {
		for i, table := range []string{"items", "item_revisions", "versions"} {
			if err := s.r.QueryRow("SELECT count(*) FROM " + table).Scan(&n[i]); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	want := count()
	for i := 1; i <= 20; i++ {
		d.Timestamp = t0.Add(time.Duration(i) * time.Minute)
		store(t, s, "a", d)
	}
	if got := count(); got != want {
		t.Errorf("after 20 unchanged polls items, revisions, versions = %v, want %v", got, want)
	}
}

// TestArchiveQueryUsesIndex checks that the archive is read through its
// index in order rather than sorted, which keeps a limited query's cost
// independent of the archive's size.
func TestArchiveQueryUsesIndex(t *testing.T) {
	s := open(t)
	for _, itemsOnly := range []bool{false, true} {
		shape := archive.ItemShapeOf(dynamo.ItemQuery{ItemsOnly: itemsOnly})
		joined := queryPlan(t, s, archiveItemsSQL(shape, "1"), "a", 10)
		if !strings.Contains(joined, "item_revisions_archive") || strings.Contains(joined, "TEMP B-TREE") || strings.Contains(joined, "MATERIALIZE") {
			t.Errorf("archive query plan (items only: %v) %q does not read item_revisions_archive in order, joining as it goes", itemsOnly, joined)
		}
	}
}

// TestLookupsUseIndexes checks that finding items by title reads the
// titles' keys in item_revisions_title, revisions by their item's key
// item_revisions_key, that the next story number is
// read from the partial index of numbered items, not by scanning items,
// and that the items first seen since a time are found by their shown
// revisions' first_seen.
func TestLookupsUseIndexes(t *testing.T) {
	s := open(t)
	if plan := queryPlan(t, s, itemsByTitle, "a", `["x"]`); !strings.Contains(plan, "USING INDEX item_revisions_title") {
		t.Errorf("items by title: plan %q does not use item_revisions_title", plan)
	}
	for name, q := range map[string]string{"revision of a key and hash": revisionOf, "moving the shown revision": moveLatest} {
		if plan := queryPlan(t, s, q, 1, "a", "k"); !strings.Contains(plan, "USING INDEX item_revisions_key") {
			t.Errorf("%s: plan %q does not use item_revisions_key", name, plan)
		}
	}
	if plan := queryPlan(t, s, lastStory); !strings.Contains(plan, "COVERING INDEX items_story_seq") {
		t.Errorf("last story number: plan %q does not use items_story_seq", plan)
	}
	const itemByKey = "SEARCH i USING PRIMARY KEY (source_id=? AND key=?)"
	if plan := queryPlan(t, s, storyItemsSince, 0); !strings.Contains(plan, "SEARCH r USING INDEX item_revisions_recent (first_seen>?)") ||
		!strings.Contains(plan, itemByKey) {
		t.Errorf("story items since a time: plan %q does not read item_revisions_recent, then each item by its key", plan)
	}
	// Items are found by their stored keys (migration 0020): the archive's
	// join and the write path's lookup of a page's keys.
	if plan := queryPlan(t, s, archiveItemsSQL(itemShapeOf(dynamo.ItemQuery{SourceID: "a"}), "1"), "a", 50); !strings.Contains(plan, itemByKey) {
		t.Errorf("archive: plan %q does not find each item by its key", plan)
	}
	if plan := queryPlan(t, s, knownItems, "a", `["x"]`); !strings.Contains(plan, itemByKey) ||
		!strings.Contains(plan, "SEARCH r USING INTEGER PRIMARY KEY (rowid=?)") {
		t.Errorf("stored items among keys: plan %q does not find each item by its key, then its shown revision", plan)
	}
}

// TestStoryItemsCallbackMayUseStore reads and writes the store from the
// StoryItems callback, which runs while the rows are being read.
func TestStoryItemsCallbackMayUseStore(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	addSource(t, s, "a")
	store(t, s, "a", page("a", 0, 20, 20))
	calls := 0
	err := s.StoryItems(ctx, time.Time{}, func(e dynamo.StoryItem) error {
		calls++
		if _, err := s.Source(ctx, e.Key.SourceID); err != nil {
			return err
		}
		return s.PutSetting(ctx, "last", e.Key.ItemID)
	})
	if err != nil || calls != 20 {
		t.Fatalf("StoryItems: %d calls, %v; want 20", calls, err)
	}
	if last, err := s.Setting(ctx, "last"); err != nil || last == "" {
		t.Errorf("setting written in the callback: %q, %v", last, err)
	}
}

// TestTwoHandlesLeaseOnce opens one file twice, as two processes would,
// and leases from both at once: the file's write lock, taken up front by
// IMMEDIATE transactions, hands each source to one owner.
func TestTwoHandlesLeaseOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	handles := []*Store{openPath(t, path), openPath(t, path)}
	const sources = 60
	for i := range sources {
		addSource(t, handles[0], fmt.Sprintf("s%02d", i))
	}
	got := make([][]string, 6)
	errs := make([]error, len(got))
	done := make(chan int)
	for w := range got {
		go func() {
			defer func() { done <- w }()
			s := handles[w%2]
			for {
				list, err := s.LeaseDue(ctx, fmt.Sprintf("w%d", w), t0, 2, time.Hour, dynamo.LeaseHosts{})
				if err != nil || len(list) == 0 {
					errs[w] = err
					return
				}
				for _, src := range list {
					got[w] = append(got[w], src.ID)
				}
			}
		}()
	}
	for range got {
		<-done
	}
	owner := map[string]int{}
	for w, ids := range got {
		if errs[w] != nil {
			t.Errorf("worker %d: %v", w, errs[w])
		}
		for _, id := range ids {
			if prev, ok := owner[id]; ok {
				t.Errorf("%s leased by workers %d and %d", id, prev, w)
			}
			owner[id] = w
		}
	}
	if len(owner) != sources {
		t.Errorf("%d sources leased, want %d", len(owner), sources)
	}
}

// A file from before issue 16 (items with SimHash fingerprints, duplicates
// with Hamming distances) is upgraded by migration 0003: a duplicate
// becomes rule "simhash", score 1 - distance/64, decided against its
// primary, and new polls number their items.
func TestStoriesMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	addSource(t, s, "a")
	addSource(t, s, "b")
	pa, pb := page("a", 0, 1, 1), page("b", 1, 1, 1)
	store(t, s, "a", pa)
	primary := dynamo.ItemKey{SourceID: "a", ItemID: pa.Items[0].ID}
	dup := dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: "b", ItemID: pb.Items[0].ID}, Primary: primary, Matched: primary,
		Rule: "text", Score: 0.9}
	at := pb.Timestamp
	if _, err := s.LeaseSource(ctx, "b", "test", at, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "b", Owner: "test", At: at, Document: pb},
		func(dynamo.PollResult) dynamo.PollUpdate {
			return dynamo.PollUpdate{State: dynamo.PollState{LastPoll: at, NextPoll: at.Add(time.Hour)},
				Log: dynamo.PollLogEntry{At: at, Status: dynamo.StatusChanged}, Duplicates: []dynamo.Duplicate{dup}}
		}); err != nil {
		t.Fatal(err)
	}

	// Put the tables back as 0001 made them, and forget 0003.
	undo := append(slices.Clone(undoItemsByKeyBytes),
		`CREATE TABLE duplicates_old (source_id TEXT NOT NULL, item_id TEXT NOT NULL, primary_source TEXT NOT NULL,
			primary_item TEXT NOT NULL, distance INTEGER NOT NULL, PRIMARY KEY (source_id, item_id)) STRICT, WITHOUT ROWID`,
		"INSERT INTO duplicates_old SELECT source_id, item_id, primary_source, primary_item, 4 FROM duplicates",
		"DROP TABLE duplicates",
		"ALTER TABLE duplicates_old RENAME TO duplicates",
		"CREATE INDEX duplicates_primary ON duplicates (primary_source, primary_item)",
		"DROP INDEX items_story_seq", // items_first_seen, which 0003 made too, is gone since 0014
		"ALTER TABLE items DROP COLUMN story_seq",
		"ALTER TABLE items ADD COLUMN fingerprint INTEGER NOT NULL DEFAULT 1",
		"CREATE INDEX items_fingerprints ON items (first_seen) WHERE fingerprint <> 0",
		"ALTER TABLE item_revisions ADD COLUMN fingerprint INTEGER NOT NULL DEFAULT 1",
		"DELETE FROM schema_migrations WHERE version = 3",
		// 0003 makes items_first_seen again, which 0014 drops, before
		// 0020 drops the column it indexes, as in a file from before 0003.
		"DELETE FROM schema_migrations WHERE version = 14",
	)
	upgraded := undoMigration(t, s, path, undo, "0003_stories.sql", "0014_no_items_first_seen.sql", "0020_items_by_key_bytes.sql")
	items, err := upgraded.Items(ctx, dynamo.ItemQuery{SourceID: "b"})
	if err != nil || len(items) != 1 {
		t.Fatalf("archive of b: %+v, %v", items, err)
	}
	if it := items[0]; it.DuplicateOf == nil || *it.DuplicateOf != primary || it.DuplicateRule != "simhash" ||
		it.DuplicateScore != 1-4.0/64 || it.DuplicateMatched == nil || *it.DuplicateMatched != primary {
		t.Errorf("the migrated duplicate: %+v", it)
	}
	next := page("a", 2, 2, 1)
	if _, err := upgraded.LeaseSource(ctx, "a", "test", next.Timestamp, time.Minute); err != nil {
		t.Fatal(err)
	}
	res, err := upgraded.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "test", At: next.Timestamp, Document: next,
		Stories: true}, func(dynamo.PollResult) dynamo.PollUpdate { return dynamo.PollUpdate{} })
	if err != nil || len(res.NewItems) == 0 || res.StoriesSeq != int64(len(res.NewItems)) {
		t.Errorf("a story poll after the migration: %d new items numbered up to %d, %v", len(res.NewItems), res.StoriesSeq, err)
	}
}

// TestItemNumbersMigration stores versions (one with an edited item), takes
// the item numbers and first revisions away as a file from before 0008 would
// lack them, reopens, and checks that the migration gives every item the
// number and first revision that storing it gave.
func TestItemNumbersMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	for _, id := range []string{"a", "b"} {
		addSource(t, s, id)
		for v := range 4 {
			d := page(id, v, 5, 2)
			if v == 3 {
				d.Items[4].Description, d.Items[4].Text = "<p>edited</p>", "edited"
			}
			store(t, s, id, d)
		}
	}
	numbers := func(s *Store) []string {
		t.Helper()
		return lines(t, s, "SELECT source_id || ' ' || item_key || ' ' || arch_seq || ' ' || rev_id FROM item_revisions WHERE arch_seq IS NOT NULL ORDER BY 1")
	}
	stored := numbers(s)
	if len(stored) != 2*(5+3*2) {
		t.Fatalf("%d items stored, want 22", len(stored))
	}
	undo := append(slices.Concat(undoItemsByKeyBytes, undoNumbersOnRevisions),
		"DROP INDEX items_arch_seq",
		"ALTER TABLE items DROP COLUMN arch_seq",
		"ALTER TABLE items DROP COLUMN first_rev",
		"DELETE FROM schema_migrations WHERE version = 8",
	)
	upgraded := undoMigration(t, s, path, undo, "0008_item_numbers.sql", "0016_numbers_on_revisions.sql", "0020_items_by_key_bytes.sql")
	if got := numbers(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
}

// TestPageUsesIndex checks that a page of the archived feed, and the search
// for the nearest older match, read a range of the items' numbers index
// rather than the source's archive.
func TestPageUsesIndex(t *testing.T) {
	s := open(t)
	where, _, err := conditionSQL([]dynamo.Condition{{Field: dynamo.FieldTitle, Value: "bridge"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		what, sql string
		args      []any
	}{
		{"page", pageSQL("1"), []any{"a", 101, 200}},
		{"page with a condition", pageSQL(where), []any{"a", 101, 200, "bridge"}},
		{"older match", olderSQL(where), []any{"a", 101, "bridge"}},
	} {
		joined := queryPlan(t, s, q.sql, q.args...)
		if !strings.Contains(joined, "SEARCH r USING INDEX item_revisions_arch_seq (source_id=? AND arch_seq") || strings.Contains(joined, "TEMP B-TREE") {
			t.Errorf("%s: plan %q does not read a range of item_revisions_arch_seq in order", q.what, joined)
		}
	}
}

// TestAggregateNumbersMigration numbers the items of a file written before
// aggregate numbers as polls number them (in the order first seen, which
// is here the order stored), and the counter continues from the last.
func TestAggregateNumbersMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	addSource(t, s, "a")
	addSource(t, s, "b")
	for v := range 4 {
		for _, id := range []string{"a", "b"} {
			store(t, s, id, page(id, v, 5, 2))
		}
	}
	numbers := func(s *Store) []string {
		t.Helper()
		return lines(t, s, `SELECT source_id || ' ' || arch_seq || ' ' || agg_seq || ' ' || (SELECT n FROM aggregate_counter)
			FROM item_revisions WHERE arch_seq IS NOT NULL ORDER BY agg_seq`)
	}
	stored := numbers(s)
	if len(stored) != 2*(5+3*2) || stored[0] != "a 1 1 22" || stored[5] != "b 1 6 22" {
		t.Fatalf("numbered as stored: %v; want 22 items, a's five first, then b's", stored)
	}
	undo := append(slices.Concat(undoItemsByKeyBytes, undoNumbersOnRevisions),
		"DROP INDEX items_agg_seq",
		"DROP INDEX items_unnumbered",
		"ALTER TABLE items DROP COLUMN agg_seq",
		"DROP TABLE aggregate_counter",
		"DELETE FROM schema_migrations WHERE version = 11",
	)
	upgraded := undoMigration(t, s, path, undo, "0011_aggregate_numbers.sql", "0016_numbers_on_revisions.sql", "0020_items_by_key_bytes.sql")
	if got := numbers(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	store(t, upgraded, "a", page("a", 4, 5, 2))
	if got := numbers(upgraded); len(got) != 24 || got[23] != "a 13 24 24" {
		t.Errorf("the next poll numbered %v; want items 23 and 24", got[22:])
	}
}

// TestAggregatePageUsesIndex checks that a page of the aggregate's archived
// feed, and the search for the nearest older match, read a range of the
// aggregate numbers' index, in order, rather than every item.
func TestAggregatePageUsesIndex(t *testing.T) {
	s := open(t)
	where, _, err := aggregateWhere(dynamo.AggregatePageQuery{Category: "c", Conditions: []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "bridge"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		what, sql, want string
		args            []any
	}{
		{"page", aggregatePageSQL(where), "SEARCH r USING INDEX item_revisions_agg_seq (agg_seq>? AND agg_seq<?)", []any{101, 200, "c", "bridge"}},
		{"older match", aggregateOlderSQL(where), "SEARCH r USING INDEX item_revisions_agg_seq (agg_seq<?)", []any{101, nil, "c", "bridge"}},
	} {
		joined := queryPlan(t, s, q.sql, q.args...)
		if !strings.Contains(joined, q.want) || strings.Contains(joined, "TEMP B-TREE") {
			t.Errorf("%s: plan %q does not read a range of item_revisions_agg_seq in order", q.what, joined)
		}
	}
}

// lines answers query's rows, each a single text column.
func lines(t *testing.T, s *Store, query string) []string {
	t.Helper()
	rows, err := s.r.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	return out
}

// undoMigration takes the file s stores in at path back to before
// migration with the statements undo, closes s and opens the file again,
// checking that the reopening applied migration and nothing else.
func undoMigration(t *testing.T, s *Store, path string, undo []string, migrations ...string) *Store {
	t.Helper()
	for _, q := range undo {
		if _, err := s.w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	upgraded := openPath(t, path)
	if got := upgraded.Applied(); !slices.Equal(got, migrations) {
		t.Fatalf("reopening applied %v, want %v", got, migrations)
	}
	return upgraded
}

// queryPlan answers SQLite's plan for query with args, its steps joined
// by "; ".
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.r.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}

// TestFoldOnceMigration stores items whose fields fold in each way (ASCII
// letters only, non-ASCII letters, nothing to fold), puts back the folded
// copies that a file from before 0012 kept for every field with an
// upper-case letter, and checks that the migration leaves the copies that
// storing them now leaves and that conditions still find every item.
func TestFoldOnceMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	addSource(t, s, "a")
	titles := []string{"Council Budget", "École ouverte", "quiet news", "STRASSE or Straße", "\u212A for Kelvin"}
	d := page("a", 0, len(titles), 1)
	for i, title := range titles {
		d.Items[i].Title = title
	}
	store(t, s, "a", d)
	copies := func(s *Store) []string {
		t.Helper()
		return lines(t, s, `SELECT title || ': ' || coalesce(title_f, '-') || ', ' || coalesce(link_f, '-') || ', ' || coalesce(text_f, '-')
			FROM item_revisions ORDER BY rev_id`)
	}
	titleCopies := func(s *Store) string {
		t.Helper()
		return lines(t, s, "SELECT count(*) FROM item_revisions WHERE title_f IS NOT NULL")[0]
	}
	stored := copies(s)
	if want := "Council Budget: -, -, -"; stored[0] != want {
		t.Fatalf("stored %q, want %q: ASCII lowering folds it, no copy", stored[0], want)
	}
	if n := titleCopies(s); n != "2" {
		t.Fatalf("%s titles with a folded copy, want 2 (École, Kelvin)", n)
	}
	for _, c := range []struct{ copy, field string }{{"title_f", "title"}, {"link_f", "link"}, {"text_f", "plain_text"}} {
		q := fmt.Sprintf("UPDATE item_revisions SET %s = lower(%s) WHERE %[1]s IS NULL AND lower(%[2]s) <> %[2]s", c.copy, c.field)
		if _, err := s.w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if n := titleCopies(s); n != "4" {
		t.Fatalf("%s titles with a folded copy as before 0012, want 4 (all but the lower-case one)", n)
	}
	upgraded := undoMigration(t, s, path, []string{"DELETE FROM schema_migrations WHERE version = 12"}, "0012_fold_once.sql")
	if got := copies(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	ctx := context.Background()
	for i, title := range titles {
		for _, value := range []string{title, strings.ToUpper(title), dynamo.FoldCase(title)} {
			got, err := upgraded.Items(ctx, dynamo.ItemQuery{SourceID: "a", Conditions: []dynamo.Condition{{Field: dynamo.FieldTitle, Value: value}}})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, it := range got {
				found = found || it.Item.ID == d.Items[i].ID
			}
			if !found {
				t.Errorf("title condition %q: %d items, not item %d", value, len(got), i)
			}
		}
	}
}

// TestTextOnceMigration stores items, puts the file back as it was before
// 0013 (descriptions stored whole, whole titles in item_revisions_title, a
// rowid versions table, every item in items_story_seq), and checks that the migration packs every description
// so that the items and the versions read back as stored, and that the
// file is sound.
func TestTextOnceMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	addSource(t, s, "a")
	d := storetest.SizePage("a", 1, true)
	d.Items[0].Description, d.Items[0].Text = "", ""
	d.Items[1].Description, d.Items[1].Text = "<p>Fish &amp; chips</p>", "Fish & chips"
	d.Items[2].Description = "<p>a description that is not its plain text at all</p>"
	store(t, s, "a", d)
	store(t, s, "a", storetest.SizePage("a", 2, false))
	ctx := context.Background()
	read := func(s *Store) []string {
		t.Helper()
		var out []string
		for _, q := range []dynamo.ItemQuery{{SourceID: "a"}, {SourceID: "a", Version: 1}} {
			items, err := s.Items(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				out = append(out, it.Item.ID+": "+it.Item.Description+" | "+it.Item.Text)
			}
		}
		return out
	}
	stored := read(s)
	if len(stored) != 2*50+1 {
		t.Fatalf("%d items read, want 101", len(stored))
	}
	upgraded := undoMigration(t, s, path, append(slices.Clone(undoVersionHeads),
		"ALTER TABLE item_revisions ADD COLUMN description_whole TEXT",
		"UPDATE item_revisions SET description_whole = description",
		"ALTER TABLE item_revisions DROP COLUMN description",
		"ALTER TABLE item_revisions DROP COLUMN markup_ops",
		"ALTER TABLE item_revisions RENAME COLUMN description_whole TO description",
		"DROP INDEX item_revisions_title",
		"CREATE INDEX item_revisions_title ON item_revisions (source_id, title)",
		"DROP INDEX items_story_seq",
		"CREATE UNIQUE INDEX items_story_seq ON items (story_seq)",
		"CREATE TABLE versions_rowid AS SELECT * FROM versions",
		"DROP TABLE versions",
		"ALTER TABLE versions_rowid RENAME TO versions",
		"DELETE FROM schema_migrations WHERE version = 13",
	), "0013_text_once.sql", "0017_version_heads.sql")
	if got := read(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	if got := lines(t, upgraded, `SELECT sum(length(markup_ops)) || ' of ' || sum(length(description)) FROM item_revisions
			HAVING sum(length(markup_ops)) * 10 > sum(length(description))`); len(got) > 0 {
		t.Errorf("%s bytes of descriptions packed, want less than a tenth (their tags and links)", got[0])
	}
	if got := lines(t, upgraded, "SELECT sql FROM sqlite_schema WHERE name = 'versions'"); !strings.Contains(got[0], "WITHOUT ROWID") {
		t.Errorf("versions after the migration: %s", got[0])
	}
	if got := lines(t, upgraded, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check: %v", got)
	}
	store(t, upgraded, "a", storetest.SizePage("a", 3, true))
	if got := read(upgraded); len(got) != 2*50+2 {
		t.Errorf("%d items read after storing a version, want 102", len(got))
	}
}

// TestNoItemsFirstSeenMigration puts items_first_seen back as it was
// before 0014, reopens, and checks that the index is gone and that
// StoryItems reads the same items since a time as before.
func TestNoItemsFirstSeenMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	for _, id := range []string{"a", "b"} {
		addSource(t, s, id)
		for v := range 3 {
			store(t, s, id, page(id, v, 5, 2))
		}
	}
	since := func(s *Store) []string {
		t.Helper()
		var keys []string
		err := s.StoryItems(context.Background(), t0.Add(time.Minute), func(it dynamo.StoryItem) error {
			keys = append(keys, it.Key.SourceID+"/"+it.Key.ItemID)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	stored := since(s)
	if len(stored) != 8 {
		t.Fatalf("%d items since the second version, want 8 (two new in each of two versions of two sources)", len(stored))
	}
	upgraded := undoMigration(t, s, path, append(slices.Clone(undoItemsByKeyBytes),
		"CREATE INDEX items_first_seen ON items (first_seen)",
		"DELETE FROM schema_migrations WHERE version = 14",
	), "0014_no_items_first_seen.sql", "0020_items_by_key_bytes.sql")
	if got := since(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration: %v, before: %v", got, stored)
	}
	if got := lines(t, upgraded, "SELECT count(*) FROM sqlite_schema WHERE name = 'items_first_seen'"); got[0] != "0" {
		t.Errorf("items_first_seen is still there")
	}
}

// TestRevisionKeysMigration stores versions, puts the revisions' unique key
// back as it was before 0015, reopens, and checks that the table lost it
// for item_revisions_key, that the archive and a version read back as
// stored, that the file is sound, and that a poll storing a revision of a
// known item and one of a new item still finds and adds the right rows.
func TestRevisionKeysMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	addSource(t, s, "a")
	for v := 1; v <= 3; v++ {
		store(t, s, "a", storetest.SizePage("a", v, v == 2))
	}
	read := func(s *Store) []string {
		t.Helper()
		return archiveAndVersion(t, s, "a", 2)
	}
	stored := read(s)
	upgraded := undoMigration(t, s, path, append(slices.Clone(undoNumbersOnRevisions),
		"DROP INDEX item_revisions_key",
		"CREATE UNIQUE INDEX item_revisions_unique ON item_revisions (source_id, item_key, rhash)",
		"DELETE FROM schema_migrations WHERE version = 15",
		"DELETE FROM schema_migrations WHERE version = 18",
	), "0015_revision_keys.sql", "0016_numbers_on_revisions.sql", "0018_binary_item_keys.sql")
	if got := read(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	if got := lines(t, upgraded, `SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema
			WHERE tbl_name = 'item_revisions' AND type = 'index' ORDER BY name)`); got[0] != "item_revisions_agg_seq item_revisions_arch_seq item_revisions_archive item_revisions_key item_revisions_recent item_revisions_title item_revisions_unnumbered" {
		t.Errorf("indexes of item_revisions: %s", got[0])
	}
	if got := lines(t, upgraded, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check: %v", got)
	}
	revisions := func() int {
		n, err := strconv.Atoi(lines(t, upgraded, "SELECT count(*) FROM item_revisions")[0])
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := revisions()
	d := storetest.SizePage("a", 3, false)
	d.Items[0].Title += " (updated)"
	d.Items = append(d.Items, storetest.SizePage("a", 100, false).Items[0])
	d.Timestamp = d.Timestamp.Add(time.Hour)
	store(t, upgraded, "a", d)
	if got := revisions(); got != before+2 {
		t.Errorf("%d revisions after a poll with a changed and a new item, want %d", got, before+2)
	}
	if got := lines(t, upgraded, "SELECT count(*) FROM item_revisions WHERE latest GROUP BY item_key HAVING count(*) > 1"); len(got) > 0 {
		t.Errorf("items with more than one shown revision: %v", got)
	}
}

// undoNumbersOnRevisions puts the items' numbers and first revisions back
// on items as they were before 0016.
var undoNumbersOnRevisions = []string{
	"ALTER TABLE items ADD COLUMN arch_seq INTEGER",
	"ALTER TABLE items ADD COLUMN first_rev INTEGER",
	"ALTER TABLE items ADD COLUMN agg_seq INTEGER",
	`UPDATE items SET arch_seq = r.arch_seq, agg_seq = r.agg_seq, first_rev = r.rev_id
		FROM item_revisions r WHERE r.source_id = items.source_id AND r.item_key = items.item_id AND r.arch_seq IS NOT NULL`,
	"CREATE UNIQUE INDEX items_arch_seq ON items (source_id, arch_seq)",
	"CREATE UNIQUE INDEX items_agg_seq ON items (agg_seq)",
	"CREATE INDEX items_unnumbered ON items (source_id) WHERE agg_seq IS NULL",
	"DROP INDEX item_revisions_arch_seq",
	"DROP INDEX item_revisions_agg_seq",
	"DROP INDEX item_revisions_unnumbered",
	"ALTER TABLE item_revisions DROP COLUMN arch_seq",
	"ALTER TABLE item_revisions DROP COLUMN agg_seq",
	"DELETE FROM schema_migrations WHERE version = 16",
}

// TestNumbersOnRevisionsMigration stores versions of two sources (one
// with an edited item, so that an item has two revisions, and a version
// not yet published), puts the numbers back on items as before 0016,
// reopens, and checks that each item's numbers are on its first revision
// and only there, that the archived feed's pages and the aggregate's read
// back as before, the indexes, PRAGMA integrity_check, and that the next
// poll numbers its new items after the others.
func TestNumbersOnRevisionsMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	for _, id := range []string{"a", "b"} {
		addSource(t, s, id)
	}
	for v := range 4 {
		for _, id := range []string{"a", "b"} {
			d := page(id, v, 5, 2)
			if v == 3 && id == "a" {
				d.Items[4].Description, d.Items[4].Text = "<p>edited</p>", "edited"
			}
			store(t, s, id, d)
		}
	}
	ctx := context.Background()
	read := func(s *Store) []string {
		t.Helper()
		var out []string
		for _, id := range []string{"a", "b"} {
			for from := int64(1); from <= 13; from += 4 {
				p, err := s.Page(ctx, dynamo.PageQuery{SourceID: id, From: from, To: from + 3})
				if err != nil {
					t.Fatalf("page from %d of %s: %v", from, id, err)
				}
				for _, it := range p.Items {
					out = append(out, fmt.Sprintf("%s page from %d (last %d, older %d): %d %s %s", id, from, p.Last, p.Older, it.Number, it.Item.ID, it.Item.Text))
				}
			}
		}
		for n := int64(1); n <= 3; n++ {
			p, err := s.AggregatePage(ctx, dynamo.AggregatePageQuery{Number: n, Size: 8})
			if err != nil {
				t.Fatalf("aggregate page %d: %v", n, err)
			}
			for _, it := range p.Items {
				out = append(out, fmt.Sprintf("aggregate page %d: %d %s/%s %s", n, it.Number, it.SourceID, it.Item.ID, it.Item.Text))
			}
		}
		return out
	}
	numbers := func(s *Store) []string {
		t.Helper()
		return lines(t, s, `SELECT r.source_id || ' ' || r.item_key || ' ' || r.arch_seq || ' ' || r.agg_seq || ' ' || r.rev_id
			FROM item_revisions r WHERE r.arch_seq IS NOT NULL ORDER BY r.agg_seq`)
	}
	stored, numbered := read(s), numbers(s)
	if len(numbered) != 22 || len(stored) < 22 {
		t.Fatalf("%d items numbered, %d lines of pages read; want 22 items", len(numbered), len(stored))
	}
	upgraded := undoMigration(t, s, path, undoNumbersOnRevisions, "0016_numbers_on_revisions.sql")
	if got := read(upgraded); !slices.Equal(got, stored) {
		t.Errorf("pages after the migration:\n%v\nstored:\n%v", got, stored)
	}
	if got := numbers(upgraded); !slices.Equal(got, numbered) {
		t.Errorf("numbers after the migration:\n%v\nstored:\n%v", got, numbered)
	}
	if got := lines(t, upgraded, `SELECT count(*) FROM item_revisions r
			WHERE (r.arch_seq IS NOT NULL) <> (r.rev_id = (SELECT min(f.rev_id) FROM item_revisions f WHERE f.source_id = r.source_id AND f.item_key = r.item_key))`); got[0] != "0" {
		t.Errorf("%s revisions numbered that are not their item's first, or first and not numbered", got[0])
	}
	if got := lines(t, upgraded, `SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema
			WHERE tbl_name = 'items' AND type = 'index' ORDER BY name)`); got[0] != "items_story_seq" {
		t.Errorf("indexes of items: %s", got[0])
	}
	if got := lines(t, upgraded, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check: %v", got)
	}
	store(t, upgraded, "b", page("b", 4, 5, 2))
	if got := numbers(upgraded); len(got) != 24 || !strings.HasPrefix(got[22], "b ") || !strings.Contains(got[23], " 13 24 ") {
		t.Errorf("the next poll numbered %v; want b's items 12 and 13, aggregate 23 and 24", got[22:])
	}
}

// undoVersionHeads puts the versions' URLs, RSS ids, titles and
// timestamps back in their rows as before 0017.
var undoVersionHeads = []string{
	"ALTER TABLE versions RENAME COLUMN stamp_offset TO stamp",
	"UPDATE versions SET stamp = stamp + seen_at",
	`UPDATE versions SET url = c.url, rss_id = c.rss_id, title = c.title
		FROM channels c WHERE c.channel_id = versions.channel_id AND c.url IS NOT NULL`,
	"ALTER TABLE channels DROP COLUMN url",
	"ALTER TABLE channels DROP COLUMN rss_id",
	"ALTER TABLE channels DROP COLUMN title",
	// Before 0017 a channel's key was archive.Channel's alone, which no
	// key since matches.
	"UPDATE channels SET chash = randomblob(16)",
	"DELETE FROM schema_migrations WHERE version = 17",
}

// TestVersionHeadsMigration stores versions of two sources whose
// documents' URLs, RSS ids, titles and timestamps vary (a timestamp before
// the poll, one after, the zero time), puts them back in the version rows
// as before 0017, reopens, and checks that every version's list entry,
// head and document read back as stored, PRAGMA integrity_check, and that
// polls after it store one channels row per distinct channel, URL and RSS
// id, and nothing of the three in their version rows.
func TestVersionHeadsMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	vary := func(d *dynamo.Resource, v int) *dynamo.Resource {
		switch v % 4 {
		case 1:
			d.URL += "/moved"
			d.Timestamp = d.Timestamp.Add(-90 * time.Minute)
		case 2:
			d.RSSID, d.Channel.Title = "other", "Other title"
			d.Timestamp = d.Timestamp.Add(time.Second)
		case 3:
			d.Timestamp = time.Time{}
		}
		return d
	}
	for _, id := range []string{"a", "b"} {
		addSource(t, s, id)
		for v := range 4 {
			d := vary(page(id, v, 3, 1), v)
			if _, err := storeErr(s, id, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	read := func(s *Store) []string {
		t.Helper()
		var out []string
		for _, id := range []string{"a", "b"} {
			list, err := s.Versions(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range list {
				out = append(out, fmt.Sprintf("%s %d: %s %s %q %d+%d-%d", id, v.Index, v.SeenAt, v.Hash, v.Title, v.Items, v.Added, v.Removed))
				for _, get := range []func(context.Context, string, int) (*dynamo.Resource, *dynamo.Version, error){s.Head, s.Document} {
					doc, ver, err := get(ctx, id, v.Index)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, fmt.Sprintf("  %s %s %s %+v %d items; %s %q", doc.URL, doc.RSSID, doc.Timestamp, doc.Channel, len(doc.Items), ver.SeenAt, ver.Title))
				}
			}
		}
		return out
	}
	stored := read(s)
	if len(stored) != 2*4*3 {
		t.Fatalf("%d lines read, want 24", len(stored))
	}
	upgraded := undoMigration(t, s, path, undoVersionHeads, "0017_version_heads.sql")
	if got := read(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", strings.Join(got, "\n"), strings.Join(stored, "\n"))
	}
	if got := lines(t, upgraded, "SELECT count(*) FROM versions WHERE url = ''"); got[0] != "0" {
		t.Errorf("%s versions stored before lost their URL", got[0])
	}
	if got := lines(t, upgraded, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check: %v", got)
	}
	var docs []*dynamo.Resource
	for v := 4; v < 8; v++ {
		docs = append(docs, vary(page("a", v, 3, 1), v))
		store(t, upgraded, "a", docs[len(docs)-1])
	}
	// Versions 5 to 8: a's first document again (its fourth differs only
	// in its timestamp), the URL moved, the RSS id and title changed.
	if got := lines(t, upgraded, `SELECT count(*) || ' ' || count(DISTINCT channel_id) || ' ' || sum(url = '' AND rss_id = '' AND title = '')
			FROM versions WHERE source_id = 'a' AND seq > 4`); got[0] != "4 3 4" {
		t.Errorf("versions after the migration, their channels rows, those without their own URL, RSS id and title: %s, want 4 3 4", got[0])
	}
	if got := lines(t, upgraded, "SELECT count(*) FROM channels WHERE source_id = 'a' AND url IS NOT NULL"); got[0] != "3" {
		t.Errorf("%s channels rows of a with a URL, want 3 (one per distinct channel, URL and RSS id)", got[0])
	}
	for i, d := range docs {
		doc, ver, err := upgraded.Head(ctx, "a", 4-i)
		if err != nil {
			t.Fatal(err)
		}
		if doc.URL != d.URL || doc.RSSID != d.RSSID || !doc.Timestamp.Equal(d.Timestamp) || doc.Channel.Title != d.Channel.Title ||
			ver.Title != d.Channel.Title || ver.Seq != 5+i {
			t.Errorf("head of version %d: %s %s %s %q %q; stored %s %s %s %q", ver.Seq, doc.URL, doc.RSSID, doc.Timestamp, doc.Channel.Title,
				ver.Title, d.URL, d.RSSID, d.Timestamp, d.Channel.Title)
		}
	}
}

// TestBinaryItemKeysMigration stores versions, puts the revisions' item
// keys back as text as before 0018 and renames one item to a key that is
// not 32 hex digits (a key 0018 keeps as text), reopens, and checks that
// every revision reads the same key, that hex keys are stored as their 16
// bytes, that the archive and a version read back as stored, that the file
// is sound, and that a poll finds the stored revisions by their keys.
func TestBinaryItemKeysMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	addSource(t, s, "a")
	for v := 1; v <= 3; v++ {
		store(t, s, "a", storetest.SizePage("a", v, v == 2))
	}
	read := func(s *Store) []string {
		t.Helper()
		return archiveAndVersion(t, s, "a", 1)
	}
	// Item 1 is only on version 1; it gets a key of another form.
	old := storetest.SizePage("a", 1, false).Items[49].ID
	legacy := "urn:legacy:" + old
	stored := read(s)
	for i := range stored {
		stored[i] = strings.Replace(stored[i], old+": ", legacy+": ", 1)
	}
	for _, q := range slices.Concat(undoItemsByKeyBytes, []string{
		`CREATE TABLE item_revisions_old (
			rev_id INTEGER PRIMARY KEY, source_id TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
			item_key TEXT NOT NULL, rhash BLOB NOT NULL, doc_id TEXT, title TEXT NOT NULL, link TEXT NOT NULL,
			plain_text TEXT NOT NULL, image TEXT, extensions TEXT, id_from_content INTEGER NOT NULL, title_f TEXT,
			link_f TEXT, text_f TEXT, first_seen INTEGER NOT NULL, first_pos INTEGER NOT NULL,
			first_index INTEGER NOT NULL, latest INTEGER NOT NULL, media TEXT, markup_ops BLOB NOT NULL DEFAULT x'',
			description TEXT GENERATED ALWAYS AS (dynamo_markup(markup_ops, plain_text)) VIRTUAL,
			arch_seq INTEGER, agg_seq INTEGER) STRICT`,
		`INSERT INTO item_revisions_old (rev_id, source_id, item_key, rhash, doc_id, title, link, plain_text, image,
			extensions, id_from_content, title_f, link_f, text_f, first_seen, first_pos, first_index, latest, media,
			markup_ops, arch_seq, agg_seq)
		SELECT rev_id, source_id, item_key, rhash, doc_id, title, link, plain_text, image,
			extensions, id_from_content, title_f, link_f, text_f, first_seen, first_pos, first_index, latest, media,
			markup_ops, arch_seq, agg_seq FROM item_revisions`,
		"DROP TABLE item_revisions",
		"ALTER TABLE item_revisions_old RENAME TO item_revisions",
		"UPDATE item_revisions SET item_key = '" + legacy + "' WHERE item_key = '" + old + "'",
		"UPDATE items SET item_id = '" + legacy + "' WHERE item_id = '" + old + "'",
		"CREATE INDEX item_revisions_archive ON item_revisions (source_id, first_seen DESC, first_pos) WHERE latest",
		"CREATE INDEX item_revisions_recent ON item_revisions (first_seen DESC) WHERE latest",
		"CREATE INDEX item_revisions_title ON item_revisions (source_id, dynamo_title_key(title))",
		"CREATE INDEX item_revisions_key ON item_revisions (source_id, dynamo_title_key(item_key))",
		"CREATE UNIQUE INDEX item_revisions_arch_seq ON item_revisions (source_id, arch_seq) WHERE arch_seq IS NOT NULL",
		"CREATE UNIQUE INDEX item_revisions_agg_seq ON item_revisions (agg_seq) WHERE agg_seq IS NOT NULL",
		"CREATE INDEX item_revisions_unnumbered ON item_revisions (source_id) WHERE arch_seq IS NOT NULL AND agg_seq IS NULL",
		"DELETE FROM schema_migrations WHERE version = 18",
	}) {
		if _, err := s.w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const keys = "SELECT rev_id || ' ' || item_key FROM item_revisions ORDER BY rev_id"
	before := lines(t, s, keys)
	upgraded := undoMigration(t, s, path, nil, "0018_binary_item_keys.sql", "0020_items_by_key_bytes.sql")
	if got := lines(t, upgraded, keys); !slices.Equal(got, before) {
		t.Errorf("keys after the migration:\n%v\nbefore:\n%v", got, before)
	}
	if got := lines(t, upgraded, `SELECT count(*) FILTER (WHERE typeof(key) = 'text' AND key = '`+legacy+`') || ' ' ||
			count(*) FILTER (WHERE typeof(key) = 'blob' AND length(key) = 16) || ' ' || count(*) FROM item_revisions`); got[0] != fmt.Sprintf("1 %d %d", len(before)-1, len(before)) {
		t.Errorf("keys as text, as 16 bytes, all: %s; want the other key as text, every hex key as its bytes", got[0])
	}
	if got := read(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	if got := lines(t, upgraded, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check: %v", got)
	}
	revisions := func() int {
		n, err := strconv.Atoi(lines(t, upgraded, "SELECT count(*) FROM item_revisions")[0])
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	n := revisions()
	d := storetest.SizePage("a", 4, false)
	d.Items[1].Title += " (updated)"
	if res := store(t, upgraded, "a", d); len(res.NewItems) != 1 {
		t.Errorf("%d new items in a poll with one, want 1", len(res.NewItems))
	}
	if got := revisions(); got != n+2 {
		t.Errorf("%d revisions after a poll with a changed and a new item, want %d", got, n+2)
	}
	if got := lines(t, upgraded, "SELECT count(*) FROM item_revisions WHERE latest GROUP BY item_key HAVING count(*) > 1"); len(got) > 0 {
		t.Errorf("items with more than one shown revision: %v", got)
	}
}

// TestPollLogMigration logs polls, two of them at the same instant, puts
// the poll log back as it was before 0019 (a rowid table and its index),
// reopens, and checks that the polls read back in the same order, that
// the file is sound, and that a poll at an instant already logged is
// logged after the one there.
func TestPollLogMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	addSource(t, s, "a")
	for v := 1; v <= 3; v++ {
		d := storetest.SizePage("a", v, false)
		store(t, s, "a", d)
		store(t, s, "a", d) // unchanged, logged at the same instant
	}
	ctx := context.Background()
	read := func(s *Store) []string {
		t.Helper()
		polls, err := s.Polls(ctx, "a", 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range polls {
			out = append(out, fmt.Sprintf("%s %s %d", p.At.Format(time.RFC3339Nano), p.Status, p.NewItems))
		}
		return out
	}
	stored := read(s)
	if len(stored) != 6 {
		t.Fatalf("%d polls logged, want 6", len(stored))
	}
	upgraded := undoMigration(t, s, path, []string{
		`CREATE TABLE poll_log_old (id INTEGER PRIMARY KEY, source_id TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
			at INTEGER NOT NULL, status TEXT NOT NULL, duration_ns INTEGER NOT NULL, new_items INTEGER NOT NULL,
			error TEXT NOT NULL, http_status INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0) STRICT`,
		`INSERT INTO poll_log_old (source_id, at, status, duration_ns, new_items, error, http_status, bytes)
			SELECT source_id, at, status, duration_ns, new_items, error, http_status, bytes FROM poll_log ORDER BY source_id, at, id`,
		"DROP TABLE poll_log",
		"ALTER TABLE poll_log_old RENAME TO poll_log",
		"CREATE INDEX poll_log_source ON poll_log (source_id, at DESC, id DESC)",
		"DELETE FROM schema_migrations WHERE version = 19",
	}, "0019_poll_log_by_source.sql")
	if got := read(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	if got := lines(t, upgraded, "SELECT group_concat(id, ' ') FROM (SELECT id FROM poll_log ORDER BY at, id)"); got[0] != "1 2 1 2 1 2" {
		t.Errorf("ids after the migration: %s, want 1 2 for each instant", got[0])
	}
	if got := lines(t, upgraded, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check: %v", got)
	}
	if got := lines(t, upgraded, "SELECT count(*) FROM sqlite_schema WHERE name = 'poll_log_source'"); got[0] != "0" {
		t.Errorf("poll_log_source is still there")
	}
	store(t, upgraded, "a", storetest.SizePage("a", 3, false))
	if got := read(upgraded); len(got) != 7 || got[0] != stored[0] || !slices.Equal(got[1:], stored) {
		t.Errorf("after one more poll at the newest instant:\n%v\nbefore:\n%v", got, stored)
	}
}

// archiveAndVersion reads source id's archive and its version n, an item a
// line (key, title and description), for migration tests to compare what a
// store reads before and after a migration.
func archiveAndVersion(t *testing.T, s *Store, id string, n int) []string {
	t.Helper()
	var out []string
	for _, q := range []dynamo.ItemQuery{{SourceID: id}, {SourceID: id, Version: n}} {
		items, err := s.Items(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			out = append(out, it.Item.ID+": "+it.Item.Title+" | "+it.Item.Description)
		}
	}
	return out
}

// undoItemsByKeyBytes puts items and duplicates back as they were before
// 0020: items keyed by the key's text, with its first_seen, first_pos and
// first_index (from its shown revision), duplicates with foreign keys to
// it.
var undoItemsByKeyBytes = []string{
	"DROP TRIGGER items_deleted",
	`CREATE TABLE items_old (source_id TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE, item_id TEXT NOT NULL,
		first_seen INTEGER NOT NULL, first_seq INTEGER NOT NULL, first_pos INTEGER NOT NULL, first_index INTEGER NOT NULL,
		last_seen INTEGER, latest_rev INTEGER NOT NULL, story_seq INTEGER, PRIMARY KEY (source_id, item_id)) STRICT, WITHOUT ROWID`,
	`INSERT INTO items_old SELECT i.source_id, i.item_id, r.first_seen, i.first_seq, r.first_pos, r.first_index,
		i.last_seen, i.latest_rev, i.story_seq FROM items i JOIN item_revisions r ON r.rev_id = i.latest_rev`,
	"DROP TABLE items",
	"ALTER TABLE items_old RENAME TO items",
	"CREATE UNIQUE INDEX items_story_seq ON items (story_seq) WHERE story_seq IS NOT NULL",
	`CREATE TABLE duplicates_old (source_id TEXT NOT NULL, item_id TEXT NOT NULL, primary_source TEXT NOT NULL,
		primary_item TEXT NOT NULL, rule TEXT NOT NULL, score REAL NOT NULL, matched_source TEXT, matched_item TEXT,
		PRIMARY KEY (source_id, item_id),
		FOREIGN KEY (source_id, item_id) REFERENCES items (source_id, item_id) ON DELETE CASCADE,
		FOREIGN KEY (primary_source, primary_item) REFERENCES items (source_id, item_id) ON DELETE CASCADE,
		FOREIGN KEY (matched_source, matched_item) REFERENCES items (source_id, item_id) ON DELETE SET NULL) STRICT, WITHOUT ROWID`,
	"INSERT INTO duplicates_old SELECT * FROM duplicates",
	"DROP TABLE duplicates",
	"ALTER TABLE duplicates_old RENAME TO duplicates",
	"CREATE INDEX duplicates_primary ON duplicates (primary_source, primary_item)",
	"DELETE FROM schema_migrations WHERE version = 20",
}

// TestItemsByKeyBytesMigration stores versions of three sources (an item
// edited, so that it has two revisions; items gone and back; two duplicate
// records; one item with a key that is not hex), puts items and duplicates
// back as they were before 0020, reopens, and checks items' columns and
// keys, that the archives, a version, the story items and the duplicates
// read back as before, PRAGMA integrity_check and foreign_key_check, that
// the next poll stores one new item and keeps the others' first-seen times
// and indexes, and that purging sources drops or clears the duplicate
// records naming their items, as the foreign keys did.
func TestItemsByKeyBytesMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	s := openPath(t, path)
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		addSource(t, s, id)
		for v := 1; v <= 6; v++ {
			d := storetest.SizePage(id, v, v%2 == 0)
			if v == 4 {
				d.Items[3].Title += " (edited)"
			}
			store(t, s, id, d)
		}
	}
	key := func(id string, n int) dynamo.ItemKey {
		return dynamo.ItemKey{SourceID: id, ItemID: storetest.SizePage(id, 6, false).Items[n].ID}
	}
	dups := []dynamo.Duplicate{
		{Item: key("b", 0), Primary: key("a", 0), Matched: key("c", 0), Rule: "text", Score: 0.9},
		{Item: key("c", 1), Primary: key("b", 1), Matched: key("b", 1), Rule: "title", Score: 1},
	}
	if err := s.write(ctx, func(tx *sql.Tx, _ func(string)) error { return writeDuplicates(ctx, tx, dups) }); err != nil {
		t.Fatal(err)
	}
	const duplicates = `SELECT source_id || ' ' || item_id || ' ' || primary_source || ' ' || primary_item || ' ' ||
		coalesce(matched_source, '-') || ' ' || coalesce(matched_item, '-') FROM duplicates ORDER BY 1`
	read := func(s *Store) []string {
		t.Helper()
		out := slices.Concat(archiveAndVersion(t, s, "a", 1), archiveAndVersion(t, s, "b", 5), lines(t, s, duplicates))
		if err := s.StoryItems(ctx, time.Time{}, func(it dynamo.StoryItem) error {
			out = append(out, fmt.Sprintf("story %s %s %s %d %v", it.Key.SourceID, it.Key.ItemID,
				it.FirstSeen.UTC().Format(time.RFC3339Nano), it.Seq, it.DuplicateOf))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"a", "b", "c"} {
			items, err := s.Items(ctx, dynamo.ItemQuery{SourceID: id})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				out = append(out, fmt.Sprintf("item %s/%s %s %s %d %v %v", id, it.Item.ID, it.FirstSeen.UTC().Format(time.RFC3339Nano),
					it.LastSeen.UTC().Format(time.RFC3339Nano), it.Item.Index, it.DuplicateOf, it.DuplicateMatched))
			}
		}
		return out
	}
	// Item 1 (the same key in each source) is only on version 1; it gets a
	// key of another form.
	old := storetest.SizePage("a", 1, false).Items[49].ID
	legacy := "urn:legacy:" + old
	stored := read(s)
	if len(stored) < 300 {
		t.Fatalf("%d lines read, want the archives of three sources", len(stored))
	}
	for i := range stored {
		stored[i] = strings.ReplaceAll(stored[i], old, legacy)
	}
	upgraded := undoMigration(t, s, path, append(slices.Clone(undoItemsByKeyBytes),
		"UPDATE item_revisions SET key = '"+legacy+"' WHERE item_key = '"+old+"'",
		"UPDATE items SET item_id = '"+legacy+"' WHERE item_id = '"+old+"'",
	), "0020_items_by_key_bytes.sql")
	if got := read(upgraded); !slices.Equal(got, stored) {
		t.Errorf("after the migration:\n%v\nstored:\n%v", got, stored)
	}
	if got := lines(t, upgraded, "SELECT group_concat(name, ' ') FROM pragma_table_xinfo('items')"); got[0] != "source_id key first_seq last_seen latest_rev story_seq item_id" {
		t.Errorf("items' columns after the migration: %s", got[0])
	}
	if got := lines(t, upgraded, `SELECT count(*) FILTER (WHERE typeof(key) = 'text' AND key = '`+legacy+`') || ' ' ||
			count(*) FILTER (WHERE typeof(key) = 'blob' AND length(key) = 16) || ' ' || count(*) FROM items`); got[0] != "3 162 165" {
		t.Errorf("items' keys as text, as 16 bytes, all: %s; want the other key as text, every hex key as its bytes", got[0])
	}
	if got := lines(t, upgraded, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check: %v", got)
	}
	if got := lines(t, upgraded, "SELECT count(*) FROM pragma_foreign_key_check"); got[0] != "0" {
		t.Errorf("foreign_key_check: %s rows", got[0])
	}
	// The next version: one new item, the others kept with the first-seen
	// times and indexes they had (read through their revisions).
	store(t, upgraded, "a", storetest.SizePage("a", 7, false))
	after := read(upgraded)
	firsts := func(lines []string) map[string]string {
		m := map[string]string{}
		for _, l := range lines {
			if f := strings.Fields(l); f[0] == "item" && strings.HasPrefix(f[1], "a/") {
				m[f[1]] = f[2] + " " + f[4]
			}
		}
		return m
	}
	was, now := firsts(stored), firsts(after)
	if len(now) != len(was)+1 {
		t.Errorf("%d items in a's archive after one more version, want %d", len(now), len(was)+1)
	}
	for k, v := range was {
		if now[k] != v {
			t.Errorf("item %s first seen, index %q after one more version, was %q", k, now[k], v)
		}
	}
	// Purging c drops its duplicate record and clears the copy it matched
	// in b's; purging a drops b's, whose primary was a's.
	if err := upgraded.DeleteSource(ctx, "c", true); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("b %s a %s - -", key("b", 0).ItemID, key("a", 0).ItemID)
	if got := lines(t, upgraded, duplicates); !slices.Equal(got, []string{want}) {
		t.Errorf("duplicates after purging c: %v, want %v", got, want)
	}
	if err := upgraded.DeleteSource(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, upgraded, "SELECT count(*) FROM duplicates"); got[0] != "0" {
		t.Errorf("%s duplicate records after purging a, want 0", got[0])
	}
	if got := lines(t, upgraded, "SELECT count(*) FROM items"); got[0] == "0" {
		t.Errorf("b's items are gone too")
	}
}
