// Package simulate replays posting traces under Dynamo's scheduling
// policies and measures what each would have missed and how late it would
// have been.
//
// It drives the very code the live poller runs: package policy's State
// (Learn after every poll) and Policy (Next after a poll, Plan every cycle
// for budget policies), fed with what each simulated poll would have seen.
// Nothing is known in advance: rates, capacities and habits are learnt
// from the simulated polls, as they are live.
package simulate

import (
	"container/heap"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// Options say what to simulate.
type Options struct {
	// Policies to compare; default every policy.Names().
	Policies []string
	// Budgets are polls per day over all feeds, each simulated with every
	// policy; default 4 per feed. Per-source policies (flat, smart,
	// weekday) have no budget: they get it as their starting interval,
	// 24h × feeds / budget, and report how many polls they used.
	Budgets []int
	// Config tunes the policies; Budget and Period are set from Budgets.
	Config policy.Config
	// Warmup is the learning time at the start that is not measured.
	// Default 7 days; negative means none.
	Warmup time.Duration
	// NoDates hides item dates from the polls, as for pages that give
	// none; the policies then learn from counts alone.
	NoDates bool
	// Workers is how many runs go at once; default GOMAXPROCS.
	Workers int
	// Progress, if set, is told how many of total simulated days are done.
	// Calls are serialised.
	Progress func(done, total int)
}

// Cooldown is how long a run goes on after the trace's end so that the
// postings of the span are retrieved or missed rather than cut off.
const Cooldown = 3 * 24 * time.Hour

const defaultWarmup = 7 * 24 * time.Hour

// Result is what one policy did with one budget. Only what happens between
// the end of the warm-up and the end of the trace is counted.
type Result struct {
	Policy string `json:"policy"`
	Budget int    `json:"budget"`
	// Polls made.
	Polls int `json:"polls"`
	// Postings made.
	Postings int `json:"postings"`
	// Missed postings: they scrolled out of their feed's S items before
	// any poll saw them.
	Missed int `json:"missed"`
	// MeanDelay and P95Delay are seconds from posting to retrieval over the
	// postings retrieved (nearest-rank 95th percentile). A posting still
	// unread when the run ends counts with its delay so far.
	MeanDelay float64 `json:"mean_delay_s"`
	P95Delay  float64 `json:"p95_delay_s"`
	// MaxPending is the most postings any feed made between two polls
	// (above its capacity, some of them were missed).
	MaxPending int `json:"max_pending"`
}

// Run simulates every policy with every budget over the trace. Results
// come budget by budget, policies in the order given. Runs are independent
// and deterministic, so the results do not depend on Workers.
func Run(ctx context.Context, t *Trace, opts Options) ([]Result, error) {
	opts, err := opts.withDefaults(t)
	if err != nil {
		return nil, err
	}
	from := t.Start.Add(opts.Warmup)
	if !from.Before(t.End) {
		return nil, fmt.Errorf("simulate: the warm-up (%v) leaves nothing of the trace (%v) to measure", opts.Warmup, t.End.Sub(t.Start))
	}
	type job struct {
		index  int
		policy string
		budget int
	}
	var jobs []job
	for _, b := range opts.Budgets {
		for _, p := range opts.Policies {
			jobs = append(jobs, job{len(jobs), p, b})
		}
	}
	days := int((t.End.Add(Cooldown).Sub(t.Start) + 24*time.Hour - 1) / (24 * time.Hour))
	progress := newProgress(opts.Progress, days*len(jobs))
	results := make([]Result, len(jobs))
	errs := make([]error, len(jobs))
	queue := make(chan job)
	var wg sync.WaitGroup
	for range min(opts.Workers, len(jobs)) {
		wg.Go(func() {
			for j := range queue {
				results[j.index], errs[j.index] = simulateOne(ctx, t, opts, j.policy, j.budget, from, progress)
			}
		})
	}
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

func (o Options) withDefaults(t *Trace) (Options, error) {
	if t == nil || len(t.Feeds) == 0 {
		return o, fmt.Errorf("simulate: no feeds")
	}
	if !t.End.After(t.Start) {
		return o, fmt.Errorf("simulate: the trace ends (%s) before it starts (%s)", t.End, t.Start)
	}
	if len(o.Policies) == 0 {
		o.Policies = policy.Names()
	}
	if len(o.Budgets) == 0 {
		o.Budgets = []int{4 * len(t.Feeds)}
	}
	for _, b := range o.Budgets {
		if b < 1 || b > 10_000_000 {
			return o, fmt.Errorf("simulate: budget %d is outside 1..10000000 polls a day", b)
		}
	}
	for _, p := range o.Policies {
		if _, err := policy.ByName(p, o.Config); err != nil {
			return o, fmt.Errorf("simulate: %w", err)
		}
	}
	switch {
	case o.Warmup == 0:
		o.Warmup = defaultWarmup
	case o.Warmup < 0:
		o.Warmup = 0
	}
	if o.Workers < 1 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o, nil
}

// progress counts simulated days across runs.
type progress struct {
	mu    sync.Mutex
	done  int
	total int
	fn    func(done, total int)
}

func newProgress(fn func(done, total int), total int) *progress {
	return &progress{fn: fn, total: total}
}

func (p *progress) day() {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.fn(p.done, p.total)
}

// run is one policy with one budget over the trace.
type run struct {
	trace    *Trace
	policy   policy.Policy
	noDates  bool
	from, to time.Time // what is measured
	horizon  time.Time // when the run stops
	states   []policy.State
	sources  []policy.Source
	read     []int // per feed, postings already retrieved or missed
	result   Result
	delays   []time.Duration
}

func simulateOne(ctx context.Context, t *Trace, opts Options, name string, budget int, from time.Time, prog *progress) (Result, error) {
	cfg := opts.Config
	cfg.Budget = budget
	cfg.Period = 24 * time.Hour
	p, err := policy.ByName(name, cfg)
	if err != nil {
		return Result{}, fmt.Errorf("simulate: %w", err)
	}
	n := len(t.Feeds)
	r := &run{
		trace:   t,
		policy:  p,
		noDates: opts.NoDates,
		from:    from,
		to:      t.End,
		horizon: t.End.Add(Cooldown),
		states:  make([]policy.State, n),
		sources: make([]policy.Source, n),
		read:    make([]int, n),
		result:  Result{Policy: name, Budget: budget},
	}
	interval := time.Duration(float64(24*time.Hour) * float64(n) / float64(budget))
	for i := range t.Feeds {
		r.sources[i] = policy.Source{ID: t.Feeds[i].ID, Interval: interval, State: &r.states[i]}
	}
	cfg = cfg.WithDefaults()
	if p.Budgeted() {
		err = r.byCycle(ctx, cfg.Cycle, prog)
	} else {
		err = r.byEvent(ctx, cfg.Gap, prog)
	}
	if err != nil {
		return Result{}, err
	}
	r.finish()
	return r.result, nil
}

// firstRead polls every feed at the start: a new source is read at once.
func (r *run) firstRead() {
	for i := range r.trace.Feeds {
		r.poll(i, r.trace.Start)
	}
}

// byCycle drives a budget policy as the live poller does: Plan once per
// cycle, then the polls it makes due within the cycle.
func (r *run) byCycle(ctx context.Context, cycle time.Duration, prog *progress) error {
	r.firstRead()
	day := r.trace.Start.Add(24 * time.Hour)
	for now := r.trace.Start; now.Before(r.horizon); now = now.Add(cycle) {
		for !now.Before(day) {
			if err := ctx.Err(); err != nil {
				return err
			}
			prog.day()
			day = day.Add(24 * time.Hour)
		}
		plan := r.policy.Plan(r.sources, now)
		end := now.Add(cycle)
		for i, at := range plan.Next {
			if at.Before(end) && at.Before(r.horizon) {
				r.poll(i, at)
			}
		}
	}
	prog.day()
	return nil
}

// byEvent drives a per-source policy: each poll sets the feed's next one
// with Next, and polls happen in time order.
func (r *run) byEvent(ctx context.Context, guard time.Duration, prog *progress) error {
	r.firstRead()
	q := &pollQueue{}
	for i := range r.sources {
		heap.Push(q, pollAt{r.policy.Next(r.sources[i], r.trace.Start), i})
	}
	day := r.trace.Start.Add(24 * time.Hour)
	for q.Len() > 0 {
		next := heap.Pop(q).(pollAt)
		if !next.at.Before(r.horizon) {
			break
		}
		for !next.at.Before(day) {
			if err := ctx.Err(); err != nil {
				return err
			}
			prog.day()
			day = day.Add(24 * time.Hour)
		}
		r.poll(next.feed, next.at)
		at := r.policy.Next(r.sources[next.feed], next.at)
		if !at.After(next.at) {
			// A policy answering "again now" would stall the run; the
			// live poller's politeness gap would hold it back the same.
			at = next.at.Add(guard)
		}
		heap.Push(q, pollAt{at, next.feed})
	}
	for !r.horizon.Before(day) {
		prog.day()
		day = day.Add(24 * time.Hour)
	}
	return nil
}

// poll reads feed i at time at: the postings made since the last read are
// new; the newest S of them are on the page, the others scrolled out.
func (r *run) poll(i int, at time.Time) {
	f := &r.trace.Feeds[i]
	first := r.read[i]
	end := first
	for end < len(f.Postings) && !f.Postings[end].After(at) {
		end++
	}
	fresh := end - first
	retrieved := min(fresh, f.Capacity)
	for _, p := range f.Postings[first : end-retrieved] {
		if r.measured(p) {
			r.result.Missed++
		}
	}
	for _, p := range f.Postings[end-retrieved : end] {
		if r.measured(p) {
			r.delays = append(r.delays, at.Sub(p))
		}
	}
	if !at.Before(r.from) && at.Before(r.to) {
		r.result.Polls++
		r.result.MaxPending = max(r.result.MaxPending, fresh)
	}
	obs := policy.Observation{
		At:        at,
		NewItems:  retrieved,
		ItemsSeen: min(end, f.Capacity),
		Changed:   fresh > 0,
	}
	if !r.noDates {
		obs.ItemDates = f.Postings[end-retrieved : end]
	}
	r.states[i].Learn(obs)
	r.read[i] = end
}

// measured reports whether a posting falls in the measured span.
func (r *run) measured(p time.Time) bool {
	return !p.Before(r.from) && p.Before(r.to)
}

// finish counts the postings and the delays, charging postings never read
// with their delay up to the end of the run.
func (r *run) finish() {
	for i, f := range r.trace.Feeds {
		for k, p := range f.Postings {
			if !r.measured(p) {
				continue
			}
			r.result.Postings++
			if k >= r.read[i] {
				r.delays = append(r.delays, r.horizon.Sub(p))
			}
		}
	}
	if len(r.delays) == 0 {
		return
	}
	slices.Sort(r.delays)
	var sum float64
	for _, d := range r.delays {
		sum += d.Seconds()
	}
	r.result.MeanDelay = roundTo(sum/float64(len(r.delays)), 1)
	rank := (95*len(r.delays) + 99) / 100 // nearest rank: ceil(0.95·n)
	r.result.P95Delay = roundTo(r.delays[rank-1].Seconds(), 1)
}

func roundTo(v float64, decimals int) float64 {
	scale := 1.0
	for range decimals {
		scale *= 10
	}
	return float64(int64(v*scale+0.5)) / scale
}

type pollAt struct {
	at   time.Time
	feed int
}

// pollQueue orders polls by time, then feed, so runs are deterministic.
type pollQueue []pollAt

func (q pollQueue) Len() int { return len(q) }
func (q pollQueue) Less(a, b int) bool {
	if !q[a].at.Equal(q[b].at) {
		return q[a].at.Before(q[b].at)
	}
	return q[a].feed < q[b].feed
}
func (q pollQueue) Swap(a, b int) { q[a], q[b] = q[b], q[a] }
func (q *pollQueue) Push(x any)   { *q = append(*q, x.(pollAt)) }
func (q *pollQueue) Pop() any {
	old := *q
	last := old[len(old)-1]
	*q = old[:len(old)-1]
	return last
}
