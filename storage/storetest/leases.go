package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// addDueSource registers a source whose next poll is at next.
func addDueSource(t *testing.T, s dynamo.Store, id string, next time.Time, paused bool) {
	t.Helper()
	src := newSource(id)
	src.State.NextPoll, src.Paused = next, paused
	if err := s.CreateSource(context.Background(), src); err != nil {
		t.Fatalf("CreateSource(%s): %v", id, err)
	}
}

// leaseDue calls LeaseDue and returns the ids handed out.
func leaseDue(t *testing.T, s dynamo.Store, owner string, now time.Time, limit int, ttl time.Duration) []string {
	t.Helper()
	list, err := s.LeaseDue(context.Background(), owner, now, limit, ttl, dynamo.LeaseHosts{})
	if err != nil {
		t.Fatalf("LeaseDue(%s, %v): %v", owner, now, err)
	}
	return sourceIDs(list)
}

// testLeaseDue hands out due, active, unpaused sources that nobody else
// holds, oldest next poll first, up to the limit, until the lease expires.
func testLeaseDue(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addDueSource(t, s, "due1", t0.Add(-2*time.Hour), false)
	addDueSource(t, s, "due2", t0.Add(-time.Hour), false)
	addDueSource(t, s, "due3", t0, false) // due exactly now
	addDueSource(t, s, "later", t0.Add(time.Hour), false)
	addDueSource(t, s, "paused", t0.Add(-3*time.Hour), true)
	addDueSource(t, s, "held", t0.Add(-3*time.Hour), false)
	if _, err := s.LeaseSource(ctx, "held", "other", t0, 5*time.Minute); err != nil {
		t.Fatalf("LeaseSource(held): %v", err)
	}
	// A removed source with an archive is never due.
	addDueSource(t, s, "removed", t0.Add(-3*time.Hour), false)
	record(t, s, "removed", t0.Add(-4*time.Hour), doc("removed", t0.Add(-4*time.Hour), item(1, "One")))
	if err := s.SetNextPolls(ctx, map[string]time.Time{"removed": t0.Add(-3 * time.Hour)}); err != nil {
		t.Fatalf("SetNextPolls: %v", err)
	}
	if err := s.DeleteSource(ctx, "removed", false); err != nil {
		t.Fatalf("DeleteSource: %v", err)
	}

	steps := []struct {
		owner string
		now   time.Time
		limit int
		want  []string
	}{
		{"me", t0, 0, nil},
		{"me", t0, 2, []string{"due1", "due2"}},
		{"me", t0, 10, []string{"due3"}}, // what me holds is not handed out again
		{"you", t0, 10, nil},
		{"you", t0.Add(2 * time.Minute), 10, []string{"due1", "due2", "due3"}}, // me's leases expired
		{"other", t0.Add(6 * time.Minute), 10, []string{"held", "due1", "due2", "due3"}},
	}
	for i, st := range steps {
		got := leaseDue(t, s, st.owner, st.now, st.limit, time.Minute)
		if !slices.Equal(got, st.want) {
			t.Errorf("step %d: LeaseDue(%s, %v, %d) = %v, want %v", i+1, st.owner, st.now.Sub(t0), st.limit, got, st.want)
		}
	}
	if sum := mustSource(t, s, "due2").Summary; sum.LeaseOwner != "other" || !sum.LeaseExpires.Equal(t0.Add(7*time.Minute)) {
		t.Errorf("due2 leased by %q until %v, want other until %v", sum.LeaseOwner, sum.LeaseExpires, t0.Add(7*time.Minute))
	}
	if got := leaseDue(t, s, "late", t0.Add(2*time.Hour), 10, time.Minute); !slices.Contains(got, "later") || slices.Contains(got, "paused") {
		t.Errorf("LeaseDue two hours on = %v, want later and not paused", got)
	}
}

// testLeaseSource leases one source whether due or not, unless another
// owner holds it.
func testLeaseSource(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addDueSource(t, s, "a", t0.Add(24*time.Hour), true) // neither due nor active in polling
	src, err := s.LeaseSource(ctx, "a", "p", t0, time.Minute)
	if err != nil {
		t.Fatalf("LeaseSource of a paused source not due: %v", err)
	}
	if src.ID != "a" || src.URL != "http://127.0.0.1/a" {
		t.Errorf("LeaseSource returned %+v", src)
	}
	_, err = s.LeaseSource(ctx, "a", "q", t0.Add(30*time.Second), time.Minute)
	wantErr(t, "LeaseSource held by another owner", err, dynamo.ErrLeaseLost)
	if _, err := s.LeaseSource(ctx, "a", "p", t0.Add(30*time.Second), time.Minute); err != nil {
		t.Errorf("LeaseSource renewed by its owner: %v", err)
	}
	_, err = s.LeaseSource(ctx, "a", "q", t0.Add(time.Minute), time.Minute)
	wantErr(t, "LeaseSource before the renewed lease expired", err, dynamo.ErrLeaseLost)
	if _, err := s.LeaseSource(ctx, "a", "q", t0.Add(2*time.Minute), time.Minute); err != nil {
		t.Errorf("LeaseSource after the lease expired: %v", err)
	}
	if sum := mustSource(t, s, "a").Summary; sum.LeaseOwner != "q" {
		t.Errorf("lease owner %q, want q", sum.LeaseOwner)
	}
	_, err = s.LeaseSource(ctx, "missing", "p", t0, time.Minute)
	wantErr(t, "LeaseSource(missing)", err, dynamo.ErrNotFound)
}

// testReleaseLeases gives up one owner's leases and no one else's.
func testReleaseLeases(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		addDueSource(t, s, id, t0, false)
	}
	for id, owner := range map[string]string{"a": "me", "b": "me", "c": "you"} {
		if _, err := s.LeaseSource(ctx, id, owner, t0, time.Hour); err != nil {
			t.Fatalf("LeaseSource(%s): %v", id, err)
		}
	}
	if err := s.ReleaseLeases(ctx, "me"); err != nil {
		t.Fatalf("ReleaseLeases: %v", err)
	}
	for id, owner := range map[string]string{"a": "", "b": "", "c": "you"} {
		if got := mustSource(t, s, id).Summary.LeaseOwner; got != owner {
			t.Errorf("%s leased by %q after release, want %q", id, got, owner)
		}
	}
	if got := leaseDue(t, s, "third", t0, 10, time.Hour); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("LeaseDue after release = %v, want [a b]", got)
	}
	if err := s.ReleaseLeases(ctx, "nobody"); err != nil {
		t.Errorf("ReleaseLeases of an owner without leases: %v", err)
	}
}

// testConcurrentLeaseDue lets several pollers lease at once: every due
// source goes to exactly one of them.
func testConcurrentLeaseDue(t *testing.T, s dynamo.Store) {
	const sources, pollers = 40, 8
	for i := range sources {
		addDueSource(t, s, fmt.Sprintf("s%02d", i), t0.Add(-time.Duration(i)*time.Minute), false)
	}
	got := make([][]string, pollers)
	errs := make([]error, pollers)
	var wg sync.WaitGroup
	for p := range pollers {
		wg.Go(func() {
			owner := fmt.Sprintf("poller%d", p)
			for {
				list, err := s.LeaseDue(context.Background(), owner, t0, 3, time.Hour, dynamo.LeaseHosts{})
				if err != nil {
					errs[p] = err
					return
				}
				if len(list) == 0 {
					return
				}
				got[p] = append(got[p], sourceIDs(list)...)
			}
		})
	}
	wg.Wait()
	owners := map[string]int{}
	for p := range pollers {
		if errs[p] != nil {
			t.Errorf("poller %d: %v", p, errs[p])
		}
		for _, id := range got[p] {
			if prev, ok := owners[id]; ok {
				t.Errorf("%s leased by poller %d and poller %d", id, prev, p)
			}
			owners[id] = p
		}
	}
	if len(owners) != sources {
		t.Errorf("%d sources leased, want %d", len(owners), sources)
	}
}

// testSetNextPolls moves next polls, which LeaseDue then follows.
func testSetNextPolls(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		addDueSource(t, s, id, t0, false)
	}
	err := s.SetNextPolls(ctx, map[string]time.Time{"a": t0.Add(time.Hour), "b": t0.Add(30 * time.Minute)})
	if err != nil {
		t.Fatalf("SetNextPolls: %v", err)
	}
	if next := mustSource(t, s, "a").State.NextPoll; !next.Equal(t0.Add(time.Hour)) {
		t.Errorf("a's next poll %v, want %v", next, t0.Add(time.Hour))
	}
	if got := leaseDue(t, s, "p", t0, 10, 2*time.Hour); !slices.Equal(got, []string{"c"}) {
		t.Errorf("LeaseDue now = %v, want [c]", got)
	}
	if got := leaseDue(t, s, "p", t0.Add(time.Hour), 10, time.Minute); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("LeaseDue in an hour = %v, want [b a]", got)
	}
	if err := s.SetNextPolls(ctx, nil); err != nil {
		t.Errorf("SetNextPolls(nil): %v", err)
	}
}

// testPolls returns a source's latest polls, newest first, up to a limit.
func testPolls(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	addSource(t, s, "b")
	if polls, err := s.Polls(ctx, "a", 10); err != nil || len(polls) != 0 {
		t.Errorf("Polls before any poll = %+v, %v; want none", polls, err)
	}
	var items []dynamo.Item
	for i := range 7 {
		at := t0.Add(time.Duration(i) * time.Minute)
		if i%3 == 0 {
			items = append(items, item(i, fmt.Sprintf("Story %d", i)))
		}
		record(t, s, "a", at, doc("a", at, items...))
	}
	record(t, s, "b", t0, doc("b", t0, item(1, "B")))
	all, err := s.Polls(ctx, "a", 100)
	if err != nil {
		t.Fatalf("Polls: %v", err)
	}
	if len(all) != 7 {
		t.Fatalf("Polls(a, 100) holds %d polls, want 7", len(all))
	}
	for i, p := range all {
		at := t0.Add(time.Duration(6-i) * time.Minute)
		status, newItems := dynamo.StatusUnchanged, 0
		if (6-i)%3 == 0 {
			status, newItems = dynamo.StatusChanged, 1
		}
		if p.SourceID != "a" || !p.At.Equal(at) || p.Status != status || p.NewItems != newItems || p.Duration != time.Millisecond ||
			p.HTTPStatus != 200 || p.Bytes != 1<<20 {
			t.Errorf("Polls(a)[%d] = %+v, want %v at %v with %d new", i, p, status, at, newItems)
		}
	}
	if every, err := s.Polls(ctx, "a", 0); err != nil || len(every) != 7 {
		t.Errorf("Polls(a, 0) = %d polls, %v; want every poll kept, 7", len(every), err)
	}
	limited, err := s.Polls(ctx, "a", 3)
	if err != nil {
		t.Fatalf("Polls(a, 3): %v", err)
	}
	if len(limited) != 3 || !limited[0].At.Equal(all[0].At) || !limited[2].At.Equal(all[2].At) {
		t.Errorf("Polls(a, 3) = %+v, want the newest three", limited)
	}
}

// testLeaseDueByHost leases, with LeaseHosts, at most one due source per
// host and none of the hosts to skip, still oldest next poll first.
func testLeaseDueByHost(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for i, u := range []string{"http://a.example/1", "http://A.example:80/2", "http://b.example/1", "http://c.example/1", "http://b.example/2", "https://a.example/3"} {
		src := newSource(fmt.Sprintf("s%d", i))
		src.URL, src.State.NextPoll = u, t0.Add(time.Duration(i-10)*time.Minute)
		if err := s.CreateSource(ctx, src); err != nil {
			t.Fatalf("CreateSource: %v", err)
		}
	}
	lease := func(owner string, hosts dynamo.LeaseHosts) []string {
		t.Helper()
		list, err := s.LeaseDue(ctx, owner, t0, 10, time.Minute, hosts)
		if err != nil {
			t.Fatalf("LeaseDue(%s, %+v): %v", owner, hosts, err)
		}
		return sourceIDs(list)
	}
	steps := []struct {
		owner string
		hosts dynamo.LeaseHosts
		want  []string
	}{
		// https://a.example is another host (port 443) than http://a.example.
		{"me", dynamo.LeaseHosts{OnePerHost: true, Skip: []string{"c.example:80"}}, []string{"s0", "s2", "s5"}},
		{"you", dynamo.LeaseHosts{OnePerHost: true}, []string{"s1", "s3", "s4"}},
		{"them", dynamo.LeaseHosts{OnePerHost: true}, nil},
	}
	for i, st := range steps {
		if got := lease(st.owner, st.hosts); !slices.Equal(got, st.want) {
			t.Errorf("step %d: LeaseDue(%s, %+v) = %v, want %v", i+1, st.owner, st.hosts, got, st.want)
		}
	}
	if sum := mustSource(t, s, "s4").Summary; sum.LeaseOwner != "you" || !sum.LeaseExpires.Equal(t0.Add(time.Minute)) {
		t.Errorf("s4 leased by %q until %v, want you until %v", sum.LeaseOwner, sum.LeaseExpires, t0.Add(time.Minute))
	}
}
