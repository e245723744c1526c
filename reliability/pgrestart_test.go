package reliability_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
)

// pgCluster is a throwaway PostgreSQL cluster that a test owns, so that it
// can stop and start the server under a running Dynamo. The shared test
// server (DYNAMO_TEST_DATABASE_URL) is never stopped.
type pgCluster struct {
	bin, dir, data string
	port           int
	asUser         string // run the tools as this user (initdb refuses root); "" for ourselves
}

// pgBin finds PostgreSQL's programs: $DYNAMO_PG_BIN, which scripts/test.sh
// exports, or else the newest /usr/lib/postgresql/*/bin.
func pgBin(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("DYNAMO_PG_BIN"); dir != "" {
		return dir
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		a, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		b, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return a < b
	})
	if len(dirs) == 0 {
		t.Fatal("PostgreSQL's programs are missing (initdb, pg_ctl): run scripts/test.sh, which installs them and exports DYNAMO_PG_BIN")
	}
	return dirs[len(dirs)-1]
}

// startCluster creates a cluster in a fresh directory and starts it on a
// free loopback port; the test's cleanup stops it and removes everything.
func startCluster(t *testing.T) *pgCluster {
	t.Helper()
	c := &pgCluster{bin: pgBin(t)}
	if os.Geteuid() == 0 {
		c.asUser = "postgres"
		if _, err := user.Lookup(c.asUser); err != nil {
			t.Fatalf("running as root, initdb needs the user %s: %v", c.asUser, err)
		}
	}
	dir, err := os.MkdirTemp("", "dynamo-pg-restart-")
	if err != nil {
		t.Fatal(err)
	}
	c.dir, c.data = dir, filepath.Join(dir, "data")
	t.Cleanup(func() { os.RemoveAll(dir) })
	if c.asUser != "" {
		u, _ := user.Lookup(c.asUser)
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	c.run(t, "initdb", "-D", c.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	c.start(t)
	t.Cleanup(func() {
		// Whatever state the test left it in; an error only means it was
		// already stopped.
		if err := c.command("pg_ctl", "-D", c.data, "-w", "stop", "-m", "immediate").Run(); err != nil {
			t.Logf("pg_ctl stop at cleanup: %v", err)
		}
	})
	return c
}

// command is one of PostgreSQL's programs, run as the cluster's user.
func (c *pgCluster) command(prog string, args ...string) *exec.Cmd {
	path := filepath.Join(c.bin, prog)
	if c.asUser != "" {
		return exec.Command("runuser", append([]string{"-u", c.asUser, "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

// run runs one of PostgreSQL's programs, as the cluster's user.
func (c *pgCluster) run(t testing.TB, prog string, args ...string) {
	t.Helper()
	if out, err := c.command(prog, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", prog, args, err, out)
	}
}

func (c *pgCluster) pgctl(t testing.TB, args ...string) {
	t.Helper()
	c.run(t, "pg_ctl", append([]string{"-D", c.data, "-w", "-t", "60"}, args...)...)
}

func (c *pgCluster) start(t testing.TB) {
	t.Helper()
	c.pgctl(t, "-l", filepath.Join(c.dir, "log"), "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", c.port, c.dir), "start")
}

// stop stops the server the way a crash or an operator's restart would:
// "immediate" ends every backend at once, without a checkpoint.
func (c *pgCluster) stop(t testing.TB) { c.pgctl(t, "stop", "-m", "immediate") }

func (c *pgCluster) dsn() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&pool_max_conns=8", c.port)
}

// TestPostgresRestartUnderRunningDynamo runs a poller and the API on a
// PostgreSQL server, stops the server while a page changes on every poll,
// and starts it again. While it is down, reads answer 5xx quickly, /healthz
// answers 503, polls fail and are logged, and nothing crashes or hangs.
// Afterwards polling and reads resume by themselves, and the archive has
// every version whole, in order, none stored twice.
func TestPostgresRestartUnderRunningDynamo(t *testing.T) {
	ctx := context.Background()
	cluster := startCluster(t)
	st, err := postgres.Open(ctx, cluster.dsn())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	origin := newChangingOrigin(t, 150*time.Millisecond)
	pageURL := origin.URL + "/news"
	src := &dynamo.Source{ID: "news", URL: pageURL, Kind: dynamo.KindHTML, Interval: dynamo.Duration(100 * time.Millisecond), Policy: "flat"}
	if err := st.CreateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	logs := &logRecorder{}
	var stored, failed atomic.Int64
	p, err := poller.New(poller.Config{
		Store:        st,
		Fetcher:      fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: 5 * time.Second}),
		Owner:        "restart-test",
		Workers:      2,
		Policy:       "flat",
		PolicyConfig: policy.Config{ErrorBase: 100 * time.Millisecond, ErrorMax: 500 * time.Millisecond},
		LeaseTTL:     2 * time.Second,
		Tick:         50 * time.Millisecond,
		Logger:       slog.New(logs),
		OnPoll: func(_ string, status dynamo.PollStatus, _ time.Duration, ok bool) {
			if ok {
				stored.Add(1)
			}
			if status == dynamo.StatusError {
				failed.Add(1)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(api.Config{Store: st, Poller: p, Logger: slog.New(logs), RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(srv)
	defer web.Close()
	pollCtx, stopPoller := context.WithCancel(ctx)
	apiCtx, stopAPI := context.WithCancel(ctx)
	pollerDone, apiDone := make(chan error, 1), make(chan error, 1)
	go func() { pollerDone <- p.Run(pollCtx) }()
	go func() { apiDone <- srv.Run(apiCtx) }()
	defer func() {
		stopPoller()
		stopAPI()
		<-pollerDone
		<-apiDone
	}()

	client := &http.Client{Timeout: 20 * time.Second}
	get := func(path string) (int, time.Duration) {
		t.Helper()
		start := time.Now()
		resp, err := client.Get(web.URL + path)
		if err != nil {
			t.Fatalf("GET %s: %v (the server must answer, not hang or drop the connection)", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, time.Since(start)
	}
	versions := func() int {
		s, err := st.Source(ctx, "news")
		if err != nil {
			return -1
		}
		return s.Summary.Versions
	}

	waitFor(t, 15*time.Second, "three versions stored before the restart", func() bool { return versions() >= 3 })
	if code, _ := get("/resources/news?max=5&type=atom"); code != http.StatusOK {
		t.Fatalf("archive before the restart: HTTP %d", code)
	}

	cluster.stop(t)
	downAt := time.Now()
	failedBefore := failed.Load()
	// While the server is down: every read is an error answered at once,
	// never a hang, and the poller keeps going.
	var slowest time.Duration
	for _, path := range []string{"/resources/news?max=5", "/resources/news?index=1&type=json", "/resources/news", "/resources", "/aggregate?max=3", "/api/sources/news"} {
		code, took := get(path)
		slowest = max(slowest, took)
		if code < 500 {
			t.Errorf("GET %s with PostgreSQL down: HTTP %d, want 5xx", path, code)
		}
	}
	if code, _ := get("/healthz"); code != http.StatusServiceUnavailable {
		t.Errorf("/healthz with PostgreSQL down: HTTP %d, want 503", code)
	}
	// The poller cannot lease while the server is down, so it reports the
	// failure on each tick; a poll caught in flight fails to record.
	failures := func() int { return logs.count("record poll") + logs.count("lease due sources") }
	waitFor(t, 10*time.Second, "the poller reporting the dead store", func() bool { return failures() > 0 })
	time.Sleep(3 * time.Second) // let the poller tick against the dead server for a while
	select {
	case err := <-pollerDone:
		t.Fatalf("the poller stopped while PostgreSQL was down: %v", err)
	default:
	}
	t.Logf("PostgreSQL down for %s: slowest read answered in %s; %d polls failed to record; %d store failures logged, e.g. %q",
		time.Since(downAt).Round(time.Millisecond), slowest.Round(time.Millisecond), failed.Load()-failedBefore,
		failures(), logs.example("lease due sources"))

	cluster.start(t)
	upAt := time.Now()
	storedAtRestart := stored.Load()
	waitFor(t, 20*time.Second, "healthz answering again", func() bool { code, _ := get("/healthz"); return code == http.StatusOK })
	waitFor(t, 30*time.Second, "three more versions stored after the restart", func() bool { return stored.Load() >= storedAtRestart+3 })
	resumed := time.Since(upAt)
	for _, path := range []string{"/resources/news?max=5&type=atom", "/resources/news?index=1&type=json", "/resources", "/aggregate?max=3"} {
		if code, _ := get(path); code != http.StatusOK {
			t.Errorf("GET %s after the restart: HTTP %d", path, code)
		}
	}

	// The poller stops within its fetch timeout once told to.
	stopPoller()
	select {
	case err := <-pollerDone:
		if err != nil {
			t.Errorf("the poller stopped with %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the poller did not stop within 15s of its context ending")
	}
	pollerDone <- nil // for the deferred wait
	// The API's cache followed the store across the restart: it serves the
	// newest version, not an answer cached before the outage.
	newest, _, err := st.Document(ctx, "news", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Story %d", generationOf(t, newest))
	waitFor(t, 5*time.Second, "the API serving the newest version", func() bool {
		resp, err := client.Get(web.URL + "/resources/news?max=1&type=json")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK && strings.Contains(string(body), want)
	})
	n := checkVersions(t, st, "news", pageURL)
	if int64(n) < stored.Load() {
		t.Errorf("%d versions in the archive, but the poller reported %d stored: some were lost", n, stored.Load())
	}
	t.Logf("polling resumed %s after PostgreSQL started again; %d versions, all whole, none lost or repeated (%d polls reported stored, %d failed)",
		resumed.Round(time.Millisecond), n, stored.Load(), failed.Load())
}
