package sqlite

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// crashChildEnv names the file a re-executed test binary stores versions
// in until it is killed.
const crashChildEnv = "DYNAMO_SQLITE_CRASH_CHILD"

// crashSources are the sources the crash child stores versions of, each
// from a goroutine of its own, so that their polls are group-committed
// (writeGrouped).
var crashSources = []string{"a", "b", "c", "d"}

// TestCrashSafety kills (SIGKILL) a child process while it stores versions
// of four sources at once, in group commits, three times over one file,
// and checks after each kill that the file is intact, that every version
// the child reported stored is there, and that every version rebuilds to
// a document with its content hash.
func TestCrashSafety(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	for round := range 3 {
		reported := runAndKill(t, path, 15+7*round)
		checkIntact(t, path, reported)
	}
}

// runAndKill starts the child and kills it after it reported stored
// versions more, at a moment that varies with the round, and returns the
// last version the child reported stored of each source.
func runAndKill(t *testing.T, path string, versions int) map[string]int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	defer cmd.Wait()
	lines := bufio.NewScanner(out)
	reported, count := map[string]int{}, 0
	for count < versions && lines.Scan() {
		if stored, ok := strings.CutPrefix(lines.Text(), "stored "); ok {
			id, seq, _ := strings.Cut(stored, " ")
			reported[id], _ = strconv.Atoi(seq)
			count++
		}
	}
	if count < versions {
		cmd.Process.Kill()
		t.Fatalf("child stopped after %d versions: %v", count, lines.Err())
	}
	// Kill in the middle of a later write, not right after a commit.
	time.Sleep(time.Duration(versions%5) * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill child: %v", err)
	}
	return reported
}

// crashChild stores ever-changing versions of crashSources, each from a
// goroutine of its own, until killed, printing each stored sequence
// number once RecordPoll returned it.
func crashChild(path string) {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	var printing sync.Mutex
	for _, id := range crashSources {
		src := &dynamo.Source{ID: id, URL: "http://127.0.0.1/" + id, Kind: dynamo.KindHTML, CreatedAt: t0}
		if err := s.CreateSource(ctx, src); err != nil && !errors.Is(err, dynamo.ErrConflict) {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		cur, err := s.Source(ctx, id)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		go func() {
			for v := cur.Summary.Versions; ; v++ {
				res, err := storeErr(s, id, page(id, v, 50, 3))
				if err != nil {
					fmt.Fprintln(os.Stderr, "child:", err)
					os.Exit(1)
				}
				printing.Lock()
				fmt.Printf("stored %s %d\n", id, res.Version.Seq)
				printing.Unlock()
			}
		}()
	}
	select {}
}

// checkIntact opens the file after a kill and checks it.
func checkIntact(t *testing.T, path string, reported map[string]int) {
	t.Helper()
	ctx := context.Background()
	s := openPath(t, path)
	for _, check := range []string{"PRAGMA integrity_check", "PRAGMA foreign_key_check"} {
		rows, err := s.r.Query(check)
		if err != nil {
			t.Fatalf("%s: %v", check, err)
		}
		var problems []string
		for rows.Next() {
			cols, _ := rows.Columns()
			vals := make([]any, len(cols))
			for i := range vals {
				vals[i] = new(any)
			}
			if err := rows.Scan(vals...); err != nil {
				t.Fatal(err)
			}
			problems = append(problems, fmt.Sprint(*(vals[0].(*any))))
		}
		rows.Close()
		if check == "PRAGMA integrity_check" && (len(problems) != 1 || problems[0] != "ok") ||
			check == "PRAGMA foreign_key_check" && len(problems) != 0 {
			t.Fatalf("%s after a kill: %v", check, problems)
		}
	}
	for _, id := range crashSources {
		versions, err := s.Versions(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(versions) < reported[id] {
			t.Fatalf("%s: %d versions after the kill, but the child reported version %d stored", id, len(versions), reported[id])
		}
		for _, v := range versions {
			doc, _, err := s.Document(ctx, id, v.Index)
			if err != nil {
				t.Fatalf("%s: Document(%d): %v", id, v.Index, err)
			}
			if dynamo.ContentHash(doc) != v.Hash || len(doc.Items) != 50 {
				t.Fatalf("%s: version %d rebuilds to %d items with hash %s, want 50 with %s", id, v.Seq, len(doc.Items),
					dynamo.ContentHash(doc), v.Hash)
			}
		}
	}
	var orphans int
	if err := s.r.QueryRow(`SELECT count(*) FROM items i
		WHERE NOT EXISTS (SELECT 1 FROM versions v WHERE v.source_id = i.source_id AND v.seq = i.first_seq)`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d items belong to no stored version", orphans)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// batchCrashChildEnv names the file a re-executed test binary stores a
// large version in, stopping for good in the middle of its batches.
const batchCrashChildEnv = "DYNAMO_SQLITE_BATCH_CRASH_CHILD"

// TestCrashDuringBatches kills (SIGKILL) a child process in the middle of
// writing a version of 500 items in batches of 50 rows, after five batches
// were committed. While the child waits there, and after the kill, another
// handle on the file reads exactly the archive as it was before the
// version; the next poll of the same page deletes what the child staged and
// stores the version whole.
func TestCrashDuringBatches(t *testing.T) {
	if path := os.Getenv(batchCrashChildEnv); path != "" {
		batchCrashChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringBatches$")
	cmd.Env = append(os.Environ(), batchCrashChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() && lines.Text() != "staging" {
	}
	if lines.Err() != nil || lines.Text() != "staging" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child ended before staging: %v", lines.Err())
	}
	s := openPath(t, path)
	s.batch = 50
	before := look(t, s)
	if before.Versions != 1 || len(before.Archive) != 500 || before.Stories != 500 || before.Aggregate != 500 {
		t.Errorf("while the child is in the middle of its batches, readers see %v; want 1 version of 500 items", before)
	}
	var staged int
	if err := s.r.QueryRow(`SELECT count(*) FROM item_revisions
		WHERE rev_id > (SELECT published_rev FROM sources WHERE id = 'a')`).Scan(&staged); err != nil || staged == 0 {
		t.Fatalf("%d revisions staged by the child (%v): the kill would not be in the middle of its batches", staged, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill child: %v", err)
	}
	cmd.Wait()
	var check string
	if err := s.r.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check after the kill: %s %v", check, err)
	}
	if now := look(t, s); !now.Same(before) {
		t.Errorf("after the kill, readers see %v; before it, %v", now, before)
	}
	next := page("a", 1, 500, 300)
	res := store(t, s, "a", next)
	after := look(t, s)
	if res.Version == nil || len(res.NewItems) != 300 || after.Versions != 2 || after.Newest != dynamo.ContentHash(next) ||
		len(after.Archive) != 800 || after.Stories != 800 {
		t.Errorf("the version stored again after the kill: %+v, readers see %v", res.Version, after)
	}
	var left, orphans int
	if err := s.r.QueryRow(`SELECT (SELECT count(*) FROM item_revisions
			WHERE rev_id > (SELECT published_rev FROM sources WHERE id = 'a') OR NOT EXISTS (
			SELECT 1 FROM items i WHERE i.source_id = item_revisions.source_id AND i.item_id = item_revisions.item_key)),
		(SELECT count(*) FROM items i WHERE NOT EXISTS (
			SELECT 1 FROM versions v WHERE v.source_id = i.source_id AND v.seq = i.first_seq))`).Scan(&left, &orphans); err != nil {
		t.Fatal(err)
	}
	if left != 0 || orphans != 0 {
		t.Errorf("after the next poll, %d revisions unpublished or of no item, %d items of no version", left, orphans)
	}
}

// batchCrashChild stores a version of 500 items, then starts the next one
// in batches of 50 rows and, after five batches, says "staging" and waits
// to be killed.
func batchCrashChild(path string) {
	s, err := Open(context.Background(), path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	s.batch = 50
	src := &dynamo.Source{ID: "a", URL: "http://127.0.0.1/a", Kind: dynamo.KindHTML, CreatedAt: t0}
	if err := s.CreateSource(context.Background(), src); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	if _, err := storeErr(s, "a", page("a", 0, 500, 500)); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	writes := 0
	s.wrote = func(time.Duration) {
		// The lease, the first transaction, then five batches.
		if writes++; writes == 7 {
			fmt.Println("staging")
			time.Sleep(time.Hour)
		}
	}
	_, err = storeErr(s, "a", page("a", 1, 500, 300))
	fmt.Fprintln(os.Stderr, "child: the version was stored, not killed:", err)
	os.Exit(1)
}
