//go:build long

package load_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// keywordsEnv names the PostgreSQL database TestWrkKeywords reads: a
// postgres:// URL of a store holding source "big" with a large archive,
// such as the one storage/postgres's BenchmarkArchiveHTTP fills and keeps
// (DYNAMO_BENCH_DB=dynamo_kw_1m DYNAMO_BENCH_ITEMS=1000000, about 20
// minutes; docs/benchmarks/storage-postgres.md).
const keywordsEnv = "DYNAMO_KEYWORDS_DSN"

// TestWrkKeywords measures issue 21's keyword aim as the issue states it:
// `dynamo serve` (the built binary, API role, cache off, so every answer is
// read and rendered) over the archive in $DYNAMO_KEYWORDS_DSN, and wrk with
// 8 connections asking for the archive's 50 newest items with no condition
// (the baseline), with one keyword condition (title) and with two (title and
// description), each request a word of the archive's vocabulary drawn at
// random (testdata/keywords.lua), in interleaved rounds. It records each
// run's percentiles, and the CPU time per answer of Dynamo's process and
// of the machine's PostgreSQL processes (all of them: the server must be
// on this machine, and otherwise idle for the figure to be the query's).
// The aim is p99 under 20 ms for one and two conditions; the test checks
// that every answer was a 200, not the latency (a figure for the record).
func TestWrkKeywords(t *testing.T) {
	dsn := os.Getenv(keywordsEnv)
	if dsn == "" {
		t.Skipf("skipped: %s names no database with a large archive of source \"big\" (see the test's doc comment)", keywordsEnv)
	}
	p := startServe(t, "--db", dsn, "--role", "api", "--cache-mib", "0")
	c := newDynamoClient(t, p.base)

	// The vocabulary: the words of the 500 newest items' titles.
	var feed struct {
		Items []struct {
			Title string `json:"title"`
		} `json:"items"`
	}
	ans := c.get("/resources/big?type=json&max=500", http.StatusOK)
	if err := json.Unmarshal(ans.body, &feed); err != nil {
		t.Fatalf("newest items of big: %v", err)
	}
	seen := map[string]bool{}
	for _, it := range feed.Items {
		for _, w := range strings.Fields(strings.ToLower(it.Title)) {
			seen[w] = true
		}
	}
	words := slices.Sorted(func(yield func(string) bool) {
		for w := range seen {
			if !yield(w) {
				return
			}
		}
	})
	if len(words) < 100 {
		t.Fatalf("the newest items of big hold %d distinct title words: is this the benchmark's archive?", len(words))
	}
	vocab := filepath.Join(t.TempDir(), "words.txt")
	if err := os.WriteFile(vocab, []byte(strings.Join(words, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d words from %d newest items", len(words), len(feed.Items))

	const rounds, d = 3, 20 * time.Second
	modes := []string{"none", "title", "title_and_desc"}
	for round := range rounds {
		for i := range modes {
			mode := modes[(i+round)%len(modes)]
			pgBefore := postgresCPU(t)
			r, cpu := cpuPerRequest(t, p.cmd.Process.Pid, func() *wrkResult {
				return runWrk(t, wrkRun{name: fmt.Sprintf("keywords %s (round %d)", mode, round+1), url: p.base, conns: 8, d: d, script: "keywords.lua", args: []string{vocab, mode}})
			})
			pg := float64(spentSince(pgBefore, postgresCPU(t)).Microseconds()) / float64(r.requests)
			r.mustBeClean(t, mode, false)
			t.Logf("RESULT | keywords %s, round %d | p50 %s | p99 %s | %.0f req/s | Dynamo %.0f us, PostgreSQL %.0f us CPU per answer | load %s |",
				mode, round+1, r.p50, r.p99, r.rps, cpu, pg, loadAverage())
		}
	}
}

// postgresCPU is the CPU time, user and system, of each process named
// postgres on this machine (the server and its backends), from /proc.
func postgresCPU(t *testing.T) map[int]time.Duration {
	t.Helper()
	comms, err := filepath.Glob("/proc/[0-9]*/comm")
	if err != nil {
		t.Fatal(err)
	}
	cpu := map[int]time.Duration{}
	for _, comm := range comms {
		name, err := os.ReadFile(comm)
		if err != nil || strings.TrimSpace(string(name)) != "postgres" {
			continue // gone, or another program
		}
		var pid int
		if _, err := fmt.Sscanf(comm, "/proc/%d/comm", &pid); err != nil {
			continue
		}
		if d, err := cpuOf(pid); err == nil { // a backend may end meanwhile
			cpu[pid] = d
		}
	}
	return cpu
}

// spentSince is the CPU time the postgres processes of now spent since
// before (postgresCPU): one started meanwhile counts from zero, one that
// ended meanwhile is not counted (its last ticks are not known).
func spentSince(before, now map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range now {
		d += t - before[pid]
	}
	return d
}
