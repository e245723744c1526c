package postgres

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/cputime"
)

// benchSources is the sources table's size in the scale benchmarks: 10,000
// unless DYNAMO_BENCH_SOURCES says otherwise (docs/STORAGE.md measures
// 1,000,000).
func benchSources() int {
	n, err := strconv.Atoi(os.Getenv("DYNAMO_BENCH_SOURCES"))
	if err != nil || n <= 0 {
		return 10_000
	}
	return n
}

// fillSources inserts total sources in one statement, their next polls
// spread evenly over the 100 hours from t0-1h, one hour apart per 1 % of
// the table: at t0, 1 % of the sources are due.
func fillSources(b *testing.B, s *Store, total int) {
	b.Helper()
	ctx := context.Background()
	_, err := s.pool.Exec(ctx, `INSERT INTO sources (id, url, kind, interval_ns, created_at, next_poll)
		SELECT 's' || lpad(g::text, 8, '0'), 'http://127.0.0.1/s' || g, 'html', 3600000000000, $1::timestamptz,
			$1::timestamptz - interval '1 hour' + (g % 100) * interval '1 hour' + (g / 100 % 3600) * interval '1 second'
		FROM generate_series(1, $2::int) AS g`, t0, total)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, "VACUUM ANALYZE sources"); err != nil {
		b.Fatal(err)
	}
	var table, indexed, due, row int64
	err = s.pool.QueryRow(ctx, `SELECT pg_relation_size('sources'), pg_total_relation_size('sources'),
		pg_relation_size('sources_due'), (SELECT avg(pg_column_size(s.*))::bigint FROM sources s)`).Scan(&table, &indexed, &due, &row)
	if err != nil {
		b.Fatal(err)
	}
	const mb = 1 << 20
	b.Logf("%d sources: table %.1f MB, with its indexes %.1f MB, sources_due %.1f MB, %d bytes per row", total, float64(table)/mb, float64(indexed)/mb, float64(due)/mb, row)
}

// BenchmarkLeaseDue measures one LeaseDue of 64 sources from a table of
// benchSources sources, when none, 1 % and all of them are due, alone and
// with 8 pollers leasing at once (each releasing what it leased, so that
// every call meets the same table), with latency percentiles.
func BenchmarkLeaseDue(b *testing.B) {
	total := benchSources()
	s := open(b)
	fillSources(b, s, total)
	ctx := context.Background()
	for _, due := range []struct {
		name string
		now  time.Time
	}{
		{"none", t0.Add(-2 * time.Hour)},
		{"1pct", t0},
		{"all", t0.Add(200 * time.Hour)},
	} {
		logPlan(b, s, due.now)
		b.Run(fmt.Sprintf("due=%s/sources=%d", due.name, total), func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				leased, err := s.LeaseDue(ctx, "bench", due.now, 64, time.Minute, dynamo.LeaseHosts{})
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				release(b, s, leased)
			}
			reportLatency(b, lat)
		})
		b.Run(fmt.Sprintf("due=%s/pollers=8/sources=%d", due.name, total), func(b *testing.B) {
			var owners atomic.Int64
			b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				owner := fmt.Sprintf("bench-%d", owners.Add(1))
				for pb.Next() {
					leased, err := s.LeaseDue(ctx, owner, due.now, 64, time.Minute, dynamo.LeaseHosts{})
					if err != nil {
						b.Error(err)
						return
					}
					release(b, s, leased)
				}
			})
		})
	}
}

// logPlan logs how PostgreSQL runs LeaseDue's statement at now (EXPLAIN
// ANALYZE, in a transaction rolled back), its execution time without the
// commit.
func logPlan(b *testing.B, s *Store, now time.Time) {
	ctx := context.Background()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "+leaseDue+"s.id", "plan", now, 64, now)
	if err != nil {
		b.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			b.Fatal(err)
		}
		plan = append(plan, line)
	}
	b.Logf("LeaseDue at %s:\n%s", now.Format(time.RFC3339), strings.Join(plan, "\n"))
}

// release gives up the leases on srcs by id (ReleaseLeases, meant for a
// shutdown, reads the whole table).
func release(b *testing.B, s *Store, srcs []dynamo.Source) {
	ids := make([]string, len(srcs))
	for i, src := range srcs {
		ids[i] = src.ID
	}
	if _, err := s.pool.Exec(context.Background(), `UPDATE sources SET lease_owner = '', lease_expires = '0001-01-01 00:00:00+00'
		WHERE id = ANY($1)`, ids); err != nil {
		b.Error(err)
	}
}

// reportLatency reports the median and 99th percentile in milliseconds.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkEachSource walks every active source (EachSource), as each
// poller's plan does once per cycle and the streamed listings do, from a
// table of benchSources sources, reporting this process's CPU time beside
// the wall time (the server's is not in it).
func BenchmarkEachSource(b *testing.B) {
	total := benchSources()
	s := open(b)
	fillSources(b, s, total)
	b.Run(fmt.Sprintf("sources=%d", total), func(b *testing.B) {
		b.ReportAllocs()
		cpu, _ := cputime.Process()
		for b.Loop() {
			n := 0
			err := s.EachSource(context.Background(), false, func(*dynamo.Source) error { n++; return nil })
			if err != nil || n != total {
				b.Fatalf("EachSource: %d, %v", n, err)
			}
		}
		after, _ := cputime.Process()
		b.ReportMetric(float64((after-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
}

// BenchmarkListSources reads every active source (Sources), as the
// poller's plan and GET /api/sources do, from a table of benchSources
// sources, reporting the heap the list holds.
func BenchmarkListSources(b *testing.B) {
	total := benchSources()
	s := open(b)
	fillSources(b, s, total)
	b.Run(fmt.Sprintf("sources=%d", total), func(b *testing.B) {
		b.ReportAllocs()
		var live uint64
		for b.Loop() {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			list, err := s.Sources(context.Background())
			if err != nil || len(list) != total {
				b.Fatalf("Sources: %d, %v", len(list), err)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			live = after.HeapAlloc - before.HeapAlloc
			runtime.KeepAlive(list)
		}
		b.ReportMetric(float64(live)/(1<<20), "live-MB")
	})
}
