package postgres

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// crashChildEnv, when set to a DSN, turns the test binary into the crash
// test's child: it stores versions in a loop until it is killed.
const crashChildEnv = "DYNAMO_PG_CRASH_CHILD_DSN"

func TestMain(m *testing.M) {
	if dsn := os.Getenv(crashChildEnv); dsn != "" {
		if err := crashChild(dsn); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashDoc is version n of the crash test's page: 50 items, one new per
// version and one edited, so that every version writes items, revisions
// and a version row.
func crashDoc(n int) *dynamo.Resource {
	at := t0.Add(time.Duration(n) * time.Minute)
	var items []dynamo.Item
	for i := n; i < n+50; i++ {
		it := item(i, fmt.Sprintf("story %d", i))
		if i == n+25 {
			it.Text = fmt.Sprintf("story %d, edited in version %d %s", i, n, strings.Repeat("x", 2000))
		}
		items = append(items, it)
	}
	return doc("crash", at, items...)
}

// crashChild stores versions as fast as it can, from the one after the
// newest stored, printing the number of each one once committed.
func crashChild(dsn string) error {
	ctx := context.Background()
	s, err := Open(ctx, dsn)
	if err != nil {
		return err
	}
	src, err := s.Source(ctx, "crash")
	if err != nil {
		return err
	}
	for n := src.Summary.Versions + 1; ; n++ {
		d := crashDoc(n)
		if _, err := s.LeaseSource(ctx, "crash", "child", d.Timestamp, time.Minute); err != nil {
			return err
		}
		_, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "crash", Owner: "child", At: d.Timestamp, Document: d}, decideFlat(d.Timestamp))
		if err != nil {
			return err
		}
		fmt.Println(n)
	}
}

// A process killed while storing versions leaves each version whole or
// absent, and the store opens cleanly afterwards.
func TestCrashLeavesWholeVersions(t *testing.T) {
	dsn := pgtest.DSN(t)
	addSource(t, openDSN(t, dsn), "crash")

	for round := range 3 {
		committed := runAndKill(t, dsn, 10+round*7)
		s := openDSN(t, dsn)
		checkWholeVersions(t, s, committed)
		s.Close()
	}
}

// runAndKill starts the child, kills it with SIGKILL once it has reported
// after versions, and returns the last version it reported.
func runAndKill(t *testing.T, dsn string, after int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dsn, "PGAPPNAME="+crashChildApp)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	last, reported := 0, 0
	lines := bufio.NewScanner(out)
	for ; reported < after && lines.Scan(); reported++ {
		n, err := strconv.Atoi(lines.Text())
		if err != nil {
			t.Fatalf("child wrote %q", lines.Text())
		}
		last = n
	}
	// Kill it in the middle of a later version rather than right after one.
	time.Sleep(3 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		last, _ = strconv.Atoi(lines.Text())
	}
	if err := cmd.Wait(); err == nil || reported < after {
		t.Fatalf("child reported %d versions and exited with %v; want it killed after %d", last, err, after)
	}
	waitForBackends(t, dsn)
	return last
}

// crashChildApp is the application_name of the child's connections (set
// by PGAPPNAME, which pgx reads).
const crashChildApp = "dynamo-crash-child"

// waitForBackends waits until the killed child's backends are gone. A
// backend that had received the child's COMMIT before the kill still
// carries it out, and a check reading the versions meanwhile would see
// them change between its reads (a version listed by its index from the
// newest, then read by that index after one more landed).
func waitForBackends(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	logged := false
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", crashChildApp).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if !logged {
			t.Logf("waiting for %d backends of the killed child", n)
			logged = true
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d backends of the killed child still open after 30 s", n)
		}
	}
}

// checkWholeVersions verifies that every stored version rebuilds to the
// content it was stored with, that none the child reported is missing, and
// that no revision exists outside a version.
func checkWholeVersions(t *testing.T, s *Store, committed int) {
	t.Helper()
	ctx := context.Background()
	vs, err := s.Versions(ctx, "crash")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) < committed {
		t.Fatalf("%d versions stored, but the child reported %d committed", len(vs), committed)
	}
	for _, v := range vs {
		d, _, err := s.Document(ctx, "crash", v.Index)
		if err != nil {
			t.Fatalf("version %d: %v", v.Seq, err)
		}
		if got := dynamo.ContentHash(d); got != v.Hash || len(d.Items) != v.Items || v.Hash != dynamo.ContentHash(crashDoc(v.Seq)) {
			t.Fatalf("version %d rebuilds to %d items, hash %s; stored %d items, hash %s", v.Seq, len(d.Items), got, v.Items, v.Hash)
		}
	}
	rows, err := s.pool.Query(ctx, "SELECT revs FROM versions")
	if err != nil {
		t.Fatal(err)
	}
	packed, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	var used []int64
	for _, p := range packed {
		revs, err := archive.UnpackRevs(p)
		if err != nil {
			t.Fatal(err)
		}
		used = append(used, revs...)
	}
	var orphans int
	err = s.pool.QueryRow(ctx, "SELECT count(*) FROM item_revisions WHERE NOT rev_id = ANY($1)", used).Scan(&orphans)
	if err != nil || orphans != 0 {
		t.Errorf("%d revisions belong to no version (%v)", orphans, err)
	}
	src, err := s.Source(ctx, "crash")
	if err != nil || src.Summary.Versions != len(vs) || src.Summary.LeaseOwner != "child" && src.Summary.LeaseOwner != "" {
		t.Errorf("source after crash: %+v, %v", src, err)
	}
}
