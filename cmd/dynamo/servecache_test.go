package main

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/sqlitetest"
)

// Readers on loopback get cached answers. Without an admin token every
// loopback client is an operator, and an operator's reads skip the answer
// cache only with read replicas (to read the primary): without them, a
// loopback reader (a local proxy, a benchmark) would otherwise never hit it.
func TestServeCachesLoopbackReadersWithoutReplicas(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<html><body><!-- <channel:title> -->News<!-- </channel:title> -->
<!-- <item:title index="1"> -->One<!-- </item:title> --><!-- <item:description index="1"> --><p>First.</p><!-- </item:description> -->
</body></html>`))
	}))
	defer origin.Close()
	base := startServe(t, serveConfig{db: sqlitetest.Path(t, t.TempDir(), "dynamo.db"), allowPrivate: true, hostGap: -1})
	post := func(path, body string) {
		t.Helper()
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %s", path, resp.Status)
		}
	}
	post("/api/sources", `{"id":"news","url":"`+origin.URL+`/","kind":"html","interval":"1h"}`)
	post("/api/sources/news/poll", "")
	hitsBefore := cacheHits(t, base)
	for range 3 {
		resp, err := http.Get(base + "/resources/news?max=5")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /resources/news: %s", resp.Status)
		}
	}
	if hits := cacheHits(t, base) - hitsBefore; hits < 2 {
		t.Errorf("three reads of the same answer from loopback hit the cache %d times, want 2", hits)
	}
}

// cacheHits reads dynamo_cache_lookups_total{result="hit"} from /metrics.
func cacheHits(t *testing.T, base string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), `dynamo_cache_lookups_total{result="hit"} `); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("metrics: %q: %v", sc.Text(), err)
			}
			return n
		}
	}
	t.Fatal("metrics: no cache hit counter")
	return 0
}
