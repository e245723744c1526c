package simulate

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/poller/policy"
)

var day0 = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

func at(h, m int) time.Time {
	return day0.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
}

// One feed showing 2 items, polled flat every 6 hours (a budget of 4 a
// day): the first read at 00:00; at 06:00 three postings are new, the
// oldest (01:00) has scrolled out and 02:00 and 03:00 are read 4h and 3h
// late; at 12:00 the 07:00 posting is read 5h late; 18:00 finds nothing.
// Mean delay 4h, p95 (nearest rank of 3) 5h, 3 pending at most.
func TestRunHandWorked(t *testing.T) {
	tr := &Trace{
		Start: day0, End: day0.Add(24 * time.Hour),
		Feeds: []Feed{{ID: "a", Capacity: 2, Postings: []time.Time{at(1, 0), at(2, 0), at(3, 0), at(7, 0)}}},
	}
	res, err := Run(context.Background(), tr, Options{Policies: []string{policy.Flat}, Budgets: []int{4}, Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Policy: policy.Flat, Budget: 4, Polls: 4, Postings: 4, Missed: 1, MeanDelay: 4 * 3600, P95Delay: 5 * 3600, MaxPending: 3}
	if len(res) != 1 || res[0] != want {
		t.Errorf("got %+v\nwant %+v", res, want)
	}
}

// Postings never read count with their delay up to the end of the run.
func TestRunUnread(t *testing.T) {
	tr := &Trace{
		Start: day0, End: day0.Add(24 * time.Hour),
		Feeds: []Feed{{ID: "a", Capacity: 5, Postings: []time.Time{at(23, 0)}}},
	}
	// A budget of 1 a day: flat polls every 24h, at 00:00 and then at the
	// end of the span, which the cooldown covers.
	res, err := Run(context.Background(), tr, Options{Policies: []string{policy.Flat}, Budgets: []int{1}, Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Missed != 0 || r.MeanDelay != 3600 || r.Postings != 1 {
		t.Errorf("got %+v, want the posting read after 1h", r)
	}
}

// The warm-up is not measured.
func TestRunWarmup(t *testing.T) {
	tr := &Trace{
		Start: day0, End: day0.AddDate(0, 0, 2),
		Feeds: []Feed{{ID: "a", Capacity: 5, Postings: []time.Time{at(3, 0), at(31, 0)}}},
	}
	res, err := Run(context.Background(), tr, Options{Policies: []string{policy.Flat}, Budgets: []int{4}, Warmup: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Postings != 1 || r.Polls != 4 || r.MeanDelay != 5*3600 {
		t.Errorf("got %+v, want 1 posting, 4 polls, 5h delay", r)
	}
	if _, err := Run(context.Background(), tr, Options{Warmup: 72 * time.Hour}); err == nil {
		t.Error("a warm-up longer than the trace was accepted")
	}
}

func TestRunRejects(t *testing.T) {
	good := &Trace{Start: day0, End: day0.Add(time.Hour), Feeds: []Feed{{ID: "a", Capacity: 1}}}
	tests := []struct {
		name  string
		trace *Trace
		opts  Options
	}{
		{"no feeds", &Trace{Start: day0, End: day0.Add(time.Hour)}, Options{}},
		{"backwards", &Trace{Start: day0, End: day0, Feeds: good.Feeds}, Options{}},
		{"bad policy", good, Options{Policies: []string{"psychic"}, Warmup: -1}},
		{"bad budget", good, Options{Budgets: []int{0}, Warmup: -1}},
	}
	for _, tt := range tests {
		if _, err := Run(context.Background(), tt.trace, tt.opts); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	tr, err := Synthetic(20, 1, 14)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, tr, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// Every policy on a small synthetic trace: the same postings for all,
// budget policies keep their budget, results do not depend on the number
// of workers, and progress reaches its total.
func TestRunAllPolicies(t *testing.T) {
	tr, err := Synthetic(40, 3, 14)
	if err != nil {
		t.Fatal(err)
	}
	var last, total int
	opts := Options{Budgets: []int{80, 160}, Workers: 4, Progress: func(done, all int) { last, total = done, all }}
	res, err := Run(context.Background(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2*len(policy.Names()) {
		t.Fatalf("%d results", len(res))
	}
	if last != total || total == 0 {
		t.Errorf("progress ended at %d of %d", last, total)
	}
	measuredDays := 7
	for _, r := range res {
		if r.Postings != res[0].Postings || r.Postings == 0 {
			t.Errorf("%s/%d: %d postings, others %d", r.Policy, r.Budget, r.Postings, res[0].Postings)
		}
		if r.Missed < 0 || r.Missed > r.Postings || r.MeanDelay <= 0 || r.P95Delay < r.MeanDelay/10 {
			t.Errorf("%s/%d: implausible %+v", r.Policy, r.Budget, r)
		}
		p, _ := policy.ByName(r.Policy, policy.Config{})
		if want := r.Budget * measuredDays; p.Budgeted() && (r.Polls > want*103/100 || r.Polls < want*95/100) {
			t.Errorf("%s/%d: %d polls, budget %d", r.Policy, r.Budget, r.Polls, want)
		}
	}
	opts.Workers, opts.Progress = 1, nil
	again, err := Run(context.Background(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res, again) {
		t.Error("results depend on the number of workers")
	}
}

// The orderings the literature reports, and what at-risk claims, on a
// fixed synthetic workload at equal budget: min-missing misses least of
// the three allocation policies, min-delay has the least delay of them,
// and at-risk misses fewer than min-missing with less delay than
// min-delay. docs/SCHEDULING.md shows the same on a larger workload.
func TestRunOrderings(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of simulation")
	}
	tr, err := Synthetic(100, 1, 21)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{policy.Uniform, policy.MinDelay, policy.MinMissing, policy.AtRisk}
	res, err := Run(context.Background(), tr, Options{Policies: names, Budgets: []int{400}})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Result{}
	for _, r := range res {
		by[r.Policy] = r
	}
	u, d, m, a := by[policy.Uniform], by[policy.MinDelay], by[policy.MinMissing], by[policy.AtRisk]
	if !(m.Missed < d.Missed && m.Missed < u.Missed) {
		t.Errorf("min-missing missed %d, min-delay %d, uniform %d", m.Missed, d.Missed, u.Missed)
	}
	if !(d.MeanDelay < m.MeanDelay && d.MeanDelay < u.MeanDelay) {
		t.Errorf("mean delay: min-delay %v, min-missing %v, uniform %v", d.MeanDelay, m.MeanDelay, u.MeanDelay)
	}
	if !(a.Missed < m.Missed && a.MeanDelay < d.MeanDelay) {
		t.Errorf("at-risk missed %d (min-missing %d), mean delay %v (min-delay %v)", a.Missed, m.Missed, a.MeanDelay, d.MeanDelay)
	}
}
