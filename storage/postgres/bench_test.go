package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// page50 returns version n of a 50-item page that gains one item per
// version, the benchmarks' typical source.
func page50(id string, n int) *dynamo.Resource { return storetest.SizePage(id, n, false) }

// BenchmarkRecordPollChanged stores a new version of a 50-item page per
// iteration (one new item each).
func BenchmarkRecordPollChanged(b *testing.B) {
	benchmarkChanged(b, record)
}

// BenchmarkRecordPollChangedStories is BenchmarkRecordPollChanged for a
// poller with a detector of stories, as `dynamo serve` runs: each poll
// also numbers its new item's story under the stories lock and reads the
// items numbered since.
func BenchmarkRecordPollChangedStories(b *testing.B) {
	benchmarkChanged(b, recordStory)
}

// benchmarkChanged stores a new version of a 50-item page with one new
// item per iteration through record, and reports, beside the time, the
// CPU of the database's backends a version (pg-cpu-us/op, from
// /proc/<pid>/stat in 10 ms ticks: the server must run on this machine).
func benchmarkChanged(b *testing.B, record func(testing.TB, *Store, string, time.Time, *dynamo.Resource) dynamo.PollResult) {
	s := open(b)
	addSource(b, s, "a")
	n := 0
	var before map[int]int
	for b.Loop() {
		if n == 0 {
			before = backendsTicks(b, s)
		}
		n++
		d := page50("a", n)
		if res := record(b, s, "a", d.Timestamp, d); res.Version == nil {
			b.Fatal("no version stored")
		}
	}
	pg := 0
	for pid, t := range backendsTicks(b, s) {
		pg += t - before[pid] // a backend started since counts from 0
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "versions/s")
	b.ReportMetric(float64(pg)*10000/float64(n), "pg-cpu-us/op")
}

// BenchmarkRecordPollChangedParallel stores new versions of 50-item pages
// from eight writers at once, each its own source, one new item per
// version: the publishing path that aggregate numbers serialize (every
// version with new items locks the one counter row until it commits).
func BenchmarkRecordPollChangedParallel(b *testing.B) {
	s := open(b)
	const writers = 64
	for w := range writers {
		addSource(b, s, "w"+strconv.Itoa(w))
	}
	var next atomic.Int64
	b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		id := "w" + strconv.Itoa(int(next.Add(1)-1)%writers)
		n := 0
		for pb.Next() {
			n++
			d := page50(id, n)
			if res := record(b, s, id, d.Timestamp, d); res.Version == nil {
				b.Error("no version stored")
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "versions/s")
}

// BenchmarkRecordPollUnchanged records polls that read the same 50-item
// page again: the cost of a poll that finds nothing new.
func BenchmarkRecordPollUnchanged(b *testing.B) {
	s := open(b)
	addSource(b, s, "a")
	d := page50("a", 1)
	record(b, s, "a", t0, d)
	n := 0
	for b.Loop() {
		n++
		at := t0.Add(time.Duration(n) * time.Minute)
		if res := record(b, s, "a", at, d); res.Version != nil {
			b.Fatal("unchanged page stored a version")
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "polls/s")
}

// BenchmarkItems queries an archive of benchItems items: the newest 100
// items as the baseline, then with one and two keyword conditions (a word
// of the vocabulary, different each iteration; or a single letter, which
// no trigram serves and most items match), reporting latency percentiles.
func BenchmarkItems(b *testing.B) {
	s, vocab := openArchive(b)
	total := benchItems()
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		name  string
		conds func() []dynamo.Condition
	}{
		{"none", func() []dynamo.Condition { return nil }},
		{"title", func() []dynamo.Condition {
			return []dynamo.Condition{{Field: dynamo.FieldTitle, Value: vocab[rng.IntN(len(vocab))]}}
		}},
		{"title_one_letter", func() []dynamo.Condition {
			return []dynamo.Condition{{Field: dynamo.FieldTitle, Value: string(rune('a' + rng.IntN(26)))}}
		}},
		{"title_and_desc", func() []dynamo.Condition {
			return []dynamo.Condition{
				{Field: dynamo.FieldTitle, Value: vocab[rng.IntN(len(vocab))]},
				{Field: dynamo.FieldDescription, Value: vocab[rng.IntN(len(vocab))]},
			}
		}},
		{"title_or_title", func() []dynamo.Condition {
			return []dynamo.Condition{
				{Field: dynamo.FieldTitle, Value: vocab[rng.IntN(len(vocab))]},
				{Or: true, Field: dynamo.FieldTitle, Value: vocab[rng.IntN(len(vocab))]},
			}
		}},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%s/items=%d", c.name, total), func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				q := dynamo.ItemQuery{SourceID: "big", Max: 100, Conditions: c.conds()}
				start := time.Now()
				if _, err := s.Items(context.Background(), q); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// openArchive opens a store holding source "big" with an archive of
// benchItems items (fillArchiveBulk) and returns it with the vocabulary.
// The store is a fresh database dropped at the end, unless DYNAMO_BENCH_DB
// names a database to keep: that one is created and filled on first use and
// reused as it is by later runs (filling 1 M items takes about 20 minutes),
// so old and new code can be measured on the same archive. A kept database
// whose archive is not of benchItems items is refused, not refilled.
func openArchive(b *testing.B) (*Store, []string) {
	total := benchItems()
	name := os.Getenv("DYNAMO_BENCH_DB")
	if name == "" {
		s := open(b)
		addSource(b, s, "big")
		return s, fillArchiveBulk(b, s, "big", total)
	}
	ctx := context.Background()
	u, err := url.Parse(pgtest.ServerURL())
	if err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	var exists bool
	err = conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err == nil && !exists {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	}
	conn.Close(ctx)
	if err != nil {
		b.Fatalf("database %s: %v", name, err)
	}
	u.Path = "/" + name
	s := openDSN(b, u.String())
	var have int
	err = s.pool.QueryRow(ctx, "SELECT item_count FROM sources WHERE id = 'big'").Scan(&have)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		addSource(b, s, "big")
		return s, fillArchiveBulk(b, s, "big", total)
	case err != nil:
		b.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	var archived int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM items WHERE source_id = 'big'").Scan(&archived); err != nil {
		b.Fatal(err)
	}
	if archived != total {
		b.Fatalf("database %s holds an archive of %d items, not %d: drop it or name another", name, archived, total)
	}
	return s, archiveVocab()
}

// benchItems is the archive size of BenchmarkItems, 200,000 unless
// DYNAMO_BENCH_ITEMS says otherwise.
func benchItems() int {
	n, err := strconv.Atoi(os.Getenv("DYNAMO_BENCH_ITEMS"))
	if err != nil || n <= 0 {
		return 200_000
	}
	return n
}

// fillArchiveBulk fills an archive through RecordPoll, with the trigram
// indexes dropped during the load and built afterwards, as a bulk import
// would: the queries then meet the same indexes, only built faster.
func fillArchiveBulk(b testing.TB, s *Store, id string, total int) []string {
	ctx := context.Background()
	var names, defs []string
	rows, err := s.pool.Query(ctx, `SELECT indexname, indexdef FROM pg_indexes WHERE indexname LIKE 'item_revisions_%_trgm'`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var name, def string
		rows.Scan(&name, &def)
		names, defs = append(names, name), append(defs, def)
	}
	if len(defs) != 1 {
		b.Fatalf("found trigram indexes %v, want one (item_revisions_fields_trgm)", names)
	}
	if _, err := s.pool.Exec(ctx, "DROP INDEX "+strings.Join(names, ", ")); err != nil {
		b.Fatal(err)
	}
	vocab := fillArchive(b, s, id, total, 5_000)
	for _, def := range defs {
		if _, err := s.pool.Exec(ctx, def); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	return vocab
}

// BenchmarkStorageSize stores 1,000 versions of storetest.SizePage (50
// items, one new per version; short or long descriptions) and reports the
// bytes on disk of the archive (revisions, items, versions and, where a
// table of their own holds them, their channels: heap, TOAST and indexes,
// after VACUUM) per distinct item, and their ratio to the items' own
// XMLData, with and without the trigram indexes; the -stories variants
// poll as `dynamo serve` does, with a detector of stories (recordStory).
// Run it with -benchtime=1x: each iteration builds the whole archive.
func BenchmarkStorageSize(b *testing.B) {
	for _, tc := range []struct {
		name   string
		long   bool
		record func(testing.TB, *Store, string, time.Time, *dynamo.Resource) dynamo.PollResult
	}{{"short", false, record}, {"long", true, record}, {"short-stories", false, recordStory}, {"long-stories", true, recordStory}} {
		b.Run(tc.name, func(b *testing.B) {
			const versions = 1000
			for b.Loop() {
				s := open(b)
				addSource(b, s, "a")
				for n := 1; n <= versions; n++ {
					d := storetest.SizePage("a", n, tc.long)
					tc.record(b, s, "a", d.Timestamp, d)
				}
				items, xml := storetest.SizeItems(versions, tc.long)
				ctx := context.Background()
				if _, err := s.pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
					b.Fatal(err)
				}
				var total, trgm int64
				err := s.pool.QueryRow(ctx, `SELECT
					(SELECT sum(pg_total_relation_size(to_regclass(t))) FROM unnest(ARRAY['item_revisions', 'items', 'versions', 'channels']) AS t),
					(SELECT sum(pg_relation_size(indexrelid)) FROM pg_stat_user_indexes WHERE indexrelname LIKE 'item_revisions_%_trgm')`).Scan(&total, &trgm)
				if err != nil {
					b.Fatal(err)
				}
				logRelationSizes(b, s)
				b.ReportMetric(float64(total)/float64(items), "bytes/item")
				b.ReportMetric(float64(xml)/float64(items), "xml-bytes/item")
				b.ReportMetric(float64(total)/float64(xml), "ratio")
				b.ReportMetric(float64(total-trgm)/float64(xml), "ratio-without-trgm")
				s.Close()
			}
		})
	}
}

// logRelationSizes logs the size of each table, TOAST table (with its
// index) and index of the database.
func logRelationSizes(b *testing.B, s *Store) {
	rows, err := s.pool.Query(context.Background(), `SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')
		UNION ALL SELECT c.relname || ' (TOAST)', pg_total_relation_size(c.reltoastrelid) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.reltoastrelid <> 0 ORDER BY 2 DESC`)
	if err != nil {
		b.Fatal(err)
	}
	var name string
	var size int64
	_, err = pgx.ForEachRow(rows, []any{&name, &size}, func() error {
		if size > 0 {
			b.Logf("%-40s %9d bytes", name, size)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWriterHold stores versions of 5,000 new items (the poller's
// --max-items default) in one transaction, as before batches, and in
// batches of batchRows, and reports the longest transaction of a poll
// (max-hold-ms: how long it held the source's row, and, for a story poll,
// the stories lock) and the time of a whole poll (ms/version).
func BenchmarkWriterHold(b *testing.B) {
	for _, tc := range []struct {
		name  string
		batch int
	}{{"one-transaction", 1 << 30}, {"batches", batchRows}} {
		b.Run(tc.name, func(b *testing.B) {
			s := open(b)
			s.batch = tc.batch
			addSource(b, s, "a")
			var hold time.Duration
			s.wrote = func(d time.Duration) { hold = max(hold, d) }
			v := 0
			for b.Loop() {
				at := t0.Add(time.Duration(v) * time.Minute)
				if res := record(b, s, "a", at, pageOf(at, v*5000, 5000)); len(res.NewItems) != 5000 {
					b.Fatalf("version %d: %d new items", v, len(res.NewItems))
				}
				v++
			}
			b.ReportMetric(float64(hold.Microseconds())/1000, "max-hold-ms")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(v), "ms/version")
		})
	}
}
