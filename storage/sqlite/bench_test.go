package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/cputime"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// BenchmarkRecordPoll stores a 50-item page per poll: "changed" gains one
// item each time (a new version), "unchanged" is the same content again
// (no version), the baseline of a poll's fixed cost. cpu-µs/op is the
// process's CPU time per poll.
func BenchmarkRecordPoll(b *testing.B) {
	for _, tc := range []struct {
		name  string
		fresh int
	}{{"changed", 1}, {"unchanged", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			s := open(b)
			addSource(b, s, "a")
			store(b, s, "a", page("a", 0, 50, 50))
			b.ReportAllocs()
			b.ResetTimer()
			from, ok := cputime.Process()
			for i := 1; i <= b.N; i++ {
				d := page("a", i, 50, tc.fresh)
				if res := store(b, s, "a", d); (res.Version != nil) != (tc.fresh > 0) {
					b.Fatalf("poll %d: version %+v", i, res.Version)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "polls/s")
			if to, _ := cputime.Process(); ok {
				b.ReportMetric(float64((to-from).Microseconds())/float64(b.N), "cpu-µs/op")
			}
		})
	}
}

// BenchmarkItems queries an archive of 100,000 items: the newest 50 without
// conditions (the baseline), with one title condition that many items
// match, with one that only one item matches (the whole archive is
// scanned), with two conditions, and the same within the newest version.
// cpu-µs/op is the process's CPU time per query (SQLite runs in the
// process), which the machine's other load does not inflate as it does
// the wall time.
func BenchmarkItems(b *testing.B) {
	s := open(b)
	addSource(b, s, "a")
	const versions, perVersion = 100, 1000
	for v := range versions {
		store(b, s, "a", page("a", v, perVersion, perVersion))
	}
	cond := func(field dynamo.Field, value string) dynamo.Condition {
		return dynamo.Condition{Field: field, Value: value}
	}
	queries := []struct {
		name string
		q    dynamo.ItemQuery
		want int
	}{
		{"archive/none", dynamo.ItemQuery{Max: 50}, 50},
		{"archive/title-common", dynamo.ItemQuery{Max: 50, Conditions: []dynamo.Condition{cond(dynamo.FieldTitle, "ärger")}}, 50},
		{"archive/title-rare", dynamo.ItemQuery{Max: 50, Conditions: []dynamo.Condition{cond(dynamo.FieldTitle, "HEADLINE 4242:")}}, 1},
		{"archive/two-rare", dynamo.ItemQuery{Max: 50, Conditions: []dynamo.Condition{
			cond(dynamo.FieldTitle, "headline 4242:"), cond(dynamo.FieldDescription, "summary")}}, 1},
		{"version/none", dynamo.ItemQuery{Version: 1, Max: 50}, 50},
		{"version/title-rare", dynamo.ItemQuery{Version: 1, Max: 50, Conditions: []dynamo.Condition{cond(dynamo.FieldTitle, "headline 99042:")}}, 1},
	}
	for _, tc := range queries {
		b.Run(tc.name, func(b *testing.B) {
			q := tc.q
			q.SourceID = "a"
			from, ok := cputime.Process()
			for b.Loop() {
				items, err := s.Items(context.Background(), q)
				if err != nil || len(items) != tc.want {
					b.Fatalf("%d items (%v), want %d", len(items), err, tc.want)
				}
			}
			if to, _ := cputime.Process(); ok {
				b.ReportMetric(float64((to-from).Microseconds())/float64(b.N), "cpu-µs/op")
			}
		})
	}
}

// BenchmarkDiskPerVersion stores 1,000 versions of storetest.SizePage (50
// items, one new per version; short or long descriptions) and reports the
// file's size, after a checkpoint, per distinct item and against the bytes
// of their XMLData, and logs the bytes of each table and index (dbstat).
// The heldout-* workloads (storetest.HeldOutWorkloads) are measured the
// same way; no change to the schema was tuned on them.
func BenchmarkDiskPerVersion(b *testing.B) {
	for _, long := range []bool{false, true} {
		b.Run(map[bool]string{false: "short", true: "long"}[long], func(b *testing.B) {
			const versions = 1000
			items, xml := storetest.SizeItems(versions, long)
			diskPerVersion(b, "a", versions, func(n int) *dynamo.Resource { return storetest.SizePage("a", n, long) }, items, xml)
		})
	}
	for _, w := range storetest.HeldOutWorkloads {
		b.Run("heldout-"+w.Name, func(b *testing.B) {
			items, xml := w.Items()
			diskPerVersion(b, w.Source, w.Versions, w.Page, items, xml)
		})
	}
}

// diskPerVersion stores versions of page (from 1) in a new store and
// reports its file's size against the items' XMLData (xml bytes of items).
func diskPerVersion(b *testing.B, source string, versions int, page func(int) *dynamo.Resource, items, xml int) {
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "disk.db")
		s := openPath(b, path)
		addSource(b, s, source)
		for n := 1; n <= versions; n++ {
			store(b, s, source, page(n))
		}
		if _, err := s.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			b.Fatal(err)
		}
		size := fileSize(b, path) + fileSize(b, path+"-wal")
		logTableSizes(b, s)
		b.ReportMetric(float64(size), "bytes")
		b.ReportMetric(float64(size)/float64(items), "bytes/item")
		b.ReportMetric(float64(xml)/float64(items), "xml-bytes/item")
		b.ReportMetric(float64(size)/float64(xml), "ratio")
	}
}

// logTableSizes logs the bytes of each table and index of s's file.
func logTableSizes(b *testing.B, s *Store) {
	rows, err := s.r.Query("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			b.Fatal(err)
		}
		b.Logf("%-40s %9d bytes", name, size)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
}

func fileSize(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		b.Fatal(fmt.Errorf("size of %s: %w", path, err))
	}
	return fi.Size()
}

// BenchmarkWriterHold stores versions of 5,000 new items (the poller's
// --max-items default) in one transaction, as before batches, and in
// batches of batchRows, and reports the longest time one write
// transaction held the writer (max-hold-ms), the longest a small write of
// another goroutine, made in a loop meanwhile, waited for it
// (other-wait-ms), and the time of a whole poll (ms/version).
func BenchmarkWriterHold(b *testing.B) {
	for _, tc := range []struct {
		name  string
		batch int
	}{{"one-transaction", 1 << 30}, {"batches", batchRows}} {
		b.Run(tc.name, func(b *testing.B) {
			s := open(b)
			s.batch = tc.batch
			addSource(b, s, "a")
			var (
				mu   sync.Mutex
				hold time.Duration
			)
			s.wrote = func(d time.Duration) { mu.Lock(); hold = max(hold, d); mu.Unlock() }
			stop := make(chan struct{})
			waited := make(chan time.Duration)
			go func() {
				var worst time.Duration
				for i := 0; ; i++ {
					select {
					case <-stop:
						waited <- worst
						return
					default:
					}
					start := time.Now()
					if err := s.PutSetting(context.Background(), "probe", strconv.Itoa(i)); err != nil {
						b.Error(err)
					}
					worst = max(worst, time.Since(start))
					time.Sleep(time.Millisecond)
				}
			}()
			v := 0
			for b.Loop() {
				if res := store(b, s, "a", page("a", v, 5000, 5000)); len(res.NewItems) != 5000 {
					b.Fatalf("version %d: %d new items", v, len(res.NewItems))
				}
				v++
			}
			close(stop)
			b.ReportMetric(float64(hold.Microseconds())/1000, "max-hold-ms")
			b.ReportMetric(float64((<-waited).Microseconds())/1000, "other-wait-ms")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(v), "ms/version")
		})
	}
}

// BenchmarkStoryItems reads the items first seen since a time (what the
// near-duplicate window loads at start) from an archive of 40,000 items in
// four sources: the newest fifth, and all of them. cpu-µs/op is the
// process's CPU time per call.
func BenchmarkStoryItems(b *testing.B) {
	s := open(b)
	const versions, perVersion = 10, 1000
	for _, id := range []string{"a", "b", "c", "d"} {
		addSource(b, s, id)
		for v := range versions {
			store(b, s, id, page(id, v, perVersion, perVersion))
		}
	}
	for _, tc := range []struct {
		name  string
		since time.Time
		want  int
	}{{"newest-fifth", t0.Add(time.Duration(versions-2) * time.Minute), 8000}, {"all", time.Time{}, 40000}} {
		b.Run(tc.name, func(b *testing.B) {
			from, ok := cputime.Process()
			for b.Loop() {
				n := 0
				if err := s.StoryItems(context.Background(), tc.since, func(dynamo.StoryItem) error { n++; return nil }); err != nil || n != tc.want {
					b.Fatalf("%d items (%v), want %d", n, err, tc.want)
				}
			}
			if to, _ := cputime.Process(); ok {
				b.ReportMetric(float64((to-from).Microseconds())/float64(b.N), "cpu-µs/op")
			}
		})
	}
}
