//go:build long

package load_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompressedBytes records the bytes on the wire of each format, plain
// and gzip, for the load tests' synthetic archive and for the example
// pages (docs/benchmarks/compression.md), in long mode only; every gzip
// body must decode to the plain one.
func TestCompressedBytes(t *testing.T) {
	const readerHost = "feeds.example.org"
	s := newSite(t)
	p := startServe(t, "--db", filepath.Join(t.TempDir(), "dynamo.db"), "--allow-private")
	c := newDynamoClient(t, p.base)
	waitCache(t, c)
	fillArchive(t, c, s)
	for _, name := range []string{"news", "blog"} {
		page, err := os.ReadFile(filepath.Join("..", "..", "examples", name+".html"))
		if err != nil {
			t.Fatal(err)
		}
		s.set("/example-"+name+".html", page)
		c.register("example-"+name, s.URL+"/example-"+name+".html")
		c.poll("example-"+name, 1)
	}
	table := []string{"| answer | format | plain | gzip | gzip/plain |", "|---|---|---|---|---|"}
	for _, path := range []string{"/resources/news?max=50", "/resources/example-news?index=1", "/resources/example-blog?index=1", "/aggregate?max=100"} {
		for _, typ := range []string{"rss2", "rss1", "atom", "json", "xmldata"} {
			u := path + "&type=" + typ
			plain := c.do(http.MethodGet, u, "", nil, "Accept-Encoding", "identity", "Host", readerHost)
			zipped := c.do(http.MethodGet, u, "", nil, "Accept-Encoding", "gzip", "Host", readerHost)
			if plain.status != http.StatusOK || zipped.status != http.StatusOK || zipped.header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("%s: %d and %d, Content-Encoding %q", u, plain.status, zipped.status, zipped.header.Get("Content-Encoding"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
			if err != nil {
				t.Fatal(err)
			}
			if decoded, err := io.ReadAll(zr); err != nil || !bytes.Equal(decoded, plain.body) {
				t.Fatalf("%s: the gzip body does not decode to the plain one (%v)", u, err)
			}
			table = append(table, fmt.Sprintf("| `%s` | %s | %d | %d | %.1f %% |", path, typ, len(plain.body), len(zipped.body), 100*float64(len(zipped.body))/float64(len(plain.body))))
		}
	}
	t.Logf("RESULT bytes on the wire:\n%s", strings.Join(table, "\n"))
}

// TestWrkCompressed is issue 14's benchmark, in long mode only
// (docs/benchmarks/compression.md): the built `dynamo serve` answering the
// cached `?max=50` feed gzip-compressed (wrk -H 'Accept-Encoding: gzip'),
// beside a static Go handler writing the same compressed bytes and headers
// from memory, in one run; and the bytes on the wire of each format,
// plain and compressed.
//
// The requests name a public host: a loopback request to a loopback Host
// is the operator's own (auth.Access), and an operator's reads bypass the
// render cache, so they would measure rendering, not the cache.
func TestWrkCompressed(t *testing.T) {
	const readerHost = "feeds.example.org"
	s := newSite(t)
	p := startServe(t, "--db", filepath.Join(t.TempDir(), "dynamo.db"), "--allow-private")
	c := newDynamoClient(t, p.base)
	waitCache(t, c)
	fillArchive(t, c, s)

	const path = "/resources/news?max=50"
	ans := c.do(http.MethodGet, path, "", nil, "Accept-Encoding", "gzip", "Host", readerHost)
	if ans.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip answer: %v", ans.header)
	}
	mem := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range ans.header {
			w.Header()[k] = v
		}
		w.Write(ans.body)
	}))
	t.Cleanup(mem.Close)
	gzipHeader := []string{"Accept-Encoding: gzip", "Host: " + readerHost}
	// Twice in turn, so that a burst of load from elsewhere on the
	// machine does not land on one side only. Beside the requests per
	// second, which on a shared machine say as much about the others'
	// load, the CPU time each server spent per request: Dynamo's process,
	// and this one, which serves the bytes from memory and is otherwise
	// idle while wrk runs.
	for round := range 2 {
		hits, _ := cacheLookups(t, c)
		cached, cachedCPU := cpuPerRequest(t, p.cmd.Process.Pid, func() *wrkResult {
			return runWrk(t, wrkRun{name: fmt.Sprintf("max=50 cached, gzip (round %d)", round+1), url: p.base + path, conns: 256, d: 15 * time.Second, script: "percentiles.lua", header: gzipHeader})
		})
		cached.mustBeClean(t, "cached", false)
		after, _ := cacheLookups(t, c)
		memory, memoryCPU := cpuPerRequest(t, os.Getpid(), func() *wrkResult {
			return runWrk(t, wrkRun{name: fmt.Sprintf("max=50 the same gzip bytes from memory (round %d)", round+1), url: mem.URL + path, conns: 256, d: 15 * time.Second, script: "percentiles.lua", header: gzipHeader})
		})
		memory.mustBeClean(t, "memory", false)
		t.Logf("RESULT | max=50 gzip, round %d: cached/memory %.0f %% (%.0f vs %.0f req/s) | CPU per request %.1f vs %.1f us: memory/cached %.0f %% | %d gzip bytes per answer | cache hits during the cached run %d for %d requests |",
			round+1, 100*cached.rps/memory.rps, cached.rps, memory.rps, cachedCPU, memoryCPU, 100*memoryCPU/cachedCPU, len(ans.body), after-hits, cached.requests)
		if after-hits < cached.requests {
			t.Errorf("the cached run missed the cache: %d hits for %d requests", after-hits, cached.requests)
		}
	}

	// The same pair uncompressed, for comparison in the same run.
	plainAns := c.do(http.MethodGet, path, "", nil, "Accept-Encoding", "identity", "Host", readerHost)
	plainMem := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range plainAns.header {
			w.Header()[k] = v
		}
		w.Write(plainAns.body)
	}))
	t.Cleanup(plainMem.Close)
	hostHeader := []string{"Host: " + readerHost}
	cachedPlain, cachedCPU := cpuPerRequest(t, p.cmd.Process.Pid, func() *wrkResult {
		return runWrk(t, wrkRun{name: "max=50 cached, plain", url: p.base + path, conns: 256, d: 15 * time.Second, script: "percentiles.lua", header: hostHeader})
	})
	cachedPlain.mustBeClean(t, "cached plain", false)
	memoryPlain, memoryCPU := cpuPerRequest(t, os.Getpid(), func() *wrkResult {
		return runWrk(t, wrkRun{name: "max=50 the same plain bytes from memory", url: plainMem.URL + path, conns: 256, d: 15 * time.Second, script: "percentiles.lua", header: hostHeader})
	})
	memoryPlain.mustBeClean(t, "memory plain", false)
	t.Logf("RESULT | max=50 plain: cached/memory %.0f %% (%.0f vs %.0f req/s) | CPU per request %.1f vs %.1f us: memory/cached %.0f %% | %d bytes per answer |",
		100*cachedPlain.rps/memoryPlain.rps, cachedPlain.rps, memoryPlain.rps, cachedCPU, memoryCPU, 100*memoryCPU/cachedCPU, len(plainAns.body))
}

// cpuPerRequest runs the wrk run run and returns it with the CPU time, in
// microseconds per request, that process pid (the server under test) spent
// meanwhile, user and system, read from /proc.
func cpuPerRequest(t *testing.T, pid int, run func() *wrkResult) (*wrkResult, float64) {
	t.Helper()
	before := processCPU(t, pid)
	res := run()
	spent := processCPU(t, pid) - before
	if res.requests == 0 {
		t.Fatalf("wrk made no request:\n%s", res.out)
	}
	return res, float64(spent.Microseconds()) / float64(res.requests)
}

// processCPU is the user and system CPU time process pid has used
// (cpuOf); it fails the test if the process is gone.
func processCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	d, err := cpuOf(pid)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// cpuOf is the user and system CPU time process pid has used, from
// /proc/PID/stat (fields 14 and 15, in clock ticks: USER_HZ, 100 on Linux).
func cpuOf(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	var utime, stime int64
	if _, err := fmt.Sscan(fields[11], &utime); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat utime %q: %w", pid, fields[11], err)
	}
	if _, err := fmt.Sscan(fields[12], &stime); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat stime %q: %w", pid, fields[12], err)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}
