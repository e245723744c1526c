package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// look is what readers see of source a (storetest.View).
func look(t *testing.T, s *Store) storetest.View {
	t.Helper()
	return storetest.Look(t, s, "a", t0.Add(-time.Hour))
}

// TestBatchedVersionIsHiddenUntilPublished writes a version of 100 items,
// 90 new and some edited, in batches of 10 rows, and after every
// transaction of it reads what readers read: until the last one, exactly
// what they read before it began; after, the whole new version.
func TestBatchedVersionIsHiddenUntilPublished(t *testing.T) {
	s := open(t)
	s.batch = 10
	addSource(t, s, "a")
	store(t, s, "a", page("a", 0, 100, 100))
	before := look(t, s)
	next := page("a", 1, 100, 90)
	for i := range next.Items[90:95] { // stored items whose content changed
		next.Items[90+i].Description += " (edited)"
	}
	var writes, hidden int
	s.wrote = func(time.Duration) {
		writes++
		if now := look(t, s); now.Same(before) {
			hidden++
		} else if now.Versions != before.Versions+1 {
			t.Errorf("after write %d of the version, readers see %v; before it they saw %v", writes, now, before)
		}
	}
	res := store(t, s, "a", next)
	s.wrote = nil
	// The lease, the first transaction, 95 revisions and 90 items in
	// batches of 10, and the last transaction.
	if want := 1 + 1 + 10 + 9 + 1; writes != want || hidden != want-1 {
		t.Errorf("%d write transactions, %d of them leaving the version hidden; want %d and %d", writes, hidden, want, want-1)
	}
	after := look(t, s)
	if res.Version == nil || len(res.NewItems) != 90 || after.Versions != 2 || len(after.Archive) != 190 || after.Stories != 190 || after.Aggregate != 190 || after.Paged != 190 || after.Last != 190 || after.AggPaged != 190 || after.AggLast != 190 {
		t.Errorf("after the version: %v, result %+v", after, res)
	}
	var staged, staging int
	if err := s.r.QueryRow(`SELECT (SELECT count(*) FROM item_revisions WHERE rev_id > (SELECT published_rev FROM sources WHERE id = 'a')),
		(SELECT staging FROM sources WHERE id = 'a')`).Scan(&staged, &staging); err != nil || staged+staging != 0 {
		t.Errorf("after publishing: %d revisions beyond the published one, staging %d (%v)", staged, staging, err)
	}
}

// TestBatchedVersionTakenOver lets another write of the same source store
// a small version between two batches of a large one: the large one's
// rows are deleted, and it is written again, whole, after the small one.
func TestBatchedVersionTakenOver(t *testing.T) {
	s := open(t)
	s.batch = 10
	addSource(t, s, "a")
	store(t, s, "a", page("a", 0, 100, 100))
	writes := 0
	s.wrote = func(time.Duration) {
		writes++
		if writes == 4 { // the first transaction and two batches are done
			s.wrote = nil
			small := page("a", 100, 5, 5) // five items never seen
			if _, err := storeErr(s, "a", small); err != nil {
				t.Errorf("the small version: %v", err)
			}
			// Its poll released the lease: the large one's owner renews it.
			if _, err := s.LeaseSource(context.Background(), "a", "test", small.Timestamp, time.Minute); err != nil {
				t.Error(err)
			}
		}
	}
	big := page("a", 1, 100, 50)
	res := store(t, s, "a", big)
	v := look(t, s)
	if res.Version == nil || res.Version.Seq != 3 || v.Versions != 3 || v.Newest != dynamo.ContentHash(big) {
		t.Fatalf("the large version after the small one: result %+v, readers see %v", res.Version, v)
	}
	// 100 + 5 new in the small version + 50 new in the large one.
	if len(v.Archive) != 155 || len(res.NewItems) != 50 {
		t.Errorf("%d items archived, %d new in the large version; want 155 and 50", len(v.Archive), len(res.NewItems))
	}
	for seq := 1; seq <= 3; seq++ {
		doc, _, err := s.Document(context.Background(), "a", 4-seq)
		if err != nil || len(doc.Items) != []int{100, 5, 100}[seq-1] {
			t.Errorf("version %d: %v", seq, err)
		}
	}
}
