package simulate

import (
	"context"
	"errors"
	"reflect"
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
// Over the postings retrieved: mean 4h, p50 4h, p95 and p99 5h (nearest
// rank of 3, 4, 5). Over all postings, the missed one counts until 06:00,
// which found it gone: 5, 4, 3 and 5 hours, mean 4.25h, p50 4h (the 2nd
// of 3, 4, 5, 5), p95 and p99 5h. 3 pending at most; no posting waited
// more than a day.
func TestRunHandWorked(t *testing.T) {
	tr := &Trace{
		Start: day0, End: day0.Add(24 * time.Hour),
		Feeds: []Feed{{ID: "a", Capacity: 2, Postings: []time.Time{at(1, 0), at(2, 0), at(3, 0), at(7, 0)}}},
	}
	res, err := Run(context.Background(), tr, Options{Policies: []string{policy.Flat}, Budgets: []int{4}, Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Policy: policy.Flat, Budget: 4, Polls: 4, Postings: 4, Missed: 1,
		MeanDelay: 4 * 3600, P50Delay: 4 * 3600, P95Delay: 5 * 3600, P99Delay: 5 * 3600,
		AllMeanDelay: 4.25 * 3600, AllP50Delay: 4 * 3600, AllP95Delay: 5 * 3600, AllP99Delay: 5 * 3600,
		MaxPending: 3}
	if len(res) != 1 || !reflect.DeepEqual(res[0], want) {
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
	tr, err := Synthetic(Poisson, 20, 1, 14)
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
	tr, err := Synthetic(Poisson, 40, 3, 14)
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
		// Budget policies keep their budget; the allocation policies
		// overshoot by a few percent, because each cycle re-plans from
		// rates learnt since and a source whose allocation grows is polled
		// earlier than the previous plan said.
		if want := r.Budget * measuredDays; p.Budgeted() && (r.Polls > want*105/100 || r.Polls < want*95/100) {
			t.Errorf("%s/%d: %d polls, budget %d", r.Policy, r.Budget, r.Polls, want)
		}
	}
	opts.Workers, opts.Progress = 1, nil
	again, err := Run(context.Background(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, again) {
		t.Error("results depend on the number of workers")
	}
}

// A feed of "the last 3 hours" loses what a poll comes too late for,
// whatever the count: postings at 01:00, 02:00 and 05:00, polls every 6
// hours. At 06:00 the 01:00 and 02:00 postings are older than 3 hours:
// missed, charged 5h and 4h; 05:00 is read 1h late.
func TestRunTimeWindow(t *testing.T) {
	tr := &Trace{
		Start: day0, End: day0.Add(24 * time.Hour),
		Feeds: []Feed{{ID: "a", Window: 3 * time.Hour, Postings: []time.Time{at(1, 0), at(2, 0), at(5, 0)}}},
	}
	res, err := Run(context.Background(), tr, Options{Policies: []string{policy.Flat}, Budgets: []int{4}, Warmup: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Missed != 2 || r.MeanDelay != 3600 || r.AllMeanDelay != 10*3600/3.0 {
		t.Errorf("got %+v, want 2 missed, 1h over retrieved, 10h/3 over all", r)
	}
	bad := &Trace{Start: day0, End: day0.Add(time.Hour), Feeds: []Feed{{ID: "b"}}}
	if _, err := Run(context.Background(), bad, Options{Warmup: -1}); err == nil {
		t.Error("a feed with neither capacity nor window was accepted")
	}
}

// A feed starves when a posting waits more than a day for a poll: with a
// budget of one poll every 36 hours, the 01:00 posting waits until 36:00.
func TestRunStarved(t *testing.T) {
	tr := &Trace{
		Start: day0, End: day0.Add(48 * time.Hour),
		Feeds: []Feed{
			{ID: "slow", Capacity: 5, Postings: []time.Time{at(1, 0)}},
			{ID: "silent", Capacity: 5},
		},
	}
	res, err := Run(context.Background(), tr, Options{Policies: []string{policy.Flat}, Budgets: []int{1}, Warmup: -1, Config: policy.Config{}, PerFeed: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	// Two feeds, one poll a day: flat polls each every 48 hours.
	if r.Starved != 1 || r.StarvedShare != 1 || r.Feeds[0].MaxWait != 47*3600 || r.Feeds[1].Postings != 0 {
		t.Errorf("got %+v, want the posting feed starved (the silent one does not count)", r)
	}
}

// Push-capable feeds: every posting arrives Latency after it is made,
// except the lost ones, which wait for the next push or the safety poll;
// polls are only safety polls, taken from the budget, and the other feeds
// get the polls the push feeds no longer need.
func TestRunPush(t *testing.T) {
	tr, err := Synthetic(Blog, 60, 4, 14)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Policies: []string{policy.AtRisk, policy.MinDelay}, Budgets: []int{120}, Push: PushModel{Latency: 30 * time.Second, Loss: -1}}
	without, err := Run(context.Background(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	pushed := 0
	MarkPush(tr, 0.5, 4)
	for _, f := range tr.Feeds {
		if f.Push {
			pushed++
		}
	}
	if pushed < 20 || pushed > 40 {
		t.Fatalf("%d of 60 feeds marked push-capable, want about half", pushed)
	}
	with, err := Run(context.Background(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range with {
		w := without[i]
		safety := pushed * 7 // one safety poll a day over the 7 measured days
		if r.Pushes == 0 || r.PushPolls < safety*9/10 || r.PushPolls > safety*11/10 {
			t.Errorf("%s: %d pushes, %d safety polls, want about %d", r.Policy, r.Pushes, r.PushPolls, safety)
		}
		if r.Polls > w.Polls*102/100 || !(r.AllMeanDelay < 0.8*w.AllMeanDelay) || r.Missed > w.Missed {
			t.Errorf("%s: with push %d polls, delay %.0f s, %d missed; without %d polls, %.0f s, %d missed",
				r.Policy, r.Polls, r.AllMeanDelay, r.Missed, w.Polls, w.AllMeanDelay, w.Missed)
		}
	}
	// A lossless hub at no latency: the push feeds' postings wait for
	// nothing.
	opts.Push = PushModel{Latency: time.Nanosecond, Loss: -1}
	opts.PerFeed = true
	res, err := Run(context.Background(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range tr.Feeds {
		if fr := res[0].Feeds[i]; f.Push && (fr.Missed != 0 || fr.AllMeanDelay > 1e-6) {
			t.Errorf("push feed %s: %+v", f.ID, fr)
		}
	}
}
