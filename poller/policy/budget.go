package policy

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// allocator runs an allocation policy (uniform, min-delay, min-missing)
// live: every cycle it allocates the budget from the learnt λ and S and
// spreads each source's polls evenly, one every window/polls after its
// last poll.
//
// When the budget is smaller than the number of sources, whole polls per
// period would leave some sources none at all, so the allocation covers a
// window of as many periods as it takes for the budget to reach one poll
// per source (with the budget and λ scaled alike). A source may not get a
// poll more often than the politeness gap allows, and one allocated no
// poll is still polled after MaxWait.
type allocator struct {
	name string
	cfg  Config
}

func (a allocator) Name() string   { return a.name }
func (a allocator) Budgeted() bool { return true }

func (a allocator) Next(src Source, now time.Time) time.Time {
	return budgetNext(a.cfg, src, now)
}

func (a allocator) Plan(sources []Source, now time.Time) Plan {
	plan := Plan{Next: make([]time.Time, len(sources)), Replan: now.Add(a.cfg.Cycle)}
	if len(sources) == 0 {
		return plan
	}
	window, budget := a.window(len(sources))
	// Push-capable sources get their safety polls, taken from the budget;
	// the others share the rest.
	var polled []int
	pushed := 0
	for i := range sources {
		if sources[i].Push && sources[i].polled() {
			plan.Next[i] = pushNext(a.cfg, sources[i], now)
			pushed++
			continue
		}
		polled = append(polled, i)
	}
	if len(polled) == 0 {
		return plan
	}
	budget = max(budget-int(math.Round(float64(pushed)*float64(window)/float64(a.cfg.PushSafety))), 0)
	feeds := make([]Feed, len(polled))
	for k, i := range polled {
		feeds[k] = a.feed(&sources[i], window)
	}
	polls, err := Allocate(a.name, budget, feeds)
	if err != nil {
		// Unreachable with feeds built by a.feed; should it happen, no
		// source is lost: each waits for the next plan.
		for _, i := range polled {
			plan.Next[i] = budgetNext(a.cfg, sources[i], now)
		}
		return plan
	}
	for k, i := range polled {
		plan.Next[i] = a.next(&sources[i], polls[k], window, now)
	}
	return plan
}

// window is the span one allocation covers, and the polls it shares.
func (a allocator) window(n int) (time.Duration, int) {
	budget := a.cfg.budgetFor(n)
	periods := 1
	if budget > 0 && budget < n {
		periods = (n + budget - 1) / budget
	}
	return a.cfg.Period * time.Duration(periods), min(budget*periods, maxBudget)
}

// feed is the source as the allocation sees it over the window.
func (a allocator) feed(src *Source, window time.Duration) Feed {
	s := src.state()
	rate := s.Rate() * window.Hours() / 24
	return Feed{
		Rate:     min(rate, maxRate),
		Capacity: min(s.CapacityOrDefault(), maxCapacity),
		Weight:   min(src.weight(a.cfg), maxWeight),
		Cap:      max(int(window/a.cfg.Gap), 1),
	}
}

// next spreads the source's polls evenly over the window.
func (a allocator) next(src *Source, polls int, window time.Duration, now time.Time) time.Time {
	last := src.state().LastRetrieval
	if last.IsZero() {
		return settle(now, now, src)
	}
	wait := a.cfg.MaxWait
	if polls > 0 {
		wait = min(window/time.Duration(polls), wait)
	}
	return settle(last.Add(max(wait, a.cfg.Gap)), now, src)
}

// ranking runs the cycle-by-cycle policies (hourly, at-risk): every cycle
// it takes the cycle's share of the budget, k polls, and gives them to the
// sources that most deserve one among those not polled within the
// politeness gap. Sources that waited MaxWait (at-risk: its guard) come
// first, oldest first, with the safety polls of push-capable sources; the
// rest go by rank, highest first, ties to the source listed first.
// Sources never polled are due at once, outside the budget.
//
// hourly ranks by expected_new_items × (1 + C × subscribers), the expected
// new items being the hourly rates integrated since the last poll, and
// spreads the budget evenly over the period.
//
// at-risk ranks by what polling now is worth, in item-hours of delay, and
// divides it by θ so that 1 means "due by the square-root law":
//
//	rank = (W + μ·S·P(N ≥ S+1)) / θ × (1 + C × subscribers)
//
// W is the waiting so far of the source's pending postings, ∫ r(s)·(now−s)
// ds over the rate model since its last poll or push (the time of day,
// the weekday in the source's zone, the current level, any burst in
// progress). For steady postings at rate r polled every I, W reaches
// r·I²/2 at each poll, and polling every source when its W reaches the
// same threshold θ is min-delay's square-root law, here at the hours and
// on the days each source actually posts (see sqrtLawWait for θ).
// μ·S·P(N ≥ S+1) is the same for missed postings: N is the postings the
// source will have made by Lookahead from now (Poisson, counted in
// clusters of its cluster size c, so N/c ~ Poisson(E/c)), S its capacity,
// and μ (MissHours) the delay a missed posting is worth. For steady
// postings this is the renewal index of a poll's cost: a poll of a window
// that has overflowed collects S postings that the next ones would lose.
// The budget follows the time of day beyond the floor the clock sets (a
// poll of every source each guard, push safety polls), which is spread
// evenly: a share Shape of the rest goes to each cycle in proportion to
// the postings all its sources are expected to make in that cycle, the
// rest evenly (see budgetShare). No source waits more than the
// guard (see Config.Guard) while the budget allows it.
type ranking struct {
	name string
	cfg  Config
}

func (r ranking) Name() string   { return r.name }
func (r ranking) Budgeted() bool { return true }

func (r ranking) Next(src Source, now time.Time) time.Time {
	return budgetNext(r.cfg, src, now)
}

// Rank is how a ranking policy (hourly, at-risk) sees one source in one
// cycle.
type Rank struct {
	// Rank orders the sources that may be polled: at-risk's is in units
	// of θ (1: due by the square-root law), hourly's in expected items.
	Rank float64 `json:"rank"`
	// Waiting is W, the pending postings' waiting so far in item-hours;
	// Risk the missed postings' part of the rank before dividing by θ,
	// μ·S·P(N ≥ S+1), in item-hours too (at-risk only).
	Waiting float64 `json:"waiting_item_hours"`
	Risk    float64 `json:"risk_item_hours"`
	// Pending is the postings expected since the last poll or push.
	Pending float64 `json:"pending"`
	// Eligible: polled before, out of the politeness gap and past its
	// floors. Guarded: waited its guard (or MaxWait), or due for a push
	// safety poll: it comes before every ranked source.
	Eligible bool `json:"eligible"`
	Guarded  bool `json:"guarded"`
	// Poll: polled this cycle.
	Poll bool `json:"poll"`
}

// Cycle is what a ranking policy decides at one moment: each source's rank
// (in the order given), the polls of the cycle and the square-root law's
// θ (item-hours; at-risk only).
type Cycle struct {
	Ranks []Rank  `json:"ranks"`
	Polls int     `json:"polls"`
	Theta float64 `json:"theta_item_hours"`
}

// Ranks is the decision of the ranking policy `name` (hourly or at-risk)
// at now, in full: Plan polls exactly the sources it marks. `dynamo policy
// rank` prints it.
func Ranks(name string, cfg Config, sources []Source, now time.Time) (Cycle, error) {
	p, err := ByName(name, cfg)
	if err != nil {
		return Cycle{}, err
	}
	r, ok := p.(ranking)
	if !ok {
		return Cycle{}, fmt.Errorf("ranks: %q is not a ranking policy (want %s or %s)", name, Hourly, AtRisk)
	}
	return r.decide(sources, now), nil
}

func (r ranking) Plan(sources []Source, now time.Time) Plan {
	replan := now.Add(r.cfg.Cycle)
	plan := Plan{Next: make([]time.Time, len(sources)), Replan: replan}
	c := r.decide(sources, now)
	for i := range sources {
		src := &sources[i]
		switch {
		case !src.polled() || c.Ranks[i].Poll:
			plan.Next[i] = settle(now, now, src)
		case src.Push:
			// Its safety poll, or the next plan's if this one had no room.
			plan.Next[i] = pushNext(r.cfg, *src, now)
			if !plan.Next[i].After(now) {
				plan.Next[i] = settle(replan, now, src)
			}
		default:
			plan.Next[i] = settle(replan, now, src)
		}
	}
	return plan
}

// candidate is a source eligible for a poll this cycle.
type candidate struct {
	index    int
	starving bool
	last     time.Time
	rank     float64
}

// decide ranks the sources and picks the cycle's polls.
func (r ranking) decide(sources []Source, now time.Time) Cycle {
	c := Cycle{Ranks: make([]Rank, len(sources))}
	if len(sources) == 0 {
		return c
	}
	budget := r.cfg.budgetFor(len(sources))
	free, ranked := r.freeBudget(sources, budget)
	guard := r.cfg.MaxWait
	if r.name == AtRisk {
		c.Theta = sqrtLawWait(sources, free, r.cfg.Period)
		guard = min(guard, r.guard(ranked, free))
	}
	var candidates []candidate
	for i := range sources {
		src := &sources[i]
		rk := &c.Ranks[i]
		if !src.polled() {
			continue // due at once, outside the budget
		}
		last := src.state().LastRetrieval
		if src.Push {
			// Safety polls come first, like starving sources.
			if !pushNext(r.cfg, *src, now).After(now) {
				rk.Eligible, rk.Guarded = true, true
				candidates = append(candidates, candidate{index: i, last: last, starving: true})
			}
			continue
		}
		r.rank(src, now, c.Theta, rk)
		if src.floor().After(now) || now.Sub(last) < r.cfg.Gap {
			continue
		}
		rk.Eligible = true
		rk.Guarded = now.Sub(last) >= guard
		candidates = append(candidates, candidate{index: i, last: last, starving: rk.Guarded, rank: rk.Rank})
	}
	c.Polls = r.pollsThisCycle(sources, budget, guard, now)
	for _, cand := range topK(candidates, c.Polls) {
		c.Ranks[cand.index].Poll = true
	}
	return c
}

// freeBudget is the budget per period left to the sources polled for
// their postings once push-capable sources have their safety polls, and
// how many sources share it.
func (r ranking) freeBudget(sources []Source, budget int) (float64, int) {
	pushed := 0
	for i := range sources {
		if sources[i].Push && sources[i].polled() {
			pushed++
		}
	}
	safety := float64(pushed) * float64(r.cfg.Period) / float64(r.cfg.PushSafety)
	return max(float64(budget)-safety, 1), len(sources) - pushed
}

// guard is how long at-risk lets a source wait: Config.Guard, unless
// polling every one of the n sources that often would take more than
// GuardShare of the free budget; then the promise cannot be kept (a
// longer guard would still let postings wait more than a day, and cost
// what the ranking would spend better), and only MaxWait holds.
func (r ranking) guard(n int, free float64) time.Duration {
	need := float64(n) * float64(r.cfg.Period) / float64(r.cfg.Guard)
	if need > r.cfg.GuardShare*free {
		return r.cfg.MaxWait
	}
	return r.cfg.Guard
}

// rank fills in how much src deserves a poll now under the policy.
func (r ranking) rank(src *Source, now time.Time, theta float64, rk *Rank) {
	s := src.state()
	if r.name == Hourly {
		rk.Pending = expected(s.HourlyRates(), s.LastRetrieval, now)
		rk.Rank = rk.Pending * src.boost(r.cfg)
		return
	}
	m := s.model(src.Location, now)
	rk.Pending, rk.Waiting = m.integrate(s.lastSeen(), now)
	coming, _ := m.integrate(now, now.Add(r.cfg.Lookahead))
	capacity := float64(s.CapacityOrDefault())
	cluster := s.ClusterSize()
	overflowing := tailProb((rk.Pending+coming)/cluster, (capacity+1)/cluster)
	rk.Risk = r.cfg.MissHours * capacity * overflowing
	rk.Rank = (rk.Waiting + rk.Risk) / theta * src.boost(r.cfg)
}

// sqrtLawWait is θ, the waiting (in item-hours) that the square-root law
// lets the postings of a source build up between two of its polls: with
// intervals I = √(2θ/r) (min-delay's optimum for Poisson postings at r an
// hour), the budget B per period P is spent when Σ P/I = B, so
// θ = (P/B)² · (Σ √(r/2))², over the sources polled for their postings
// (push-capable ones only get safety polls).
func sqrtLawWait(sources []Source, budget float64, period time.Duration) float64 {
	var sum float64
	for i := range sources {
		if sources[i].Push && sources[i].polled() {
			continue
		}
		sum += math.Sqrt(sources[i].state().Rate() / 24 / 2)
	}
	perPoll := period.Hours() / max(budget, 1)
	return max(perPoll*perPoll*sum*sum, 1e-9)
}

// topK returns the k candidates that come first: starving ones, oldest
// first, then by rank, highest first; ties to the source listed first.
func topK(candidates []candidate, k int) []candidate {
	if k <= 0 {
		return nil
	}
	before := func(a, b candidate) bool {
		switch {
		case a.starving != b.starving:
			return a.starving
		case a.starving && !a.last.Equal(b.last):
			return a.last.Before(b.last)
		case a.rank != b.rank:
			return a.rank > b.rank
		}
		return a.index < b.index
	}
	if k >= len(candidates) {
		return candidates
	}
	if k > partialSelection {
		// Many polls a cycle (a large budget over many sources): sorting
		// all is n·log n where inserting into the best k would be n·k.
		slices.SortFunc(candidates, func(a, b candidate) int {
			if before(a, b) {
				return -1
			}
			return 1
		})
		return candidates[:k]
	}
	// A partial selection: k is a few polls, candidates may be thousands.
	best := make([]candidate, 0, k)
	for _, c := range candidates {
		if len(best) < k {
			best = insertSorted(best, c, before)
			continue
		}
		if before(c, best[k-1]) {
			best = insertSorted(best[:k-1], c, before)
		}
	}
	return best
}

// partialSelection is the most polls a cycle topK selects by insertion.
const partialSelection = 64

func insertSorted(list []candidate, c candidate, before func(a, b candidate) bool) []candidate {
	i := len(list)
	for i > 0 && before(c, list[i-1]) {
		i--
	}
	list = append(list, candidate{})
	copy(list[i+1:], list[i:])
	list[i] = c
	return list
}

// pollsThisCycle is the cycle's share of the budget. Cycles are counted
// from the start of the period (periods are aligned on the Unix epoch, so
// a 24h period starts at midnight UTC), and the k of cycle j is
// floor(B·W(j+1)) − floor(B·W(j)), W(j) being the share of the period's
// budget due before cycle j: whole polls that add up to the budget over
// each period, without any state between calls.
func (r ranking) pollsThisCycle(sources []Source, budget int, guard time.Duration, now time.Time) int {
	period, cycle := r.cfg.Period, r.cfg.Cycle
	start := now.Add(-time.Duration(now.UnixNano() % int64(period)))
	if now.UnixNano() < 0 {
		start = start.Add(-period)
	}
	j := int64(now.Sub(start) / cycle)
	cycles := int64((period + cycle - 1) / cycle)
	share := r.budgetShare(sources, float64(budget), guard, start, cycles)
	due := func(j int64) int64 {
		return int64(math.Floor(float64(budget) * share(j)))
	}
	return int(max(due(j+1)-due(j), 0))
}

// budgetShare returns W: the share of the period's budget due before each
// cycle. hourly spreads it evenly. at-risk splits it in two. The floor
// the clock sets is spread evenly: a poll of every source each guard (none
// with the guard off, see ranking.guard) and the safety polls of
// push-capable sources. The rest, the polls that follow postings, goes a
// share Shape in proportion to the postings all the other sources are
// expected to make in each cycle, and the rest evenly. Shaping the
// guard's floor too took the quiet hours' polls for the slow sources and
// left the busy ones few then.
func (r ranking) budgetShare(sources []Source, budget float64, guard time.Duration, start time.Time, cycles int64) func(int64) float64 {
	even := func(j int64) float64 { return min(float64(j)/float64(cycles), 1) }
	if r.name == Hourly || r.cfg.Shape == 0 {
		return even
	}
	var all [24]float64
	var clock float64 // polls a period the clock decides
	for i := range sources {
		src := &sources[i]
		if src.Push && src.polled() {
			clock += float64(r.cfg.Period) / float64(r.cfg.PushSafety)
			continue
		}
		if guard < r.cfg.MaxWait {
			clock += float64(r.cfg.Period) / float64(guard)
		}
		rates := src.state().HourlyRates()
		for h := range 24 {
			all[h] += rates[h]
		}
	}
	end := start.Add(r.cfg.Period)
	total := expected(all, start, end)
	if total <= 0 {
		return even
	}
	fixed := min(clock/max(budget, 1), 1)
	return func(j int64) float64 {
		until := start.Add(time.Duration(j) * r.cfg.Cycle)
		if until.After(end) {
			until = end
		}
		shaped := (1-r.cfg.Shape)*even(j) + r.cfg.Shape*expected(all, start, until)/total
		return fixed*even(j) + (1-fixed)*shaped
	}
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// tailProb is P(N ≥ k) for N ~ Poisson(mean), k real (rounded up): the
// exact sum up to a mean of 200, the normal approximation (with
// continuity correction) above.
func tailProb(mean, k float64) float64 {
	n := int(math.Ceil(k))
	if n <= 0 {
		return 1
	}
	if mean <= 0 {
		return 0
	}
	if mean > 200 {
		z := (float64(n) - 0.5 - mean) / math.Sqrt(mean)
		return 1 - normalCDF(z)
	}
	pmf := math.Exp(-mean)
	cdf := pmf
	for j := 1; j < n; j++ {
		pmf *= mean / float64(j)
		cdf += pmf
	}
	return max(1-cdf, 0)
}
