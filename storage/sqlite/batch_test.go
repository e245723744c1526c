package sqlite

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// view is what readers see of source a: its versions, the newest one's
// hash, the archive's items, the items a detector of stories and an
// aggregate read, and the first archived page.
type view struct {
	versions  int
	newest    string
	archive   []string
	stories   int
	aggregate int
	paged     int   // items on the archived page of numbers 1 to 1000
	last      int64 // the highest item number that page names
}

func look(t *testing.T, s *Store) view {
	t.Helper()
	ctx := context.Background()
	var v view
	vs, err := s.Versions(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	v.versions = len(vs)
	if len(vs) > 0 {
		v.newest = vs[0].Hash
		doc, _, err := s.Document(ctx, "a", 1)
		if err != nil || dynamo.ContentHash(doc) != vs[0].Hash {
			t.Fatalf("the newest version does not rebuild to its hash: %v", err)
		}
	}
	items, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		v.archive = append(v.archive, it.Item.ID)
	}
	if err := s.StoryItems(ctx, t0.Add(-time.Hour), func(dynamo.StoryItem) error { v.stories++; return nil }); err != nil {
		t.Fatal(err)
	}
	agg, err := s.Aggregate(ctx, dynamo.AggregateQuery{})
	if err != nil {
		t.Fatal(err)
	}
	v.aggregate = len(agg)
	page, err := s.Page(ctx, dynamo.PageQuery{SourceID: "a", From: 1, To: 1000})
	if err != nil {
		t.Fatal(err)
	}
	v.paged, v.last = len(page.Items), page.Last
	return v
}

func (v view) String() string {
	return fmt.Sprintf("%d versions (newest %.8s), %d archived, %d story items, %d aggregated, %d paged (last %d)",
		v.versions, v.newest, len(v.archive), v.stories, v.aggregate, v.paged, v.last)
}

func sameView(a, b view) bool {
	return a.versions == b.versions && a.newest == b.newest && slices.Equal(a.archive, b.archive) &&
		a.stories == b.stories && a.aggregate == b.aggregate && a.paged == b.paged && a.last == b.last
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
		if now := look(t, s); sameView(now, before) {
			hidden++
		} else if now.versions != before.versions+1 {
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
	if res.Version == nil || len(res.NewItems) != 90 || after.versions != 2 || len(after.archive) != 190 || after.stories != 190 || after.aggregate != 190 || after.paged != 190 || after.last != 190 {
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
	if res.Version == nil || res.Version.Seq != 3 || v.versions != 3 || v.newest != dynamo.ContentHash(big) {
		t.Fatalf("the large version after the small one: result %+v, readers see %v", res.Version, v)
	}
	// 100 + 5 new in the small version + 50 new in the large one.
	if len(v.archive) != 155 || len(res.NewItems) != 50 {
		t.Errorf("%d items archived, %d new in the large version; want 155 and 50", len(v.archive), len(res.NewItems))
	}
	for seq := 1; seq <= 3; seq++ {
		doc, _, err := s.Document(context.Background(), "a", 4-seq)
		if err != nil || len(doc.Items) != []int{100, 5, 100}[seq-1] {
			t.Errorf("version %d: %v", seq, err)
		}
	}
}
