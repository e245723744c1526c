package poller_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/dedup"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/poller"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
)

// childDSN, when set, makes the test binary a poller process for
// TestPollersShareSourcesAndSurviveAKill and
// TestPollerProcessesMakeOnePrimaryPerStory instead of running tests;
// childStories, when also set, gives it a detector of stories.
const (
	childDSN     = "DYNAMO_POLLER_CHILD_DSN"
	childStories = "DYNAMO_POLLER_CHILD_STORIES"
)

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
	var stories *dedup.Stories
	if os.Getenv(childStories) != "" {
		if stories, err = dedup.NewStories(dedup.DefaultConfig()); err == nil {
			err = stories.Load(ctx, st, time.Now().Add(-dedup.DefaultWindow))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	p, err := poller.New(poller.Config{
		Store:      st,
		Duplicates: stories,
		// The User-Agent names the poller, so the origin can tell them apart.
		Fetcher: fetch.New(fetch.Options{AllowPrivate: true, HostGap: -1, Timeout: 5 * time.Second, UserAgent: owner}),
		Owner:   owner,
		Workers: 4,
		Policy:  "flat",
		// The default lease (DefaultLeaseTTL), whose bound on a takeover
		// TestPollersShareSourcesAndSurviveAKill measures.
		Tick: 20 * time.Millisecond,
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
// a poller can be killed with a poll in flight, and records every request:
// when it came, for which page and from which poller (its User-Agent).
type countingOrigin struct {
	mu          sync.Mutex
	requests    map[string][]request // by page
	inFlight    map[string]int       // by page
	byPoller    map[string][]string  // pages in flight, by poller
	maxInFlight int
}

type request struct {
	at     time.Time
	poller string
}

func (o *countingOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path, poller := r.URL.Path, r.UserAgent()
	o.mu.Lock()
	o.requests[path] = append(o.requests[path], request{time.Now(), poller})
	o.inFlight[path]++
	o.maxInFlight = max(o.maxInFlight, o.inFlight[path])
	o.byPoller[poller] = append(o.byPoller[poller], path)
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		o.inFlight[path]--
		o.byPoller[poller] = slices.DeleteFunc(o.byPoller[poller], func(p string) bool { return p == path })
		o.mu.Unlock()
	}()
	time.Sleep(300 * time.Millisecond)
	fmt.Fprint(w, annotated("Story of "+path, "Another story"))
}

// Three poller processes share 50 sources on five hosts and one PostgreSQL
// database. One is killed (SIGKILL) while polls of its are in flight.
// Every due poll happens exactly once, counted at the origin, except the
// killed poller's lost polls, which another poller makes again once their
// lease (the default, poller.DefaultLeaseTTL) has expired: never while it
// could still be running, and within the lease and a few seconds of the
// kill, so well within 30 s. Every source ends with exactly one version.
func TestPollersShareSourcesAndSurviveAKill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	origin := &countingOrigin{requests: map[string][]request{}, inFlight: map[string]int{}, byPoller: map[string][]string{}}
	// Five hosts: a poller leases one source per host at a time, so the
	// killed one may have several polls in flight.
	var hosts []*httptest.Server
	for range 5 {
		srv := httptest.NewServer(origin)
		defer srv.Close()
		hosts = append(hosts, srv)
	}
	const sources = 50
	for i := range sources {
		// A day's interval: each source is due exactly once in this test.
		src := &dynamo.Source{ID: fmt.Sprintf("s%02d", i), URL: fmt.Sprintf("%s/p%02d", hosts[i%len(hosts)].URL, i),
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
	defer func() { // whatever happens, no child outlives the test
		for _, cmd := range children {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		}
	}()
	// Kill poller-0 as soon as the origin is serving it a page.
	var (
		lost   []string
		killed time.Time
	)
	deadline := time.Now().Add(30 * time.Second)
	for len(lost) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("poller-0 sent no request within 30s")
		}
		time.Sleep(5 * time.Millisecond)
		origin.mu.Lock()
		if len(origin.byPoller["poller-0"]) > 0 {
			if err := children[0].Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = time.Now()
			lost = slices.Clone(origin.byPoller["poller-0"])
		}
		origin.mu.Unlock()
	}
	children[0].Wait()

	// The bound: every source polled within 30 s of the kill.
	deadline = killed.Add(30 * time.Second)
	for {
		stats, err := st.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Versions == sources {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d sources stored 30s after the kill", stats.Versions, sources)
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
	for _, src := range all {
		vs, err := st.Versions(ctx, src.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 1 {
			t.Errorf("%s has %d versions, want exactly 1", src.ID, len(vs))
		}
	}
	origin.mu.Lock()
	defer origin.mu.Unlock()
	if origin.maxInFlight > 1 {
		t.Errorf("one page was fetched by %d pollers at once; leases must prevent it", origin.maxInFlight)
	}
	for i := range sources {
		path := fmt.Sprintf("/p%02d", i)
		reqs := origin.requests[path]
		// A request poller-0 sent before the kill may reach the origin's
		// handler after it (a killed process sends nothing, but under the
		// race detector on a loaded machine the handler can run seconds
		// later), or be answered while poller-0 was still storing what it
		// read: that poll is lost too, and is checked as one below.
		sentBeforeKill := len(reqs) == 2 && reqs[0].poller == "poller-0"
		if !slices.Contains(lost, path) && !sentBeforeKill {
			if len(reqs) != 1 {
				t.Errorf("%s fetched %d times, want exactly once: %v", path, len(reqs), reqs)
			}
			continue
		}
		// The killed poller's poll: made again by another poller, only
		// once its lease had expired, and within the lease and a few
		// seconds (another poller's tick, a loaded machine) of the kill.
		if len(reqs) != 2 {
			t.Errorf("%s, in flight when its poller was killed, fetched %d times, want twice: %v", path, len(reqs), reqs)
			continue
		}
		first, again := reqs[0], reqs[1]
		if first.poller != "poller-0" || again.poller == "poller-0" {
			t.Errorf("%s fetched by %s then %s, want poller-0 then another", path, first.poller, again.poller)
		}
		if gap := again.at.Sub(first.at); gap < poller.DefaultLeaseTTL-500*time.Millisecond {
			t.Errorf("%s taken over %v after poller-0 fetched it, before its lease of %s expired", path, gap, poller.DefaultLeaseTTL)
		}
		takeover := again.at.Sub(killed)
		if bound := poller.DefaultLeaseTTL + 5*time.Second; takeover > bound {
			t.Errorf("%s taken over %v after the kill, beyond the lease and 5 s (%v)", path, takeover, bound)
		}
		t.Logf("%s, in flight at the kill: taken over by %s %v after the kill (lease %s)", path, again.poller, takeover.Round(time.Millisecond), poller.DefaultLeaseTTL)
	}
	t.Logf("killed poller-0 while it fetched %v", lost)
}

// pairOrigin serves two copies of each of a number of stories, /a/N and
// /b/N (the second an agency's, with its label and a few words changed),
// and holds each request until the other copy of its story has been asked
// for too (or a while has passed), so that the two copies reach the store
// at the same moment. It records which poller fetched each page.
type pairOrigin struct {
	mu      sync.Mutex
	waiting map[string]chan struct{} // by story: closed when both copies were asked for
	asked   map[string]int
	by      map[string]string // page → the poller that fetched it
}

func (o *pairOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var copyOf, n string
	if _, err := fmt.Sscanf(r.URL.Path, "/%1s/%s", &copyOf, &n); err != nil {
		http.NotFound(w, r)
		return
	}
	o.mu.Lock()
	o.by[r.URL.Path] = r.UserAgent()
	both, ok := o.waiting[n]
	if !ok {
		both = make(chan struct{})
		o.waiting[n] = both
	}
	if o.asked[n]++; o.asked[n] == 2 {
		close(both)
	}
	o.mu.Unlock()
	select {
	case <-both:
	case <-time.After(3 * time.Second):
	}
	title := "Explosion on bus in Redcliff kills at least " + n
	desc := "An explosion on a crowded minibus in the centre of Redcliff killed at least " + n +
		" people on Monday evening, police said. The cause of the blast was not immediately known."
	if copyOf == "b" {
		title = "Reuters: " + title
		desc = strings.Replace(desc, "police said", "police officials said", 1)
	}
	fmt.Fprintf(w, `<html><body><h1><!-- <channel:title> -->News<!-- </channel:title> --></h1>
<p><!-- <item:title> -->%s<!-- </item:title> --></p>
<p><!-- <item:description> -->%s<!-- </item:description> --></p></body></html>`, title, desc)
}

// Two poller processes, each with its own detector, share one PostgreSQL
// database and 40 sources: 20 stories, each carried by two sources whose
// pages the origin releases at the same moment. Whichever processes poll
// the two copies, each story ends with one primary and one copy recorded
// as its duplicate: the second poll to store its new items waits for the
// first's commit and is handed its items (dynamo.PollRecord.Stories).
func TestPollerProcessesMakeOnePrimaryPerStory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	origin := &pairOrigin{waiting: map[string]chan struct{}{}, asked: map[string]int{}, by: map[string]string{}}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	const stories = 20
	for i := range stories {
		for _, c := range []string{"a", "b"} {
			// Ids in pairs, so that the copies of a story fall due together.
			src := &dynamo.Source{ID: fmt.Sprintf("s%02d%s", i, c), URL: fmt.Sprintf("%s/%s/%d", srv.URL, c, i+1),
				Kind: dynamo.KindHTML, Interval: dynamo.Duration(24 * time.Hour), Policy: "flat"}
			if c == "b" {
				src.TitlePrefix = "Reuters:"
			}
			if err := st.CreateSource(ctx, src); err != nil {
				t.Fatal(err)
			}
		}
	}
	children := make([]*exec.Cmd, 2)
	for i := range children {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childDSN+"="+dsn, childStories+"=1", fmt.Sprintf("DYNAMO_POLLER_CHILD_OWNER=poller-%d", i))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = cmd
	}
	defer func() { // whatever happens, no child outlives the test
		for _, cmd := range children {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		stats, err := st.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Versions == 2*stories {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d sources stored after 60s", stats.Versions, 2*stories)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, cmd := range children {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("poller did not shut down cleanly: %v", err)
		}
	}

	split := 0
	for i := range stories {
		var copies [2]dynamo.ArchivedItem
		for j, c := range []string{"a", "b"} {
			items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: fmt.Sprintf("s%02d%s", i, c)})
			if err != nil || len(items) != 1 {
				t.Fatalf("story %d, copy %s: %+v, %v", i, c, items, err)
			}
			copies[j] = items[0]
		}
		var primaries, dups int
		for j, it := range copies {
			other := copies[1-j]
			switch {
			case it.DuplicateOf == nil:
				primaries++
			case *it.DuplicateOf == (dynamo.ItemKey{SourceID: other.SourceID, ItemID: other.Item.ID}):
				dups++
			default:
				t.Errorf("story %d: %s is a copy of %+v", i, it.SourceID, it.DuplicateOf)
			}
		}
		if primaries != 1 || dups != 1 {
			t.Errorf("story %d: %d primaries and %d copies, want one of each: %+v", i, primaries, dups, copies)
		}
		origin.mu.Lock()
		if origin.by[fmt.Sprintf("/a/%d", i+1)] != origin.by[fmt.Sprintf("/b/%d", i+1)] {
			split++
		}
		origin.mu.Unlock()
	}
	t.Logf("%d of %d stories had their two copies polled by different processes", split, stories)
	if split == 0 {
		t.Error("no story had its copies polled by different processes: the test did not test processes")
	}
}
