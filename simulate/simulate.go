// Package simulate replays posting traces under Dynamo's scheduling
// policies and measures what each would have missed and how late it would
// have been.
//
// It drives the very code the live poller runs: package policy's State
// (Learn after every poll, Pushed after every push) and Policy (Next after
// a poll, Plan every cycle for budget policies), fed with what each
// simulated poll or push would have seen. Nothing is known in advance:
// rates, capacities and habits are learnt from the simulated polls, as
// they are live.
package simulate

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math"
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
	// Push says how the hubs of push-capable feeds (Feed.Push) deliver.
	Push PushModel
	// PerFeed adds each feed's figures to the results (Result.Feeds).
	PerFeed bool
	// Workers is how many runs go at once; default GOMAXPROCS.
	Workers int
	// Progress, if set, is told how many of total simulated days are done.
	// Calls are serialised.
	Progress func(done, total int)
}

// PushModel is how WebSub hubs deliver the postings of push-capable feeds:
// each posting is pushed Latency after it is made, with the feed's items
// as they were then (a "fat ping"), except a share Loss of pushes that
// never arrive; the items they carried wait for the next push or poll.
type PushModel struct {
	// Latency from posting to push; default 1 minute.
	Latency time.Duration
	// Loss is the share of pushes lost, decided per posting so that every
	// policy loses the same ones; default 0.02; negative for none.
	Loss float64
}

// Cooldown is how long a run goes on after the trace's end so that the
// postings of the span are retrieved or missed rather than cut off.
const Cooldown = 3 * 24 * time.Hour

// StarvedAfter is how long a posting may wait for a poll before its feed
// counts as starved: no poll for more than a day while it had postings
// waiting.
const StarvedAfter = 24 * time.Hour

const (
	defaultWarmup      = 7 * 24 * time.Hour
	defaultPushLatency = time.Minute
	defaultPushLoss    = 0.02
)

// Result is what one policy did with one budget. Only what happens between
// the end of the warm-up and the end of the trace is counted. Delays are
// in seconds, at full precision.
type Result struct {
	Policy string `json:"policy"`
	Budget int    `json:"budget"`
	// Polls made, of which PushPolls were safety polls of push-capable
	// feeds.
	Polls     int `json:"polls"`
	PushPolls int `json:"push_polls"`
	// Pushes received.
	Pushes int `json:"pushes"`
	// Postings made.
	Postings int `json:"postings"`
	// Missed postings: they scrolled out of their feed's window before
	// any poll or push saw them.
	Missed int `json:"missed"`
	// Delay from posting to retrieval over the postings retrieved
	// (nearest-rank percentiles). A posting still unread when the run
	// ends counts with its delay so far.
	MeanDelay float64 `json:"mean_delay_s"`
	P50Delay  float64 `json:"p50_delay_s"`
	P95Delay  float64 `json:"p95_delay_s"`
	P99Delay  float64 `json:"p99_delay_s"`
	// Delay over all postings: a missed posting costs the time from its
	// posting to the poll that found it gone. It does not flatter a
	// policy that misses the hard postings.
	AllMeanDelay float64 `json:"all_mean_delay_s"`
	AllP50Delay  float64 `json:"all_p50_delay_s"`
	AllP95Delay  float64 `json:"all_p95_delay_s"`
	AllP99Delay  float64 `json:"all_p99_delay_s"`
	// MaxPending is the most postings any feed made between two polls
	// (above its capacity, some of them were missed).
	MaxPending int `json:"max_pending"`
	// Starved feeds went more than StarvedAfter without a poll while a
	// posting of theirs waited; StarvedShare is their share of the feeds
	// that posted.
	Starved      int     `json:"starved_feeds"`
	StarvedShare float64 `json:"starved_share"`
	// Feeds are each feed's figures, when Options.PerFeed asks for them.
	Feeds []FeedResult `json:"feeds,omitempty"`
}

// FeedResult is what one policy did with one feed.
type FeedResult struct {
	ID       string `json:"id"`
	Shape    string `json:"shape,omitempty"`
	Push     bool   `json:"push,omitempty"`
	Polls    int    `json:"polls"`
	Postings int    `json:"postings"`
	Missed   int    `json:"missed"`
	// AllMeanDelay is the mean delay over all its postings, seconds;
	// MaxWait the longest one of them waited for a poll.
	AllMeanDelay float64 `json:"all_mean_delay_s"`
	MaxWait      float64 `json:"max_wait_s"`
	// Learnt is what the policies learnt of the feed by the end of the
	// run: its rate, capacity, cluster size and shifts of rate.
	Learnt policy.Summary `json:"learnt"`
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
	pushes := pushSchedule(t, opts.Push)
	days := int((t.End.Add(Cooldown).Sub(t.Start) + 24*time.Hour - 1) / (24 * time.Hour))
	progress := newProgress(opts.Progress, days*len(jobs))
	results := make([]Result, len(jobs))
	errs := make([]error, len(jobs))
	queue := make(chan job)
	var wg sync.WaitGroup
	for range min(opts.Workers, len(jobs)) {
		wg.Go(func() {
			for j := range queue {
				results[j.index], errs[j.index] = simulateOne(ctx, t, opts, pushes, j.policy, j.budget, from, progress)
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
	for i := range t.Feeds {
		if f := &t.Feeds[i]; f.Capacity < 0 || f.Window < 0 || (f.Capacity == 0 && f.Window == 0) {
			return o, fmt.Errorf("simulate: feed %s has no window: give it a capacity, a time window or both", f.ID)
		}
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
	switch {
	case o.Push.Latency == 0:
		o.Push.Latency = defaultPushLatency
	case o.Push.Latency < 0:
		return o, fmt.Errorf("simulate: push latency %v is negative", o.Push.Latency)
	}
	switch {
	case math.IsNaN(o.Push.Loss) || o.Push.Loss >= 1:
		return o, fmt.Errorf("simulate: push loss %v is not a share below 1", o.Push.Loss)
	case o.Push.Loss == 0:
		o.Push.Loss = defaultPushLoss
	case o.Push.Loss < 0:
		o.Push.Loss = 0
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

// push is one delivery from a hub: posting k of feed is pushed at at.
type push struct {
	at   time.Time
	feed int
	k    int
}

// pushSchedule is every push the hubs deliver, in time order: the same
// for every policy, the lost ones decided by a hash of feed and posting.
func pushSchedule(t *Trace, m PushModel) []push {
	var out []push
	for i, f := range t.Feeds {
		if !f.Push {
			continue
		}
		for k, p := range f.Postings {
			if lost(i, k, m.Loss) {
				continue
			}
			out = append(out, push{p.Add(m.Latency), i, k})
		}
	}
	slices.SortFunc(out, func(a, b push) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.feed, b.feed)
	})
	return out
}

// lost decides, the same in every run, whether the push of posting k of
// feed i is lost.
func lost(i, k int, loss float64) bool {
	return loss > 0 && uniform(uint64(i), uint64(k)) < loss
}

// uniform is a number in [0, 1) determined by a and b: a SplitMix64 hash.
func uniform(a, b uint64) float64 {
	x := a<<32 ^ b + 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// run is one policy with one budget over the trace.
type run struct {
	trace     *Trace
	policy    policy.Policy
	noDates   bool
	from, to  time.Time // what is measured
	horizon   time.Time // when the run stops
	states    []policy.State
	sources   []policy.Source
	read      []int           // per feed, postings already retrieved or missed
	waited    []time.Duration // per feed, the longest a measured posting waited for a poll
	feeds     []FeedResult    // per feed, when asked for; delays summed in AllMeanDelay
	pushes    []push
	result    Result
	retrieved []time.Duration // delays of the postings retrieved
	all       []time.Duration // delays of every posting, to the poll that read or missed it
}

func simulateOne(ctx context.Context, t *Trace, opts Options, pushes []push, name string, budget int, from time.Time, prog *progress) (Result, error) {
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
		waited:  make([]time.Duration, n),
		pushes:  pushes,
		result:  Result{Policy: name, Budget: budget},
	}
	if opts.PerFeed {
		r.feeds = make([]FeedResult, n)
	}
	interval := time.Duration(float64(24*time.Hour) * float64(n) / float64(budget))
	for i := range t.Feeds {
		f := &t.Feeds[i]
		r.sources[i] = policy.Source{ID: f.ID, Interval: interval, Push: f.Push, Location: f.Zone, State: &r.states[i]}
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

// pushUntil delivers the pushes due before t.
func (r *run) pushUntil(t time.Time) {
	for len(r.pushes) > 0 && r.pushes[0].at.Before(t) {
		p := r.pushes[0]
		r.pushes = r.pushes[1:]
		if p.at.Before(r.trace.Start) {
			continue
		}
		r.push(p)
	}
}

// byCycle drives a budget policy as the live poller does: Plan once per
// cycle, then the polls it makes due within the cycle, in time order with
// the pushes.
func (r *run) byCycle(ctx context.Context, cycle time.Duration, prog *progress) error {
	r.firstRead()
	day := r.trace.Start.Add(24 * time.Hour)
	type due struct {
		at   time.Time
		feed int
	}
	var polls []due
	for now := r.trace.Start; now.Before(r.horizon); now = now.Add(cycle) {
		for !now.Before(day) {
			if err := ctx.Err(); err != nil {
				return err
			}
			prog.day()
			day = day.Add(24 * time.Hour)
		}
		r.pushUntil(now.Add(time.Nanosecond))
		plan := r.policy.Plan(r.sources, now)
		end := now.Add(cycle)
		polls = polls[:0]
		for i, at := range plan.Next {
			if at.Before(end) && at.Before(r.horizon) {
				polls = append(polls, due{at, i})
			}
		}
		slices.SortStableFunc(polls, func(a, b due) int { return a.at.Compare(b.at) })
		for _, d := range polls {
			r.pushUntil(d.at)
			r.poll(d.feed, d.at)
		}
		if end.After(r.horizon) {
			end = r.horizon
		}
		r.pushUntil(end)
	}
	prog.day()
	return nil
}

// byEvent drives a per-source policy: each poll sets the feed's next one
// with Next, and polls and pushes happen in time order.
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
		r.pushUntil(next.at)
		r.poll(next.feed, next.at)
		at := r.policy.Next(r.sources[next.feed], next.at)
		if !at.After(next.at) {
			// A policy answering "again now" would stall the run; the
			// live poller's politeness gap would hold it back the same.
			at = next.at.Add(guard)
		}
		heap.Push(q, pollAt{at, next.feed})
	}
	r.pushUntil(r.horizon)
	for !r.horizon.Before(day) {
		prog.day()
		day = day.Add(24 * time.Hour)
	}
	return nil
}

// visible is the first of the postings [first, end) that feed f still
// shows at time at; those before it have scrolled out.
func visible(f *Feed, first, end int, at time.Time) int {
	from := first
	if f.Capacity > 0 {
		from = max(from, end-f.Capacity)
	}
	if f.Window > 0 {
		oldest := at.Add(-f.Window)
		for from < end && f.Postings[from].Before(oldest) {
			from++
		}
	}
	return from
}

// poll reads feed i at time at: the postings made since the last read are
// new; those still in the feed's window are retrieved, the others
// scrolled out and are missed.
func (r *run) poll(i int, at time.Time) {
	f := &r.trace.Feeds[i]
	first := r.read[i]
	end := first
	for end < len(f.Postings) && !f.Postings[end].After(at) {
		end++
	}
	from := visible(f, first, end, at)
	r.account(i, first, from, end, at)
	fresh := end - first
	if !at.Before(r.from) && at.Before(r.to) {
		r.result.Polls++
		if r.feeds != nil {
			r.feeds[i].Polls++
		}
		if f.Push {
			r.result.PushPolls++
		}
		r.result.MaxPending = max(r.result.MaxPending, fresh)
	}
	shown := end - visible(f, 0, end, at)
	obs := policy.Observation{
		At:        at,
		NewItems:  end - from,
		ItemsSeen: shown,
		Changed:   end > from,
	}
	if !r.noDates {
		obs.ItemDates = f.Postings[from:end]
	}
	r.states[i].Learn(obs)
	r.read[i] = end
}

// push delivers the push of posting p.k: the feed's items as they were at
// that posting, those not read yet being new.
func (r *run) push(p push) {
	f := &r.trace.Feeds[p.feed]
	first := r.read[p.feed]
	end := p.k + 1
	if first >= end {
		return // a poll read it first
	}
	from := visible(f, first, end, f.Postings[p.k])
	r.account(p.feed, first, from, end, p.at)
	if !p.at.Before(r.from) && p.at.Before(r.to) {
		r.result.Pushes++
	}
	pu := policy.Push{At: p.at, NewItems: end - from}
	if !r.noDates {
		pu.ItemDates = f.Postings[from:end]
	}
	r.states[p.feed].Pushed(pu)
	r.read[p.feed] = end
}

// account records what a poll or push at `at` did with the postings
// [first, end) of feed i: those before `from` were missed, the others
// retrieved.
func (r *run) account(i, first, from, end int, at time.Time) {
	f := &r.trace.Feeds[i]
	for k := first; k < end; k++ {
		p := f.Postings[k]
		if !r.measured(p) {
			continue
		}
		d := at.Sub(p)
		r.all = append(r.all, d)
		r.waited[i] = max(r.waited[i], d)
		if r.feeds != nil {
			r.feeds[i].AllMeanDelay += d.Seconds()
			if k < from {
				r.feeds[i].Missed++
			}
		}
		if k < from {
			r.result.Missed++
		} else {
			r.retrieved = append(r.retrieved, d)
		}
	}
}

// measured reports whether a posting falls in the measured span.
func (r *run) measured(p time.Time) bool {
	return !p.Before(r.from) && p.Before(r.to)
}

// finish counts the postings, charges postings never read with their
// delay up to the end of the run, and sums up the delays.
func (r *run) finish() {
	posted := 0
	for i := range r.trace.Feeds {
		f := &r.trace.Feeds[i]
		n := 0
		for k, p := range f.Postings {
			if !r.measured(p) {
				continue
			}
			n++
			if k >= r.read[i] {
				d := r.horizon.Sub(p)
				r.retrieved = append(r.retrieved, d)
				r.all = append(r.all, d)
				r.waited[i] = max(r.waited[i], d)
				if r.feeds != nil {
					r.feeds[i].AllMeanDelay += d.Seconds()
				}
			}
		}
		r.result.Postings += n
		if r.feeds != nil {
			fr := &r.feeds[i]
			fr.ID, fr.Shape, fr.Push, fr.Postings, fr.MaxWait = f.ID, f.Shape, f.Push, n, r.waited[i].Seconds()
			fr.Learnt = r.states[i].Summarize(policy.Config{}, 0, r.horizon)
			if n > 0 {
				fr.AllMeanDelay /= float64(n)
			}
		}
		if n > 0 {
			posted++
			if r.waited[i] > StarvedAfter {
				r.result.Starved++
			}
		}
	}
	if posted > 0 {
		r.result.StarvedShare = float64(r.result.Starved) / float64(posted)
	}
	res := &r.result
	res.Feeds = r.feeds
	res.MeanDelay, res.P50Delay, res.P95Delay, res.P99Delay = summarize(r.retrieved)
	res.AllMeanDelay, res.AllP50Delay, res.AllP95Delay, res.AllP99Delay = summarize(r.all)
}

// summarize is the mean and the nearest-rank 50th, 95th and 99th
// percentiles of delays, in seconds.
func summarize(delays []time.Duration) (mean, p50, p95, p99 float64) {
	if len(delays) == 0 {
		return 0, 0, 0, 0
	}
	slices.Sort(delays)
	var sum float64
	for _, d := range delays {
		sum += d.Seconds()
	}
	rank := func(p int) float64 {
		return delays[(p*len(delays)+99)/100-1].Seconds() // ceil(p·n/100)
	}
	return sum / float64(len(delays)), rank(50), rank(95), rank(99)
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
