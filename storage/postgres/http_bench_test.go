package postgres

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/internal/cputime"
)

// BenchmarkArchiveHTTP answers archive queries on an archive of benchItems
// items, whose newest version holds 5,000 of them, through the API over
// loopback HTTP with its cache off: 8 clients at once (keep-alive), each
// asking for a word of the vocabulary different every time, with one
// keyword condition (title) and two (title and description), beside the
// newest items without conditions. Beside each, the same queries asked of
// the store directly by 8 goroutines, in the same run: what HTTP and the
// API add. It reports the latency percentiles of the answers as the
// clients saw them, the requests per second, and the CPU time per answer
// of this process (cpu-ms/op: the API and, over HTTP, the clients too)
// and of this database's PostgreSQL backends (pg-cpu-ms/op, from
// /proc/<pid>/stat: the server must run on this machine): with 8 clients
// on few cores the latency is mostly their sum queued, so these say what
// the code costs when the machine's load blurs the percentiles.
func BenchmarkArchiveHTTP(b *testing.B) {
	s, vocab := openArchive(b)
	total := benchItems()
	srv, err := api.New(api.Config{Store: s, CacheBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	b.Cleanup(hs.Close)
	// Each case draws its words and gives the conditions, which the
	// store is asked directly, and the same as query parameters.
	word := func(rng *rand.Rand) string { return vocab[rng.IntN(len(vocab))] }
	cases := []struct {
		name  string
		conds func(rng *rand.Rand) []dynamo.Condition
	}{
		{"none", func(*rand.Rand) []dynamo.Condition { return nil }},
		{"title", func(rng *rand.Rand) []dynamo.Condition {
			return []dynamo.Condition{{Field: dynamo.FieldTitle, Value: word(rng)}}
		}},
		{"title_and_desc", func(rng *rand.Rand) []dynamo.Condition {
			return []dynamo.Condition{{Field: dynamo.FieldTitle, Value: word(rng)}, {Field: dynamo.FieldDescription, Value: word(rng)}}
		}},
	}
	const clients = 8
	for _, c := range cases {
		for _, via := range []string{"http", "store"} {
			b.Run(fmt.Sprintf("%s/%s/items=%d", via, c.name, total), func(b *testing.B) {
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
				b.Cleanup(client.CloseIdleConnections)
				ask := func(conds []dynamo.Condition) error {
					if via == "store" {
						_, err := s.Items(context.Background(), dynamo.ItemQuery{SourceID: "big", Conditions: conds, Max: dynamo.DefaultItems})
						return err
					}
					u := hs.URL + "/resources/big"
					if len(conds) > 0 {
						q := url.Values{}
						for _, cond := range conds {
							q.Set(string(cond.Field), cond.Value)
						}
						u += "?" + q.Encode()
					}
					resp, err := client.Get(u)
					if err != nil {
						return err
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						return fmt.Errorf("%s: status %d", u, resp.StatusCode)
					}
					return nil
				}
				var mu sync.Mutex
				var lat []time.Duration
				var seed uint64
				b.SetParallelism((clients + 1) / 2) // times GOMAXPROCS (2 here): 8 clients
				cpuBefore, cpuKnown := cputime.Process()
				pgBefore := backendsTicks(b, s)
				b.RunParallel(func(pb *testing.PB) {
					mu.Lock()
					seed++
					rng := rand.New(rand.NewPCG(seed, 9))
					mu.Unlock()
					var mine []time.Duration
					for pb.Next() {
						conds := c.conds(rng)
						start := time.Now()
						if err := ask(conds); err != nil {
							b.Error(err)
							return
						}
						mine = append(mine, time.Since(start))
					}
					mu.Lock()
					lat = append(lat, mine...)
					mu.Unlock()
				})
				b.StopTimer()
				cpuAfter, _ := cputime.Process()
				pgAfter := backendsTicks(b, s)
				if len(lat) == 0 {
					return
				}
				if cpuKnown {
					b.ReportMetric(float64((cpuAfter-cpuBefore).Microseconds())/1000/float64(b.N), "cpu-ms/op")
				}
				pg := 0
				for pid, t := range pgAfter {
					pg += t - pgBefore[pid] // a backend started since counts from 0
				}
				b.ReportMetric(float64(pg)*10/float64(b.N), "pg-cpu-ms/op")
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			})
		}
	}
}

// backendsTicks returns the CPU time, in the kernel's ticks (10 ms), of
// each client backend of the store's database, by process id.
func backendsTicks(b *testing.B, s *Store) map[int]int {
	rows, err := s.pool.Query(context.Background(), `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND backend_type = 'client backend'`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		b.Fatal(err)
	}
	ticks := make(map[int]int, len(pids))
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			continue // ended since pg_stat_activity listed it
		}
		ticks[pid] = backendTicks(b, pid)
	}
	return ticks
}
