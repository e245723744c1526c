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
	"syscall"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// crashChildEnv names the file a re-executed test binary stores versions
// in until it is killed.
const crashChildEnv = "DYNAMO_SQLITE_CRASH_CHILD"

// TestCrashSafety kills (SIGKILL) a child process while it stores versions,
// three times over one file, and checks after each kill that the file is
// intact, that every version the child reported stored is there, and that
// every version rebuilds to a document with its content hash.
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
// versions more, at a moment that varies with the round.
func runAndKill(t *testing.T, path string, versions int) int {
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
	reported, count := 0, 0
	for count < versions && lines.Scan() {
		if seq, ok := strings.CutPrefix(lines.Text(), "stored "); ok {
			reported, _ = strconv.Atoi(seq)
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

// crashChild stores ever-changing versions of one source until killed,
// printing each stored sequence number once it is committed.
func crashChild(path string) {
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	src := &dynamo.Source{ID: "a", URL: "http://127.0.0.1/a", Kind: dynamo.KindHTML, CreatedAt: t0}
	if err := s.CreateSource(ctx, src); err != nil && !errors.Is(err, dynamo.ErrConflict) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	cur, err := s.Source(ctx, "a")
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	for v := cur.Summary.Versions; ; v++ {
		res, err := storeErr(s, "a", page("a", v, 50, 3))
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		fmt.Printf("stored %d\n", res.Version.Seq)
	}
}

// checkIntact opens the file after a kill and checks it.
func checkIntact(t *testing.T, path string, reported int) {
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
	versions, err := s.Versions(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) < reported {
		t.Fatalf("%d versions after the kill, but the child reported version %d stored", len(versions), reported)
	}
	for _, v := range versions {
		doc, _, err := s.Document(ctx, "a", v.Index)
		if err != nil {
			t.Fatalf("Document(%d): %v", v.Index, err)
		}
		if dynamo.ContentHash(doc) != v.Hash || len(doc.Items) != 50 {
			t.Fatalf("version %d rebuilds to %d items with hash %s, want 50 with %s", v.Seq, len(doc.Items),
				dynamo.ContentHash(doc), v.Hash)
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
