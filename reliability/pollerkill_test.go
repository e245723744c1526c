package reliability_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// pollerChildEnv, when set to a database path, makes the test binary a
// poller process for TestPollerKilledWhileStoring instead of running tests.
const pollerChildEnv = "DYNAMO_RELIABILITY_POLLER_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(pollerChildEnv); path != "" {
		if err := runPollerChild(path); err != nil {
			fmt.Fprintln(os.Stderr, "poller child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runPollerChild polls the embedded store at path as fast as the sources'
// schedule allows, printing "stored" each time a poll's version has been
// committed, until it is killed.
func runPollerChild(path string) error {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	p, err := poller.New(poller.Config{
		Store:    st,
		Fetcher:  fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: 5 * time.Second}),
		Owner:    fmt.Sprintf("child-%d", os.Getpid()),
		Workers:  2,
		Policy:   "flat",
		LeaseTTL: time.Second,
		Tick:     10 * time.Millisecond,
		OnPoll: func(_ string, _ dynamo.PollStatus, _ time.Duration, stored bool) {
			if stored {
				fmt.Println("stored")
			}
		},
	})
	if err != nil {
		return err
	}
	return p.Run(ctx)
}

// TestPollerKilledWhileStoring runs a poller process on the embedded store
// against a page that changes on every request, with large versions so
// that a good part of each poll is spent storing, and kills it with
// SIGKILL at a random moment, five times, starting a new process each
// time. After every kill the file is intact, every version a process
// reported stored is there and rebuilds exactly, none is stored twice or
// half, and the next process carries on from the stored state.
//
// storage/sqlite's TestCrashSafety and storage/postgres's
// TestCrashLeavesWholeVersions kill a process inside RecordPoll directly;
// poller's TestPollersShareSourcesAndSurviveAKill kills one of three
// pollers on PostgreSQL. This test kills the whole poller, fetch to commit,
// on the default store.
func TestPollerKilledWhileStoring(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dynamo.db")
	origin := newChangingOrigin(t, 0)
	origin.padding.Store(256 << 10)
	pageURL := origin.URL + "/news"
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	src := &dynamo.Source{ID: "news", URL: pageURL, Kind: dynamo.KindHTML, Interval: dynamo.Duration(time.Millisecond), Policy: "flat"}
	if err := st.CreateSource(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	st.Close()

	rnd := rand.New(rand.NewPCG(1, 2))
	reported := 0
	for round := range 5 {
		reported += runPollerAndKill(t, path, 3+round, time.Duration(rnd.IntN(40))*time.Millisecond)
		integrityCheck(t, path)
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatalf("reopen after kill %d: %v", round+1, err)
		}
		n := checkVersionsPadded(t, st, "news", pageURL, 256<<10)
		st.Close()
		if n < reported {
			t.Fatalf("after kill %d: %d versions, but the processes reported %d stored", round+1, n, reported)
		}
		t.Logf("kill %d: %d versions stored, %d reported, %d pages served (polls that died in flight: %d); the file is intact and every version whole",
			round+1, n, reported, origin.generation.Load(), origin.generation.Load()-int64(n))
	}
}

// runPollerAndKill starts a poller process, waits until it has reported
// stored versions, lets it run for wait more and kills it with SIGKILL. It
// returns how many versions the process reported stored.
func runPollerAndKill(t *testing.T, path string, stored int, wait time.Duration) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), pollerChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	n := 0
	for n < stored && lines.Scan() {
		n++
	}
	if n < stored {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the poller process stopped after %d stored versions: %v", n, lines.Err())
	}
	time.Sleep(wait)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() { // what it reported before the signal landed
		n++
	}
	cmd.Wait()
	return n
}
