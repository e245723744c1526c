package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

// BenchmarkArchiveQueryCPU runs the archive query of an API answer (items
// only, dynamo.DefaultItems of them) on the archive of openArchive, one
// query at a time on one connection, and reports the CPU time of that
// connection's PostgreSQL backend per query (cpu-ms/op, from
// /proc/<pid>/stat: the server must run on this machine), the figure that
// the machine's load affects least. Each query asks a word of the
// vocabulary drawn anew (the same words in every run); plans are those of
// plan_cache_mode (auto: pgx's prepared statements go generic after five
// runs when PostgreSQL finds that cheaper), force_custom_plan and
// force_generic_plan. Run it with DYNAMO_BENCH_DB and DYNAMO_BENCH_ITEMS
// (BenchmarkArchiveHTTP) and -benchtime 200x or more: the kernel counts
// CPU time in ticks of 10 ms.
func BenchmarkArchiveQueryCPU(b *testing.B) {
	s, vocab := openArchive(b)
	ctx := context.Background()
	cases := []struct {
		name  string
		conds func(rng *rand.Rand) []dynamo.Condition
	}{
		{"title", func(rng *rand.Rand) []dynamo.Condition {
			return []dynamo.Condition{{Field: dynamo.FieldTitle, Value: vocab[rng.IntN(len(vocab))]}}
		}},
		{"title_and_desc", func(rng *rand.Rand) []dynamo.Condition {
			return []dynamo.Condition{{Field: dynamo.FieldTitle, Value: vocab[rng.IntN(len(vocab))]},
				{Field: dynamo.FieldDescription, Value: vocab[rng.IntN(len(vocab))]}}
		}},
	}
	for _, c := range cases {
		for _, mode := range []string{"auto", "force_custom_plan", "force_generic_plan"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				pc, err := s.pool.Acquire(ctx)
				if err != nil {
					b.Fatal(err)
				}
				// The connection leaves the pool and is closed at the end,
				// so that each case starts without prepared statements.
				conn := pc.Hijack()
				defer conn.Close(ctx)
				var pid int
				if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
					b.Fatal(err)
				}
				if _, err := conn.Exec(ctx, "SET max_parallel_workers_per_gather = 0"); err != nil {
					b.Fatal(err)
				}
				if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+mode); err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				ask := func() int {
					q, err := archiveQuery(dynamo.ItemQuery{SourceID: "big", Conditions: c.conds(rng), Max: dynamo.DefaultItems, ItemsOnly: true})
					if err != nil {
						b.Fatal(err)
					}
					rows, err := conn.Query(ctx, q.sql, q.args...)
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for rows.Next() {
						n++
					}
					if err := rows.Err(); err != nil {
						b.Fatal(err)
					}
					return n
				}
				for range 10 { // warm: the statement prepared, the plan chosen
					ask()
				}
				before := backendTicks(b, pid)
				matched := 0
				b.ResetTimer()
				for range b.N {
					matched += ask()
				}
				b.StopTimer()
				ticks := backendTicks(b, pid) - before
				// How often PostgreSQL planned a query for its values.
				var generic, custom int64
				if err := conn.QueryRow(ctx, "SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0) FROM pg_prepared_statements").Scan(&generic, &custom); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(custom)/float64(generic+custom), "custom-plans/op")
				b.ReportMetric(float64(ticks)*10/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(matched)/float64(b.N), "items/op")
			})
		}
	}
}

// backendTicks returns the user and system CPU time of process pid, in
// the kernel's ticks (10 ms).
func backendTicks(b *testing.B, pid int) int {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's closing parenthesis: utime and stime
	// are the 14th and 15th of the line, the 12th and 13th after it.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	u, err1 := strconv.Atoi(f[11])
	k, err2 := strconv.Atoi(f[12])
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, stat)
	}
	return u + k
}
