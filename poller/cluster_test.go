package poller_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
)

// childDSN, when set, makes the test binary a poller process for
// TestPollersShareSourcesAndSurviveAKill instead of running tests.
const childDSN = "DYNAMO_POLLER_CHILD_DSN"

func TestMain(m *testing.M) {
	if dsn := os.Getenv(childDSN); dsn != "" {
		os.Exit(runChildPoller(dsn, os.Getenv("DYNAMO_POLLER_CHILD_OWNER")))
	}
	os.Exit(m.Run())
}

// runChildPoller polls the store at dsn until SIGTERM or SIGKILL.
func runChildPoller(dsn, owner string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	p, err := poller.New(poller.Config{
		Store:    st,
		Fetcher:  fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: 5 * time.Second}),
		Owner:    owner,
		Workers:  4,
		Policy:   "flat",
		LeaseTTL: 3 * time.Second,
		Tick:     20 * time.Millisecond,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := p.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// countingOrigin serves one annotated page per source, slowly enough that
// a poller can be killed with polls in flight, and counts the requests per
// page and the most that were ever in flight at once for one page.
type countingOrigin struct {
	mu          sync.Mutex
	requests    map[string]int
	inFlight    map[string]int
	maxInFlight int
}

func (o *countingOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.requests[r.URL.Path]++
	o.inFlight[r.URL.Path]++
	o.maxInFlight = max(o.maxInFlight, o.inFlight[r.URL.Path])
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		o.inFlight[r.URL.Path]--
		o.mu.Unlock()
	}()
	time.Sleep(150 * time.Millisecond)
	fmt.Fprint(w, annotated("Story of "+r.URL.Path, "Another story"))
}

func TestPollersShareSourcesAndSurviveAKill(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	origin := &countingOrigin{requests: map[string]int{}, inFlight: map[string]int{}}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	const sources = 50
	for i := range sources {
		// A day's interval: each source is due exactly once in this test.
		src := &dynamo.Source{ID: fmt.Sprintf("s%02d", i), URL: fmt.Sprintf("%s/p%02d", srv.URL, i),
			Kind: dynamo.KindHTML, Interval: dynamo.Duration(24 * time.Hour), Policy: "flat"}
		if err := st.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
	}

	children := make([]*exec.Cmd, 3)
	for i := range children {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childDSN+"="+dsn, fmt.Sprintf("DYNAMO_POLLER_CHILD_OWNER=poller-%d", i))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = cmd
	}
	// Kill the first poller while it has polls in flight.
	time.Sleep(400 * time.Millisecond)
	if err := children[0].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	children[0].Wait()

	deadline := time.Now().Add(30 * time.Second)
	for {
		stats, err := st.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Versions == sources {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d sources stored after 30s", stats.Versions, sources)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, cmd := range children[1:] {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("poller did not shut down cleanly: %v", err)
		}
	}

	all, err := st.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]int{}
	for _, src := range all {
		vs, err := st.Versions(ctx, src.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 1 {
			t.Errorf("%s has %d versions, want exactly 1", src.ID, len(vs))
		}
		if src.Summary.LeaseOwner != "" {
			owners[src.Summary.LeaseOwner]++
		}
	}
	origin.mu.Lock()
	defer origin.mu.Unlock()
	if origin.maxInFlight > 1 {
		t.Errorf("one page was fetched by %d pollers at once; leases must prevent it", origin.maxInFlight)
	}
	// Polls that the killed poller had in flight were lost with it and
	// repeated by another after the lease expired; every other due poll
	// happened exactly once.
	repeated := 0
	for i := range sources {
		switch n := origin.requests[fmt.Sprintf("/p%02d", i)]; {
		case n == 0:
			t.Errorf("source %d never fetched", i)
		case n > 2:
			t.Errorf("source %d fetched %d times", i, n)
		case n == 2:
			repeated++
		}
	}
	if repeated > 4 {
		t.Errorf("%d sources fetched twice; only the killed poller's in-flight polls (at most 4 workers) may be", repeated)
	}
	t.Logf("sources polled twice because their poller was killed mid-poll: %d", repeated)
}
