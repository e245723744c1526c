package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage"
)

// memoryChildEnv, when set, makes TestServeMemoryBound the child: it runs
// `dynamo serve` with the arguments the variable holds (JSON).
const memoryChildEnv = "DYNAMO_MEMORY_CHILD"

// memoryBound is the peak resident memory allowed to serve.
const memoryBound = 200 << 20

// TestServeMemoryBound runs `dynamo serve` in a process of its own (this
// test binary again) over an embedded store of DYNAMO_MEMORY_SOURCES
// sources (2,000 unless set; docs/STORAGE.md measures 100,000) on a
// loopback origin, and reads its peak resident memory (VmHWM in
// /proc/PID/status) while it polls and after it answered GET /api/sources
// with every source: under 200 MB. /resources, still built whole, is
// measured and logged, not bounded (docs/STORAGE.md).
func TestServeMemoryBound(t *testing.T) {
	if args := os.Getenv(memoryChildEnv); args != "" {
		var argv []string
		if err := json.Unmarshal([]byte(args), &argv); err != nil {
			t.Fatal(err)
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if code := runServe(ctx, argv, stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}); code != 0 {
			t.Fatalf("serve exited %d", code)
		}
		return
	}
	n := 2000
	if v := os.Getenv("DYNAMO_MEMORY_SOURCES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("DYNAMO_MEMORY_SOURCES=%q: want a number of sources", v)
		}
	}
	var hits atomic.Int64
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		fmt.Fprint(w, `<html><body><h1><!-- <channel:title> -->Town<!-- </channel:title> --></h1>`+
			`<p><!-- <item:title index="1"> -->Only story<!-- </item:title> --></p></body></html>`)
	})
	// Origins on 64 loopback addresses, since the fetcher waits a second
	// between two requests to one host.
	origins := make([]string, 64)
	for i := range origins {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", i+2))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(handler)
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		defer srv.Close()
		origins[i] = srv.URL
	}
	db := filepath.Join(t.TempDir(), "dynamo.db")
	fillSourcesBulk(t, db, origins, n)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	argv, _ := json.Marshal([]string{"--db", db, "--addr", addr, "--allow-private", "--cache-mib", "0"})
	child := exec.Command(os.Args[0], "-test.run=^TestServeMemoryBound$")
	child.Env = append(os.Environ(), memoryChildEnv+"="+string(argv))
	var logs strings.Builder
	child.Stderr = &logs
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		child.Process.Signal(syscall.SIGTERM)
		child.Wait()
	}()
	base := "http://" + addr
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); !ok(); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 2 minutes; serve's log:\n%.3000s", what, logs.String())
			}
		}
	}
	waitFor("serve answers", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	})
	polls := min(int64(n), 50)
	waitFor(fmt.Sprintf("%d polls", polls), func() bool { return hits.Load() >= polls })
	peak := func() int64 {
		t.Helper()
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", child.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				if err != nil {
					t.Fatalf("VmHWM %q: %v", v, err)
				}
				return kb << 10
			}
		}
		t.Fatal("no VmHWM in /proc/PID/status")
		return 0
	}
	check := func(when string) {
		t.Helper()
		got := peak()
		t.Logf("%d sources, %s: VmHWM %.1f MB", n, when, float64(got)/(1<<20))
		if got > memoryBound {
			t.Errorf("%d sources, %s: peak resident memory %.1f MB, want under %d MB", n, when, float64(got)/(1<<20), memoryBound>>20)
		}
	}
	check("polling")

	resp, err := http.Get(base + "/api/sources")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Sources []struct {
			ID string `json:"id"`
		} `json:"sources"`
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list.Sources) != n {
		t.Fatalf("GET /api/sources: %d sources (%v), want %d", len(list.Sources), err, n)
	}
	check("after GET /api/sources")

	resp, err = http.Get(base + "/resources")
	if err != nil {
		t.Fatal(err)
	}
	size, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	t.Logf("%d sources, after GET /resources (%d bytes, built whole, not bounded): VmHWM %.1f MB", n, size, float64(peak())/(1<<20))
}

// fillSourcesBulk stores n sources, spread over origins, in the embedded
// store at db:
// one through the store, the others copies of its row in one transaction,
// which takes seconds where n transactions would take minutes.
func fillSourcesBulk(t *testing.T, db string, origins []string, n int) {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := dynamo.NewSource("s0000000", origins[0]+"/p/0")
	tmpl.Kind = dynamo.KindHTML
	if err := st.CreateSource(ctx, tmpl); err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "CREATE TEMP TABLE tmpl AS SELECT * FROM sources"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < n; i++ {
		if _, err := tx.ExecContext(ctx, "UPDATE tmpl SET id = ?, url = ?", fmt.Sprintf("s%07d", i), fmt.Sprintf("%s/p/%d", origins[i%len(origins)], i)); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO sources SELECT * FROM tmpl"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
