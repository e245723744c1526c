package main

import (
	"bufio"
	"bytes"
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
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage"
)

// memoryChildEnv, when set, makes TestServeMemoryBound the child: it runs
// `dynamo serve` with the arguments the variable holds (JSON).
const memoryChildEnv = "DYNAMO_MEMORY_CHILD"

// memoryBound is the peak resident memory allowed to serve.
const memoryBound = 200 << 20

// TestServeMemoryBound runs `dynamo serve` in a process of its own (this
// test binary again) over each store holding DYNAMO_MEMORY_SOURCES sources
// (2,000 unless set; docs/benchmarks/load.md measures 100,000) on loopback
// origins, and reads its peak resident memory (VmHWM in /proc/PID/status)
// while it polls and after it answered each listing of every source
// (GET /api/sources, /api/sources.opml, and /resources in RSS 2.0, RSS
// 1.0, which reads its sources three times, and JSON Feed), each checked
// for every source, and /aggregate, dated by every source, and the web
// interface's list of sources, a page of which walks every source: under
// 200 MB.
//
// Under the race detector the child's resident memory counts the
// detector's shadow memory, and the detector's reports in the child are
// never read (the child's exit status is not checked): the test skips, and
// scripts/test.sh runs it without the detector.
func TestServeMemoryBound(t *testing.T) {
	if serveChild(t) {
		return
	}
	if raceDetector {
		t.Skip("the race detector's shadow memory makes VmHWM no measure of what serve holds; scripts/test.sh runs this test without -race")
	}
	n := memorySources(t)
	forEachMemoryStore(t, func(t *testing.T, fill fillFunc) {
		var hits atomic.Int64
		origins := loopbackOrigins(t, &hits)
		child := startServeChild(t, fill(t, origins, n, 0), nil)
		polls := min(int64(n), 50)
		child.waitFor(fmt.Sprintf("%d polls", polls), func() bool { return hits.Load() >= polls })
		check := func(when string) {
			t.Helper()
			got := child.peak()
			t.Logf("%d sources, %s: VmHWM %.1f MB", n, when, float64(got)/(1<<20))
			if got > memoryBound {
				t.Errorf("%d sources, %s: peak resident memory %.1f MB, want under %d MB", n, when, float64(got)/(1<<20), memoryBound>>20)
			}
		}
		check("polling")

		// The web interface's list of sources first, so that its own peak
		// shows: 100 sources a page, the first page, the last and a
		// search, each walking every source.
		last := (n + 99) / 100
		for _, page := range []struct {
			path string
			rows int
		}{
			{"/ui/", min(n, 100)},
			{fmt.Sprintf("/ui/?page=%d", last), n - (last-1)*100},
			{fmt.Sprintf("/ui/?q=s%07d", n-1), 1},
		} {
			size, rows := child.countLines(page.path, "<tr>")
			if rows != page.rows {
				t.Errorf("GET %s: %d rows, want %d", page.path, rows, page.rows)
			}
			check(fmt.Sprintf("after GET %s (%.1f kB)", page.path, float64(size)/(1<<10)))
		}

		resp := child.get("/api/sources")
		var list struct {
			Sources []struct {
				ID string `json:"id"`
			} `json:"sources"`
		}
		err := json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil || len(list.Sources) != n {
			t.Fatalf("GET /api/sources: %d sources (%v), want %d", len(list.Sources), err, n)
		}
		list.Sources = nil
		check("after GET /api/sources")

		// The aggregate's dates read every source: walked, not held.
		resp = child.get("/aggregate?max=50")
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		check("after GET /aggregate?max=50")

		for _, listing := range []struct{ path, item string }{
			{"/api/sources.opml", "<outline "},
			{"/resources", "<item>"},
			{"/resources?type=rss1", "<item "},
			{"/resources?type=json", `"id": "urn:uuid:`},
		} {
			size, items := child.countLines(listing.path, listing.item)
			if items != n {
				t.Errorf("GET %s: %d lines with %q, want one per source (%d)", listing.path, items, listing.item, n)
			}
			check(fmt.Sprintf("after GET %s (%.1f MB)", listing.path, float64(size)/(1<<20)))
		}

	})
}

// TestServeStreamsListingLargerThanMemory: `dynamo serve`, its heap
// limited to 32 MiB (GOMEMLIMIT) in a process of its own, answers a
// /resources listing of 20,000 collections whose long URLs make it several
// times that, in RSS 2.0 and RSS 1.0, complete and in order, and its peak
// resident memory (VmHWM) stays below the size of the answer: the answer
// was never held. Both stores.
//
// Under the race detector the child's resident memory counts the
// detector's shadow memory, so it says nothing of what serve holds, and
// the listing takes minutes: the test skips, and scripts/test.sh runs it
// once more without the detector.
func TestServeStreamsListingLargerThanMemory(t *testing.T) {
	if serveChild(t) {
		return
	}
	if raceDetector {
		t.Skip("the race detector's shadow memory makes VmHWM no measure of what serve holds; scripts/test.sh runs this test without -race")
	}
	const n, pad = 20000, 1900
	forEachMemoryStore(t, func(t *testing.T, fill fillFunc) {
		var hits atomic.Int64
		child := startServeChild(t, fill(t, loopbackOrigins(t, &hits), n, pad), []string{"GOMEMLIMIT=32MiB"})
		for path, item := range map[string]string{"/resources": "<item>", "/resources?type=rss1": "<item "} {
			size, items := child.countLines(path, item)
			peak := child.peak()
			t.Logf("GET %s: %.1f MB, %d items; VmHWM %.1f MB", path, float64(size)/(1<<20), items, float64(peak)/(1<<20))
			if items != n {
				t.Errorf("GET %s: %d items, want %d", path, items, n)
			}
			if size <= peak || size <= 64<<20 {
				t.Errorf("GET %s: %.1f MB, peak resident memory %.1f MB: want an answer larger than the peak and than 64 MB", path, float64(size)/(1<<20), float64(peak)/(1<<20))
			}
		}
	})
}

// TestServeStreamsArchiveLargerThanMemory: `dynamo serve`, its heap
// limited to 32 MiB (GOMEMLIMIT) in a process of its own and its answers
// held to 4 MiB (--max-answer-mib), answers the archive of a collection of
// 10,000 items of 8 KB each (`?max=10000`, RSS 2.0, and the same with a
// keyword condition every item matches), complete, and its peak resident
// memory (VmHWM) stays below the size of the answer: the answer, past
// the bound, was streamed, not held. Both stores.
//
// Skipped under the race detector, as TestServeStreamsListingLargerThanMemory.
func TestServeStreamsArchiveLargerThanMemory(t *testing.T) {
	if serveChild(t) {
		return
	}
	if raceDetector {
		t.Skip("the race detector's shadow memory makes VmHWM no measure of what serve holds; scripts/test.sh runs this test without -race")
	}
	const n = 10000
	fill := func(t *testing.T, db string) string {
		fillArchive(t, db, n, 8000)
		return db
	}
	for _, st := range []struct {
		name string
		db   func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "dynamo.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
	} {
		t.Run(st.name, func(t *testing.T) {
			child := startServeChild(t, fill(t, st.db(t)), []string{"GOMEMLIMIT=32MiB"}, "--max-answer-mib", "4")
			for _, path := range []string{"/resources/big?max=10000", "/resources/big?max=10000&title=story"} {
				size, items := child.countLines(path, "<item>")
				peak := child.peak()
				t.Logf("GET %s: %.1f MB, %d items; VmHWM %.1f MB", path, float64(size)/(1<<20), items, float64(peak)/(1<<20))
				if items != n {
					t.Errorf("GET %s: %d items, want %d", path, items, n)
				}
				if size <= peak || size <= 64<<20 {
					t.Errorf("GET %s: %.1f MB, peak resident memory %.1f MB: want an answer larger than the peak and than 64 MB", path, float64(size)/(1<<20), float64(peak)/(1<<20))
				}
			}
		})
	}
}

// fillArchive stores, through the store at db, a paused collection "big"
// of n items whose descriptions are pad bytes, in versions of 5,000 items
// (the default --max-items), each version holding new items only.
func fillArchive(t *testing.T, db string, n, pad int) {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := dynamo.NewSource("big", "https://example.org/big")
	src.Kind, src.Paused = dynamo.KindHTML, true
	if err := st.CreateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	for first := 0; first < n; first += 5000 {
		doc := &dynamo.Resource{URL: src.URL, RSSID: src.ID, Timestamp: at,
			Channel: dynamo.Channel{Title: "Big", Link: src.URL, Description: "An archive larger than memory."}}
		for i := first; i < min(first+5000, n); i++ {
			doc.Items = append(doc.Items, dynamo.Item{Index: i - first + 1, ID: fmt.Sprintf("item-%05d", i),
				Title: fmt.Sprintf("Story %d", i), Link: fmt.Sprintf("https://example.org/story/%d", i),
				Description: fmt.Sprintf("<p>Paragraph %d: %s</p>", i, strings.Repeat("words of the story ", pad/19))})
		}
		if _, err := st.LeaseSource(ctx, src.ID, "fill", at, time.Minute); err != nil {
			t.Fatal(err)
		}
		_, err := st.RecordPoll(ctx, dynamo.PollRecord{SourceID: src.ID, Owner: "fill", At: at, Document: doc}, func(r dynamo.PollResult) dynamo.PollUpdate {
			return dynamo.PollUpdate{
				State: dynamo.PollState{LastPoll: at, NextPoll: at.Add(time.Hour), LastStatus: dynamo.StatusChanged},
				Log:   dynamo.PollLogEntry{At: at, Status: dynamo.StatusChanged, NewItems: len(r.NewItems), HTTPStatus: 200},
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Minute)
	}
}

// serveChild reports whether this process is the child of a memory test,
// and if so runs `dynamo serve` with the arguments memoryChildEnv holds.
func serveChild(t *testing.T) bool {
	args := os.Getenv(memoryChildEnv)
	if args == "" {
		return false
	}
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if code := runServe(ctx, argv, stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	return true
}

// fillFunc stores n sources spread over origins, their URLs padded by pad
// bytes, in a fresh store, and returns the store's --db.
type fillFunc func(t *testing.T, origins []string, n, pad int) string

// forEachMemoryStore runs fn over the embedded store and PostgreSQL.
func forEachMemoryStore(t *testing.T, fn func(t *testing.T, fill fillFunc)) {
	t.Run("sqlite", func(t *testing.T) {
		fn(t, func(t *testing.T, origins []string, n, pad int) string {
			db := filepath.Join(t.TempDir(), "dynamo.db")
			fillSourcesBulk(t, db, origins, n, pad)
			return db
		})
	})
	t.Run("postgres", func(t *testing.T) {
		fn(t, func(t *testing.T, origins []string, n, pad int) string {
			dsn := pgtest.DSN(t)
			fillSourcesBulkPostgres(t, dsn, origins, n, pad)
			return dsn
		})
	})
}

// loopbackOrigins serves an annotated page, answering 304 to a poll that
// has it, on 64 loopback addresses (the fetcher waits a second between two
// requests to one host), counting requests in hits.
func loopbackOrigins(t *testing.T, hits *atomic.Int64) []string {
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
		t.Cleanup(srv.Close)
		origins[i] = srv.URL
	}
	return origins
}

// serveProcess is `dynamo serve` running in a child process.
type serveProcess struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string
	logs *syncBuffer
}

// syncBuffer is the child's log, written by exec's copying goroutine and
// read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startServeChild starts `dynamo serve` over db, uncached, with env added to
// the child's environment and args to its arguments, and waits until it
// answers.
func startServeChild(t *testing.T, db string, env []string, args ...string) *serveProcess {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// The write timeout is long: these tests bound memory, not time, and
	// a listing of 100,000 sources on the loaded test machine takes more
	// than the default minute to write.
	argv, _ := json.Marshal(append([]string{"--db", db, "--addr", addr, "--allow-private", "--cache-mib", "0", "--write-timeout", "15m"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()[:strings.Index(t.Name()+"/", "/")]+"$")
	cmd.Env = append(append(os.Environ(), memoryChildEnv+"="+string(argv)), env...)
	p := &serveProcess{t: t, cmd: cmd, base: "http://" + addr, logs: &syncBuffer{}}
	cmd.Stderr = p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	p.waitFor("serve answers", func() bool {
		resp, err := http.Get(p.base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	})
	return p
}

// waitFor waits until ok, failing the test after 2 minutes.
func (p *serveProcess) waitFor(what string, ok func() bool) {
	p.t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: not within 2 minutes; serve's log:\n%.3000s", what, p.logs.String())
		}
	}
}

// get requests path, failing the test unless it answers 200.
func (p *serveProcess) get(path string) *http.Response {
	p.t.Helper()
	resp, err := http.Get(p.base + path)
	if err != nil {
		p.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1000))
		resp.Body.Close()
		p.t.Fatalf("GET %s: %s: %s", path, resp.Status, body)
	}
	return resp
}

// countLines reads the answer to path line by line, holding one line at a
// time, and returns its size and how many lines start (after spaces) with
// prefix. It fails the test when the collections that items link to (a
// link element, a JSON url, an OPML xmlUrl naming /resources/sNNNNNNN)
// come out of order.
func (p *serveProcess) countLines(path, prefix string) (size int64, lines int) {
	p.t.Helper()
	resp := p.get(path)
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	var last []byte
	for {
		line, err := r.ReadSlice('\n')
		size += int64(len(line))
		if bytes.HasPrefix(bytes.TrimLeft(line, " "), []byte(prefix)) {
			lines++
		}
		linking := bytes.Contains(line, []byte("<link>")) || bytes.Contains(line, []byte(`"url": `)) || bytes.Contains(line, []byte("xmlUrl="))
		if _, id, ok := bytes.Cut(line, []byte("/resources/s")); ok && linking && len(id) >= 7 {
			if bytes.Compare(id[:7], last) < 0 {
				p.t.Fatalf("GET %s: collection s%s after s%s", path, id[:7], last)
			}
			last = append(last[:0], id[:7]...)
		}
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull { // a line longer than the buffer
				line, err = r.ReadSlice('\n')
				size += int64(len(line))
			}
		}
		if err == io.EOF {
			return size, lines
		}
		if err != nil {
			logs := p.logs.String()
			p.t.Fatalf("GET %s: %v after %d bytes; the end of serve's log:\n%s", path, err, size, logs[max(0, len(logs)-3000):])
		}
	}
}

// peak is the child's peak resident memory, VmHWM in /proc/PID/status.
func (p *serveProcess) peak() int64 {
	p.t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		p.t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				p.t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	p.t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// sourceURL is the URL of the i-th bulk source: a page of one of the
// origins, padded by a query of pad bytes.
func sourceURL(origins []string, i, pad int) string {
	u := fmt.Sprintf("%s/p/%d", origins[i%len(origins)], i)
	if pad > 0 {
		u += "?" + strings.Repeat("q", pad)
	}
	return u
}

// createTemplate stores the first bulk source through the store, the row
// the others copy.
func createTemplate(t *testing.T, db string, origins []string, pad int) {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tmpl := dynamo.NewSource("s0000000", sourceURL(origins, 0, pad))
	tmpl.Kind = dynamo.KindHTML
	if err := st.CreateSource(ctx, tmpl); err != nil {
		t.Fatal(err)
	}
}

// fillSourcesBulk stores n sources, spread over origins, in the embedded
// store at db: one through the store, the others copies of its row in one
// transaction, which takes seconds where n transactions would take minutes.
func fillSourcesBulk(t *testing.T, db string, origins []string, n, pad int) {
	t.Helper()
	createTemplate(t, db, origins, pad)
	ctx := context.Background()
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
		if _, err := tx.ExecContext(ctx, "UPDATE tmpl SET id = ?, url = ?", fmt.Sprintf("s%07d", i), sourceURL(origins, i, pad)); err != nil {
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

// fillSourcesBulkPostgres is fillSourcesBulk on PostgreSQL: the copies
// made by one statement.
func fillSourcesBulkPostgres(t *testing.T, dsn string, origins []string, n, pad int) {
	t.Helper()
	createTemplate(t, dsn, origins, pad)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO sources
		SELECT (jsonb_populate_record(s, jsonb_build_object(
			'id', 's' || lpad(g::text, 7, '0'),
			'url', ($1::text[])[g % cardinality($1::text[]) + 1] || '/p/' || g || CASE WHEN $2 > 0 THEN '?' || repeat('q', $2) ELSE '' END))).*
		FROM sources s, generate_series(1, $3 - 1) g`, origins, pad, n)
	if err != nil {
		t.Fatal(err)
	}
}

// memorySources is how many sources the memory tests use: 2,000 in the
// suite, DYNAMO_MEMORY_SOURCES when set (the aim is measured at
// 100,000).
func memorySources(t *testing.T) int {
	v := os.Getenv("DYNAMO_MEMORY_SOURCES")
	if v == "" {
		return 2000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("DYNAMO_MEMORY_SOURCES=%q: want a number of sources", v)
	}
	return n
}
