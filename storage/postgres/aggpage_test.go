package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
)

// Two store handles (two pools, as two processes would have) publish
// versions of their own sources at once while a reader reads the
// aggregate's pages: a page read full never shows another item later, and
// in the end every number handed out holds exactly one item.
func TestAggregatePagesConcurrentWriters(t *testing.T) {
	dsn := pgtest.DSN(t)
	stores := []*Store{openDSN(t, dsn), openDSN(t, dsn)}
	const size, perWriter, polls = 10, 4, 30
	for w := range stores {
		for k := range perWriter {
			addSource(t, stores[0], fmt.Sprintf("w%d-%d", w, k))
		}
	}
	ctx := context.Background()
	var done atomic.Bool
	var wg sync.WaitGroup
	for w, s := range stores {
		wg.Go(func() {
			for p := range polls {
				id := fmt.Sprintf("w%d-%d", w, p%perWriter)
				at := t0.Add(time.Duration(p) * time.Minute)
				var items []dynamo.Item
				for k := range 1 + p%7 {
					n := (w*polls+p)*100 + k
					items = append(items, item(n, fmt.Sprintf("Story %d", n)))
				}
				if _, err := s.LeaseSource(ctx, id, "test", at, time.Minute); err != nil {
					t.Errorf("LeaseSource %s: %v", id, err)
					return
				}
				if _, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: "test", At: at, Document: doc(id, at, items...)}, decideFlat(at)); err != nil {
					t.Errorf("RecordPoll %s: %v", id, err)
					return
				}
			}
		})
	}
	// The reader: each full page as first read, by page number.
	full := map[int64][]string{}
	// check reports false, with the test failed, when a page breaks the
	// rule.
	check := func(reader *Store) bool {
		p, err := reader.AggregatePage(ctx, dynamo.AggregatePageQuery{Size: size})
		if err != nil {
			t.Errorf("current page: %v", err)
			return false
		}
		for n := int64(1); n < p.Number; n++ {
			page, err := reader.AggregatePage(ctx, dynamo.AggregatePageQuery{Number: n, Size: size})
			if err != nil {
				t.Errorf("page %d: %v", n, err)
				return false
			}
			var ids []string
			for _, it := range page.Items {
				ids = append(ids, fmt.Sprintf("%d:%s/%s", it.Number, it.SourceID, it.Item.ID))
			}
			if len(ids) != size {
				t.Errorf("full page %d holds %d items, want %d: %v", n, len(ids), size, ids)
				return false
			}
			if was, ok := full[n]; ok && fmt.Sprint(was) != fmt.Sprint(ids) {
				t.Errorf("full page %d changed:\n was %v\n now %v", n, was, ids)
				return false
			}
			full[n] = ids
		}
		return true
	}
	go func() {
		wg.Wait()
		done.Store(true)
	}()
	reads := 0
	for i := 0; (!done.Load() || i == 0) && check(stores[i%2]); i++ {
		reads++
	}
	wg.Wait()
	if t.Failed() || !check(stores[0]) {
		return
	}
	var total, numbered, distinct int64
	if err := stores[0].pool.QueryRow(ctx, `SELECT count(*), count(agg_seq), count(DISTINCT agg_seq) FROM items`).Scan(&total, &numbered, &distinct); err != nil {
		t.Fatal(err)
	}
	last, err := stores[1].AggregatePage(ctx, dynamo.AggregatePageQuery{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	if total != numbered || numbered != distinct || last.Last != total {
		t.Errorf("%d items, %d numbered, %d distinct numbers, highest %d: want every item one number of 1..%d", total, numbered, distinct, last.Last, total)
	}
	t.Logf("%d items published by two writers, %d reads of the pages during", total, reads)
}
