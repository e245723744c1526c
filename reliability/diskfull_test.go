package reliability_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver storage/sqlite uses, for the integrity check

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// smallDisk mounts a tmpfs of size bytes on a fresh directory and unmounts
// it when the test ends. Mounting needs root (CI runs scripts/test.sh as
// root); elsewhere the test is skipped, and the same failure simulated
// inside SQLite (max_page_count) is covered by storage/sqlite's
// TestWriteErrorsLeaveNothingHalfDone.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dynamo-full-disk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v %s; storage/sqlite's TestWriteErrorsLeaveNothingHalfDone simulates a full disk with max_page_count instead", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
			exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}

// fill writes a file in dir until the file system refuses another byte,
// and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for size := len(chunk); size > 0; {
		if _, err := f.Write(chunk[:size]); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			size /= 2 // the rest, in smaller pieces
		}
	}
	return path
}

// integrityCheck runs PRAGMA integrity_check and foreign_key_check on the
// file through a connection of its own.
func integrityCheck(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var result string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&result); err != nil || result != "ok" {
		t.Fatalf("PRAGMA integrity_check: %q, %v", result, err)
	}
	rows, err := db.Query("PRAGMA foreign_key_check")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Fatal("PRAGMA foreign_key_check reports rows that reference nothing")
	}
}

// TestEmbeddedStoreDiskFull fills the disk under the embedded store while a
// page changes on every poll. Polls then fail with an error that says the
// disk is full, the file stays intact and every earlier version rebuilds
// exactly; once space returns the same process stores again, and a
// reopened store reads everything.
func TestEmbeddedStoreDiskFull(t *testing.T) {
	ctx := context.Background()
	dir := smallDisk(t, "8m")
	path := filepath.Join(dir, "dynamo.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	origin := newChangingOrigin(t, 0)
	pageURL := origin.URL + "/news"
	if err := st.CreateSource(ctx, &dynamo.Source{ID: "news", URL: pageURL, Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	p, err := poller.New(poller.Config{
		Store:   st,
		Fetcher: fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: 5 * time.Second}),
		Owner:   "disk-full-test",
		Policy:  "flat",
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if out, err := p.PollNow(ctx, "news"); err != nil || out.Status != dynamo.StatusChanged {
			t.Fatalf("poll before the disk is full: %+v, %v", out, err)
		}
	}

	// A disk with no room at all: even taking the lease (a small write)
	// fails.
	filler := fill(t, dir)
	tryPoll := func(stage string) error {
		t.Helper()
		start := time.Now()
		out, err := p.PollNow(ctx, "news")
		if err == nil {
			t.Fatalf("%s: poll succeeded: %+v", stage, out)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%s: the poll took %s to fail", stage, took)
		}
		if !strings.Contains(err.Error(), "database or disk is full") || !strings.Contains(err.Error(), "news") {
			t.Errorf("%s: error %q; want one naming the source and saying the disk is full", stage, err)
		}
		return err
	}
	for range 2 {
		t.Logf("no room at all: %v", tryPoll("no room at all"))
	}
	// Some room, but not for a version of 2 MB: the lease is taken, the
	// page fetched and parsed, and storing it fails as a whole.
	origin.padding.Store(2 << 20)
	if err := os.Truncate(filler, fileSize(t, filler)-512<<10); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		err := tryPoll("room for a lease but not a version")
		if !strings.Contains(err.Error(), "record poll") {
			t.Errorf("with 512 KiB free the version should fail to store, not the lease: %v", err)
		}
		t.Logf("room for a lease but not a version: %v", err)
	}
	origin.padding.Store(0)
	// Reads go on, the file is intact, and every stored version is whole.
	integrityCheck(t, path)
	if n := checkVersions(t, st, "news", pageURL); n != 5 {
		t.Fatalf("%d versions after the failed polls, want the 5 stored before", n)
	}
	if items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: "news", Max: 100}); err != nil || len(items) != 5 {
		t.Fatalf("archive on a full disk: %d items, %v; want 5", len(items), err)
	}

	// Space returns: the same store, in the same process, stores again.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if out, err := p.PollNow(ctx, "news"); err != nil || out.Status != dynamo.StatusChanged {
			t.Fatalf("poll once space returned: %+v, %v", out, err)
		}
	}
	if n := checkVersions(t, st, "news", pageURL); n != 8 {
		t.Fatalf("%d versions once space returned, want 8", n)
	}
	src, err := st.Source(ctx, "news")
	if err != nil || src.State.Errors != 0 || src.Summary.LeaseOwner != "" {
		t.Fatalf("source after recovery: %+v, %v", src, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	integrityCheck(t, path)
	again, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if n := checkVersions(t, again, "news", pageURL); n != 8 {
		t.Fatalf("%d versions after reopening, want 8", n)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
