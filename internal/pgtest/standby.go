package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvBin names the environment variable holding PostgreSQL's bin directory
// (initdb, pg_ctl, pg_basebackup); scripts/test.sh sets it. Without it the
// newest /usr/lib/postgresql/*/bin is used, else the directory of the
// initdb on PATH.
const EnvBin = "DYNAMO_PG_BIN"

// Pair is a primary server and a streaming replica of it (a hot standby
// made with pg_basebackup -R), both small clusters of the test's own on
// loopback ports, in a temporary directory removed when the test ends.
// They are not the shared test server: a standby copies its whole primary,
// and the shared server need not allow replication connections.
type Pair struct {
	// Primary and Standby are the URLs of the two servers' maintenance
	// databases.
	Primary, Standby string

	// startStandby and stopStandby run pg_ctl on the standby.
	startStandby, stopStandby func(t testing.TB)
}

// NewPair starts a primary and a standby of it, both stopped when the test
// ends. A test that needs them must not pass without them, so any failure
// fails the test.
func NewPair(t testing.TB) *Pair {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	dir, err := os.MkdirTemp("", "dynamo-pair-")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// initdb and postgres refuse to run as root: run them as postgres, in
	// a directory it owns.
	var as []string
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("pgtest: running as root needs a postgres user to run the servers: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		as = []string{"runuser", "-u", "postgres", "--"}
	}
	pgctl := func(tool string, args ...string) error {
		argv := append(append(as[:len(as):len(as)], filepath.Join(bin, tool)), args...)
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
		return nil
	}
	run := func(t testing.TB, tool string, args ...string) {
		t.Helper()
		if err := pgctl(tool, args...); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	ports := freePorts(t, 2)
	primary, standby := filepath.Join(dir, "primary"), filepath.Join(dir, "standby")
	// The same settings on both: a hot standby needs max_connections at
	// least its primary's.
	opts := func(port int) string {
		return fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c shared_buffers=32MB", port, dir)
	}
	start := func(t testing.TB, data string, port int) {
		t.Helper()
		run(t, "pg_ctl", "-D", data, "-l", data+".log", "-w", "-t", "60", "-o", opts(port), "start")
	}
	stop := func(data string) error { return pgctl("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop") }
	// Each server is stopped when the test ends, unless it was stopped.
	running := map[string]bool{}
	stopAtEnd := func(data string) {
		t.Cleanup(func() {
			if !running[data] {
				return
			}
			if err := stop(data); err != nil {
				t.Errorf("pgtest: %v", err)
			}
		})
	}
	// initdb's pg_hba.conf admits replication connections from loopback.
	run(t, "initdb", "-D", primary, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	start(t, primary, ports[0])
	running[primary] = true
	stopAtEnd(primary)
	run(t, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(ports[0]), "-U", "postgres", "-D", standby, "-R", "-X", "stream", "--no-sync")
	start(t, standby, ports[1])
	running[standby] = true
	stopAtEnd(standby)
	p := &Pair{
		Primary: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", ports[0]),
		Standby: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", ports[1]),
		startStandby: func(t testing.TB) {
			t.Helper()
			start(t, standby, ports[1])
			running[standby] = true
		},
		stopStandby: func(t testing.TB) {
			t.Helper()
			if err := stop(standby); err != nil {
				t.Fatalf("pgtest: %v", err)
			}
			running[standby] = false
		},
	}
	p.CatchUp(t)
	return p
}

// StopStandby stops the standby at once (pg_ctl -m immediate), as a
// replica that fails would, until StartStandby. Not for parallel tests.
//
// A restartpoint (CHECKPOINT) comes first: else the standby, started
// again, replays everything since its last one before it answers, and
// every test database created since is a CREATE DATABASE's whole copy in
// the WAL (PostgreSQL 15's WAL_LOG strategy), which took more than a minute
// on a loaded machine.
func (p *Pair) StopStandby(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.Standby)
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v", redact(p.Standby), err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatalf("pgtest: CHECKPOINT on the standby: %v", err)
	}
	p.stopStandby(t)
}

// StartStandby starts the standby StopStandby stopped, on its port again;
// it catches up from the primary as a standby does after a crash. Not for
// parallel tests.
func (p *Pair) StartStandby(t testing.TB) {
	t.Helper()
	p.startStandby(t)
}

// DSN creates an empty database on the primary, waits until the standby
// has it too, and returns its URLs on both; it is dropped when the test
// ends.
func (p *Pair) DSN(t testing.TB) (primary, standby string) {
	t.Helper()
	primary = dsnOn(t, p.Primary)
	p.CatchUp(t)
	standby, err := withDatabase(p.Standby, strings.TrimPrefix(mustPath(t, primary), "/"))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return primary, standby
}

// CatchUp waits until the standby has replayed everything the primary has
// written so far.
func (p *Pair) CatchUp(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var target string
	query(t, ctx, p.Primary, "SELECT pg_current_wal_insert_lsn()::text", &target)
	for {
		var done bool
		query(t, ctx, p.Standby, "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)", &done, target)
		if done {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pgtest: the standby has not replayed %s in a minute", target)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// PauseReplay stops the standby from applying what it receives, as a
// lagging replica would, until ResumeReplay.
func (p *Pair) PauseReplay(t testing.TB) {
	t.Helper()
	var ignored string
	query(t, context.Background(), p.Standby, "SELECT pg_wal_replay_pause()::text", &ignored)
}

// ResumeReplay lets the standby apply what it received again.
func (p *Pair) ResumeReplay(t testing.TB) {
	t.Helper()
	var ignored string
	query(t, context.Background(), p.Standby, "SELECT pg_wal_replay_resume()::text", &ignored)
}

// query runs one single-row query on a fresh connection to server.
func query(t testing.TB, ctx context.Context, server, sql string, dest any, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v", redact(server), err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(ctx, sql, args...).Scan(dest); err != nil {
		t.Fatalf("pgtest: %s on %s: %v", sql, redact(server), err)
	}
}

func mustPath(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return "/" + cfg.Database
}

// binDir finds PostgreSQL's server programs.
func binDir() (string, error) {
	if dir := os.Getenv(EnvBin); dir != "" {
		return dir, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) < version(dirs[j]) })
	if len(dirs) > 0 {
		return dirs[len(dirs)-1], nil
	}
	if initdb, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(initdb), nil
	}
	return "", fmt.Errorf("PostgreSQL's server programs (initdb, pg_ctl, pg_basebackup) are not installed: set %s, or run scripts/test.sh, which installs them", EnvBin)
}

// version is the major version in /usr/lib/postgresql/N/bin.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// freePorts returns n loopback ports free at the moment of asking.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
