package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// pageOf is a document of items first..first+n-1 of source a, newest first.
func pageOf(at time.Time, first, n int) *dynamo.Resource {
	var items []dynamo.Item
	for i := first + n - 1; i >= first; i-- {
		items = append(items, item(i, fmt.Sprintf("story %d", i)))
	}
	return doc("a", at, items...)
}

// look is what readers see of source a (storetest.View).
func look(t *testing.T, s *Store) storetest.View {
	t.Helper()
	return storetest.Look(t, s, "a", t0.Add(-time.Hour))
}

// TestBatchedVersionIsHiddenUntilPublished writes a version of 100 items,
// 90 new and five edited, in batches of 10 rows, and after every
// transaction of it reads what readers read: until the last one, exactly
// what they read before it began; after, the whole new version.
func TestBatchedVersionIsHiddenUntilPublished(t *testing.T) {
	s := open(t)
	s.batch = 10
	addSource(t, s, "a")
	record(t, s, "a", t0, pageOf(t0, 0, 100))
	before := look(t, s)
	at := t0.Add(time.Minute)
	next := pageOf(at, 90, 100) // 90..189: 100..189 are new
	for i := 95; i < 100; i++ { // stored items 90..94, edited
		next.Items[i].Description += " (edited)"
	}
	var writes, hidden int
	s.wrote = func(time.Duration) {
		writes++
		if now := look(t, s); now.Same(before) {
			hidden++
		} else if now.Versions != before.Versions+1 {
			t.Errorf("after transaction %d of the version, readers see %v; before it they saw %v", writes, now, before)
		}
	}
	res := record(t, s, "a", at, next)
	s.wrote = nil
	// The first transaction, 95 revisions and 90 items in batches of 10,
	// and the last transaction (the lease is one statement, no inTx).
	if want := 1 + 10 + 9 + 1; writes != want || hidden != want-1 {
		t.Errorf("%d transactions, %d of them leaving the version hidden; want %d and %d", writes, hidden, want, want-1)
	}
	after := look(t, s)
	if res.Version == nil || len(res.NewItems) != 90 || after.Versions != 2 || len(after.Archive) != 190 || after.Stories != 190 || after.Aggregate != 190 || after.Paged != 190 || after.Last != 190 || after.AggPaged != 190 || after.AggLast != 190 {
		t.Errorf("after the version: %v, result %+v", after, res)
	}
	var staged, staging int
	if err := s.pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM item_revisions WHERE rev_id > (SELECT published_rev FROM sources WHERE id = 'a')),
		(SELECT staging FROM sources WHERE id = 'a')`).Scan(&staged, &staging); err != nil || staged+staging != 0 {
		t.Errorf("after publishing: %d revisions beyond the published one, staging %d (%v)", staged, staging, err)
	}
}

// TestStoppedBatchedVersion stops a version of 500 items, written in
// batches of 50 rows, after five batches committed, as a killed process
// would leave it (its context is cancelled there, so nothing more is
// written): readers see the archive as before; the next poll of the same
// page deletes the rows left and stores the version whole.
func TestStoppedBatchedVersion(t *testing.T) {
	s := open(t)
	s.batch = 50
	addSource(t, s, "a")
	record(t, s, "a", t0, pageOf(t0, 0, 500))
	before := look(t, s)
	at := t0.Add(time.Minute)
	next := pageOf(at, 300, 500) // 300..799: 500..799 are new
	ctx, cancel := context.WithCancel(context.Background())
	writes := 0
	s.wrote = func(time.Duration) {
		if writes++; writes == 6 { // the first transaction and five batches
			cancel()
		}
	}
	if _, err := s.LeaseSource(ctx, "a", "test", at, time.Minute); err != nil {
		t.Fatal(err)
	}
	_, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "test", At: at, Document: next}, decideFlat(at))
	s.wrote = nil
	if err == nil {
		t.Fatal("the stopped version was stored")
	}
	var left int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM item_revisions
		WHERE rev_id > (SELECT published_rev FROM sources WHERE id = 'a')`).Scan(&left); err != nil || left == 0 {
		t.Fatalf("%d revisions left beyond the published one (%v): the stop was not between batches", left, err)
	}
	if now := look(t, s); !now.Same(before) {
		t.Errorf("after the stop, readers see %v; before it, %v", now, before)
	}
	res := record(t, s, "a", at, next)
	after := look(t, s)
	if res.Version == nil || len(res.NewItems) != 300 || after.Versions != 2 || len(after.Archive) != 800 ||
		after.Stories != 800 || after.Paged != 800 || after.Last != 800 || after.AggPaged != 800 || after.AggLast != 800 {
		t.Errorf("the version stored again: %+v, readers see %v", res.Version, after)
	}
	var unpublished, orphans int
	if err := s.pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM item_revisions WHERE rev_id > (SELECT published_rev FROM sources WHERE id = 'a')),
		(SELECT count(*) FROM items i WHERE NOT EXISTS (
			SELECT 1 FROM versions v WHERE v.source_id = i.source_id AND v.seq = i.first_seq))`).Scan(&unpublished, &orphans); err != nil {
		t.Fatal(err)
	}
	if unpublished != 0 || orphans != 0 {
		t.Errorf("after the next poll, %d revisions unpublished, %d items of no version", unpublished, orphans)
	}
}
