//go:build long

package load_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// wrkRun says how to run wrk once.
type wrkRun struct {
	name   string        // for the log
	url    string        // a 127.0.0.1 URL
	conns  int           // connections, over 2 threads
	d      time.Duration // how long
	script string        // a file of testdata
	args   []string      // for the script's init
	header []string      // "Name: value" headers sent with every request
}

// wrkResult is what wrk printed, read.
type wrkResult struct {
	out                                string
	requests                           int
	rps                                float64
	p50, p75, p90, p99, p999, max      string
	connect, read, write, timeout, bad int // socket errors; bad: non-2xx/3xx answers
	mix                                map[string]int
}

var (
	wrkRequests = regexp.MustCompile(`(\d+) requests in `)
	wrkRPS      = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	wrkSocket   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkBad      = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkPct      = regexp.MustCompile(`(?m)^\s+(50|75|90|99)%\s+(\S+)\s*$`)
	wrkMax      = regexp.MustCompile(`(?m)^\s+Latency\s+\S+\s+\S+\s+(\S+)`)
	wrkP999     = regexp.MustCompile(`p99\.9=(\d+)us`)
	wrkMix      = regexp.MustCompile(`([a-z0-9]+)=(\d+)`)
)

// runWrk runs wrk (from Debian's package) with --latency and reads its
// report; it fails the test if wrk fails or prints no report.
func runWrk(t *testing.T, r wrkRun) *wrkResult {
	t.Helper()
	bin, err := exec.LookPath("wrk")
	if err != nil {
		t.Fatalf("wrk is needed in long mode (apt-get install wrk; scripts/reliability.sh installs it): %v", err)
	}
	if !strings.HasPrefix(r.url, "http://127.0.0.1:") {
		t.Fatalf("wrk may only target 127.0.0.1, not %s", r.url)
	}
	script, err := filepath.Abs(filepath.Join("testdata", r.script))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-t2", fmt.Sprintf("-c%d", r.conns), fmt.Sprintf("-d%ds", int(r.d.Seconds())), "--timeout", "10s", "--latency", "-s", script}
	for _, h := range r.header {
		args = append(args, "-H", h)
	}
	args = append(args, r.url)
	if len(r.args) > 0 {
		args = append(append(args, "--"), r.args...)
	}
	load := loadAverage()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("wrk %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	res := &wrkResult{out: string(out), mix: map[string]int{}}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	m := wrkRequests.FindStringSubmatch(res.out)
	rps := wrkRPS.FindStringSubmatch(res.out)
	if m == nil || rps == nil {
		t.Fatalf("wrk printed no report:\n%s", out)
	}
	res.requests = atoi(m[1])
	res.rps, _ = strconv.ParseFloat(rps[1], 64)
	if m := wrkSocket.FindStringSubmatch(res.out); m != nil {
		res.connect, res.read, res.write, res.timeout = atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4])
	}
	if m := wrkBad.FindStringSubmatch(res.out); m != nil {
		res.bad = atoi(m[1])
	}
	for _, m := range wrkPct.FindAllStringSubmatch(res.out, -1) {
		switch m[1] {
		case "50":
			res.p50 = m[2]
		case "75":
			res.p75 = m[2]
		case "90":
			res.p90 = m[2]
		case "99":
			res.p99 = m[2]
		}
	}
	if m := wrkMax.FindStringSubmatch(res.out); m != nil {
		res.max = m[1]
	}
	if m := wrkP999.FindStringSubmatch(res.out); m != nil {
		res.p999 = (time.Duration(atoi(m[1])) * time.Microsecond).String()
	}
	if i := strings.Index(res.out, "mix:"); i >= 0 {
		line, _, _ := strings.Cut(res.out[i:], "\n")
		for _, m := range wrkMix.FindAllStringSubmatch(line, -1) {
			res.mix[m[1]] = atoi(m[2])
		}
	}
	t.Logf("wrk %s:\n%s", strings.Join(args, " "), out)
	t.Logf("RESULT | %s | %d conns, %s | %.0f req/s | p50 %s | p90 %s | p99 %s | p99.9 %s | max %s | %d requests, non-2xx/3xx %d, socket errors connect %d read %d write %d timeout %d | load before %s |",
		r.name, r.conns, r.d, res.rps, res.p50, res.p90, res.p99, res.p999, res.max, res.requests, res.bad, res.connect, res.read, res.write, res.timeout, load)
	return res
}

// mustBeClean fails the test on any wrk error: an answer that is not 2xx
// or 3xx, or a socket error. closes says the server closes the connection
// after each answer (PHP's built-in server), which wrk 4.1 counts as a
// read error once per request: those are then allowed, up to the count of
// requests.
func (r *wrkResult) mustBeClean(t *testing.T, what string, closes bool) {
	t.Helper()
	reads := r.read
	if closes && reads <= r.requests+r.requests/100+64 {
		reads = 0
	}
	if r.bad != 0 || r.connect != 0 || r.write != 0 || r.timeout != 0 || reads != 0 || r.requests == 0 {
		t.Errorf("%s: wrk saw errors:\n%s", what, r.out)
	}
}

// cacheLookups reads Dynamo's cache hits and misses from /metrics.
func cacheLookups(t *testing.T, c *dynamoClient) (hits, misses int) {
	t.Helper()
	l := counterByLabel(t, c, "dynamo_cache_lookups_total", "result")
	return l["hit"], l["miss"]
}

// TestWrk runs wrk against the built `dynamo serve` over each store, for
// the record (docs/benchmarks/load.md), in long mode only:
//   - a minute at 256 connections on the mix of TestLoad without its
//     client errors (wrk counts 4xx as errors), through testdata/mix.lua,
//     which checks that answers are 200 or 304 and 304 only where asked;
//   - issue 5's benchmark: the cached `?max=50` answer beside a plain
//     handler writing the same bytes and headers from memory, in turn,
//     twice, and the same answer uncached (testdata/fresh_host.lua),
//     checked to miss the cache on every request.
//
// Every run must be free of errors.
func TestWrk(t *testing.T) {
	const path = "/resources/news?max=50"
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			s := newSite(t)
			p := startServe(t, "--db", st.dsn(t), "--allow-private")
			c := newDynamoClient(t, p.base)
			waitCache(t, c)
			fillArchive(t, c, s)

			var lines []string
			for _, rq := range loadMix(t, c) {
				if rq.want != http.StatusOK && rq.want != http.StatusNotModified {
					continue
				}
				name, value := "", ""
				if len(rq.header) == 2 {
					name, value = rq.header[0], rq.header[1]
				}
				lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%d", rq.path, name, value, rq.want))
			}
			mixFile := filepath.Join(t.TempDir(), "requests.tsv")
			if err := os.WriteFile(mixFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			mix := runWrk(t, wrkRun{name: "mix " + st.name, url: p.base, conns: 256, d: time.Minute, script: "mix.lua", args: []string{mixFile}})
			mix.mustBeClean(t, "mix", false)
			m := mix.mix
			t.Logf("mix %s: %v", st.name, m)
			if m["other"] != 0 || m["empty"] != 0 || m["got304"] > m["sent304"] || m["got200"] > m["sent200"] ||
				m["got200"]+m["got304"] != mix.requests || m["got304"] == 0 || m["got200"] == 0 {
				t.Errorf("mix answers do not match the requests: %v (wrk counted %d)", m, mix.requests)
			}

			// Issue 5: the cached answer and the same bytes from
			// memory, twice in turn so that a burst of load from
			// elsewhere on the machine does not land on one side only,
			// then the answer uncached.
			ans := c.get(path, http.StatusOK)
			mem := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range ans.header {
					w.Header()[k] = v
				}
				w.Write(ans.body)
			}))
			t.Cleanup(mem.Close)
			d := 15 * time.Second
			var cachedRPS, ratios []float64
			for round := range 2 {
				cached := runWrk(t, wrkRun{name: fmt.Sprintf("max=50 cached %s (round %d)", st.name, round+1), url: p.base + path, conns: 256, d: d, script: "percentiles.lua"})
				cached.mustBeClean(t, "cached", false)
				memory := runWrk(t, wrkRun{name: fmt.Sprintf("max=50 same bytes from memory (round %d)", round+1), url: mem.URL + path, conns: 256, d: d, script: "percentiles.lua"})
				memory.mustBeClean(t, "memory", false)
				cachedRPS = append(cachedRPS, cached.rps)
				ratios = append(ratios, 100*cached.rps/memory.rps)
			}
			_, missesBefore := cacheLookups(t, c)
			uncached := runWrk(t, wrkRun{name: "max=50 uncached " + st.name, url: p.base + path, conns: 256, d: d, script: "fresh_host.lua"})
			uncached.mustBeClean(t, "uncached", false)
			_, missesAfter := cacheLookups(t, c)
			t.Logf("RESULT | max=50 %s: cached/memory %.0f %% and %.0f %% (rounds 1, 2) | uncached/cached %.1f %% | cache misses during the uncached run %d for %d requests |",
				st.name, ratios[0], ratios[1], 100*uncached.rps/((cachedRPS[0]+cachedRPS[1])/2), missesAfter-missesBefore, uncached.requests)
			if missesAfter-missesBefore < uncached.requests {
				t.Errorf("the uncached run hit the cache: %d misses for %d requests", missesAfter-missesBefore, uncached.requests)
			}
		})
	}
}
