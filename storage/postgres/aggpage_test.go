package postgres

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// Two store handles (two pools, as two processes would have) publish
// versions of their own sources at once while a reader reads the
// aggregate's pages: a page read full never shows another item later, and
// in the end every number handed out holds exactly one item. Every other
// poll of each writer numbers stories, and the second writes versions of
// more than three new items in batches, so story polls numbering in their
// insert, story polls publishing a batched write (numbered by updates) and
// polls that take only the aggregate counter's row run together: none may
// deadlock (taking the counter before the stories lock in the insert's
// exchange failed two runs of three with "deadlock detected"), and each
// item of a story poll gets one story number.
func TestAggregatePagesConcurrentWriters(t *testing.T) {
	dsn := pgtest.DSN(t)
	stores := []*Store{openDSN(t, dsn), openDSN(t, dsn)}
	// The second writes versions of more than three new items in batches,
	// whose publishing numbers them by updates after the stories lock.
	stores[1].batch = 3
	const size, perWriter, polls = 10, 4, 30
	for w := range stores {
		for k := range perWriter {
			addSource(t, stores[0], fmt.Sprintf("w%d-%d", w, k))
		}
	}
	ctx := context.Background()
	var done atomic.Bool
	var storyItems atomic.Int64
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
				stories := (w+p)%2 == 0
				rec := dynamo.PollRecord{SourceID: id, Owner: "test", At: at, Document: doc(id, at, items...),
					Stories: stories, StoriesSince: t0}
				if _, err := s.RecordPoll(ctx, rec, decideFlat(at)); err != nil {
					t.Errorf("RecordPoll %s: %v", id, err)
					return
				}
				if stories {
					storyItems.Add(int64(len(items)))
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
	var total, numbered, distinct, storyNumbered, storyDistinct int64
	if err := stores[0].pool.QueryRow(ctx, `SELECT count(*), count(agg_seq), count(DISTINCT agg_seq), count(story_seq),
		count(DISTINCT story_seq) FROM items`).Scan(&total, &numbered, &distinct, &storyNumbered, &storyDistinct); err != nil {
		t.Fatal(err)
	}
	if want := storyItems.Load(); storyNumbered != want || storyDistinct != want {
		t.Errorf("%d items with a story number, %d distinct: want the %d items of story polls", storyNumbered, storyDistinct, want)
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

// TestItemsWrittenOnce counts, with a trigger, the updates of items rows in
// a poll that adds one item to a page and drops one, with and without a
// detector of stories: the new item is inserted with its aggregate and
// story numbers, so the only update is the dropped item's last_seen.
func TestItemsWrittenOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		record func(testing.TB, *Store, string, time.Time, *dynamo.Resource) dynamo.PollResult
	}{{"no detector", record}, {"stories", recordStory}} {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			ctx := context.Background()
			addSource(t, s, "a")
			for v := 1; v <= 3; v++ {
				d := storetest.SizePage("a", v, false)
				tc.record(t, s, "a", d.Timestamp, d)
			}
			for _, q := range []string{
				"CREATE TABLE item_updates (item_id text)",
				`CREATE FUNCTION count_item_update() RETURNS trigger LANGUAGE plpgsql AS
					$$BEGIN INSERT INTO item_updates VALUES (NEW.item_id); RETURN NEW; END$$`,
				"CREATE TRIGGER count_item_update BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION count_item_update()",
			} {
				if _, err := s.pool.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			d := storetest.SizePage("a", 4, false)
			res := tc.record(t, s, "a", d.Timestamp, d)
			if len(res.NewItems) != 1 {
				t.Fatalf("%d new items, want 1", len(res.NewItems))
			}
			gone := storetest.SizePage("a", 3, false).Items[49].ID
			var updated []string
			rows, err := s.pool.Query(ctx, "SELECT item_id FROM item_updates")
			if err == nil {
				updated, err = pgx.CollectRows(rows, pgx.RowTo[string])
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(updated) != 1 || updated[0] != gone {
				t.Errorf("items updated: %v, want only the dropped %s", updated, gone)
			}
		})
	}
}
