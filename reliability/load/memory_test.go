package load_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memoryBound is the most `dynamo serve` may hold resident with the
// sources of TestServeMemory registered: the goal of 200 MB (docs/RELIABILITY.md "Load, memory and a peer",
// issue 10) for 10,000 sources in long mode, and for the short run's 2,000
// a bound about twice the 37 MB measured (docs/benchmarks/load.md), which
// catches a leak or a per-source cost that grew without flaking on noise.
func memoryBound(sources int) int64 {
	if sources >= 10000 {
		return 200 << 20
	}
	return 80 << 20
}

// TestServeMemory registers thousands of sources with the built binary
// (a sources file), lets its poller schedule and poll them against a
// loopback site, then reads the listings of every source (the feed of all
// collections, the admin list, the stats), and reads the process's
// resident memory from /proc: its peak must stay under memoryBound. 2,000
// sources for a few seconds by default; 10,000 for a minute in long mode.
func TestServeMemory(t *testing.T) {
	n, settle := 2000, 5*time.Second
	if long() {
		n, settle = 10000, time.Minute
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			// Several origins, because the fetcher polls one host:port
			// at most once a second; each page is distinct, so every
			// first poll stores a version.
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/p/"), ".html")
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Write(annotatedPage("Source "+id, stories(len(id)*1000, 5)...))
			})
			var origins []string
			for range 16 {
				o := httptest.NewServer(handler)
				t.Cleanup(o.Close)
				origins = append(origins, o.URL)
			}
			type entry struct {
				ID       string `json:"id"`
				URL      string `json:"url"`
				Kind     string `json:"kind"`
				Interval string `json:"interval"`
			}
			list := make([]entry, n)
			for i := range list {
				id := fmt.Sprintf("s%05d", i)
				list[i] = entry{id, fmt.Sprintf("%s/p/%s.html", origins[i%len(origins)], id), "html", "30m"}
			}
			data, err := json.Marshal(map[string]any{"sources": list})
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "sources.json")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}

			dynamoBinary(t) // built before the clock starts
			started := time.Now()
			p := startServe(t, "--db", st.dsn(t), "--sources", file, "--allow-private")
			startup := time.Since(started)
			var peak int64
			for end := time.Now().Add(settle); time.Now().Before(end); time.Sleep(time.Second) {
				rss, _ := p.memory(t)
				peak = max(peak, rss)
			}
			rss, hwm := p.memory(t)
			c := newDynamoClient(t, p.base)
			polls := counterByLabel(t, c, "dynamo_polls_total", "status")
			var stats struct {
				Sources  int `json:"sources"`
				Versions int `json:"versions"`
			}
			if err := json.Unmarshal(c.get("/api/stats", http.StatusOK).body, &stats); err != nil {
				t.Fatal(err)
			}
			listing := c.get("/resources?type=atom", http.StatusOK)
			c.get("/api/sources", http.StatusOK)
			afterRSS, afterHWM := p.memory(t)
			t.Logf("RESULT | serve memory %s: %d sources (startup with the sources file %s), after %s: VmRSS %s, highest sampled %s, VmHWM %s; %d versions stored, polls %v; after reading the stats, /resources (%d kB) and /api/sources: VmRSS %s, VmHWM %s | load %s |",
				st.name, stats.Sources, startup.Round(time.Millisecond), settle, mb(rss), mb(peak), mb(hwm), stats.Versions, polls,
				len(listing.body)>>10, mb(afterRSS), mb(afterHWM), loadAverage())
			if stats.Sources != n {
				t.Errorf("%d sources registered, want %d", stats.Sources, n)
			}
			if polls["changed"] == 0 || stats.Versions == 0 {
				t.Errorf("the poller stored nothing in %s: polls %v, %d versions", settle, polls, stats.Versions)
			}
			if bound := memoryBound(n); afterHWM > bound {
				t.Errorf("VmHWM %s with %d sources: over the bound of %s", mb(afterHWM), n, mb(bound))
			}
		})
	}
}

// counterByLabel sums a counter of /metrics by the value of one label.
func counterByLabel(t testing.TB, c *dynamoClient, metric, label string) map[string]int {
	t.Helper()
	line := regexp.MustCompile(`^` + metric + `\{[^}]*` + label + `="([^"]*)"[^}]*\} ([0-9.e+]+)$`)
	sums := map[string]int{}
	for _, l := range strings.Split(string(c.get("/metrics", http.StatusOK).body), "\n") {
		if m := line.FindStringSubmatch(l); m != nil {
			v, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				t.Fatalf("/metrics: %s: %v", l, err)
			}
			sums[m[1]] += int(v)
		}
	}
	return sums
}
