package policy

import (
	"math"
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
	feeds := make([]Feed, len(sources))
	for i := range sources {
		feeds[i] = a.feed(&sources[i], window)
	}
	polls, err := Allocate(a.name, budget, feeds)
	if err != nil {
		// Unreachable with feeds built by a.feed; should it happen, no
		// source is lost: each waits for the next plan.
		for i, src := range sources {
			plan.Next[i] = budgetNext(a.cfg, src, now)
		}
		return plan
	}
	for i := range sources {
		plan.Next[i] = a.next(&sources[i], polls[i], window, now)
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
// politeness gap. Sources that waited MaxWait come first, oldest first;
// the rest go by rank, highest first, ties to the source listed first.
// Sources never polled are due at once, outside the budget.
//
// hourly ranks by expected_new_items × (1 + C × subscribers), the expected
// new items being the hourly rates integrated since the last poll, and
// spreads the budget evenly over the period.
//
// at-risk ranks by how due a source is, for delay and for capacity at
// once, both measured so that 1 means "due":
//
//	rank = (W/θ + RiskWeight × (E/S + L(E, S))) × (1 + C × subscribers)
//
// W is the expected waiting so far of the source's pending postings (the
// hourly rates integrated as ∫ r(s)·(now − s) ds, in item-hours), and θ
// the waiting the square-root law allows between polls (see sqrtLawWait):
// ranking by W/θ spends the budget as min-delay would, but at the hours
// each source actually posts. E is the postings expected by the next
// cycle, when the source would get its next chance, S its capacity and
// L(E, S) = E[(N−S)+], N ~ Poisson(E), the postings expected to have
// scrolled out by then: a source filling its window rises in the ranking
// before it overflows, and the more so the closer its busy hours. Its
// budget follows the time of day: a share Shape of it goes to each cycle
// in proportion to the postings all its sources are expected to make in
// that cycle, the rest evenly.
type ranking struct {
	name string
	cfg  Config
}

func (r ranking) Name() string   { return r.name }
func (r ranking) Budgeted() bool { return true }

func (r ranking) Next(src Source, now time.Time) time.Time {
	return budgetNext(r.cfg, src, now)
}

// candidate is a source eligible for a poll this cycle.
type candidate struct {
	index    int
	starving bool
	last     time.Time
	rank     float64
}

func (r ranking) Plan(sources []Source, now time.Time) Plan {
	replan := now.Add(r.cfg.Cycle)
	plan := Plan{Next: make([]time.Time, len(sources)), Replan: replan}
	if len(sources) == 0 {
		return plan
	}
	budget := r.cfg.budgetFor(len(sources))
	var theta float64
	if r.name == AtRisk {
		theta = sqrtLawWait(sources, budget, r.cfg.Period)
	}
	var candidates []candidate
	for i := range sources {
		src := &sources[i]
		plan.Next[i] = settle(replan, now, src)
		if !src.polled() {
			plan.Next[i] = settle(now, now, src)
			continue
		}
		last := src.state().LastRetrieval
		if src.floor().After(now) || now.Sub(last) < r.cfg.Gap {
			continue
		}
		c := candidate{index: i, last: last, starving: now.Sub(last) >= r.cfg.MaxWait}
		if !c.starving {
			c.rank = r.rank(src, now, theta)
		}
		candidates = append(candidates, c)
	}
	k := r.pollsThisCycle(sources, budget, now)
	for _, c := range topK(candidates, k) {
		plan.Next[c.index] = now
	}
	return plan
}

// rank is how much src deserves a poll now under the policy.
func (r ranking) rank(src *Source, now time.Time, theta float64) float64 {
	s := src.state()
	rates := s.HourlyRates()
	pending := expected(rates, s.LastRetrieval, now)
	if r.name == Hourly {
		return pending * src.boost(r.cfg)
	}
	// If not polled now, the source's next chance is a cycle away.
	soon := pending + expected(rates, now, now.Add(r.cfg.Cycle))
	capacity := float64(s.CapacityOrDefault())
	delayDue := waited(rates, s.LastRetrieval, now) / theta
	fullDue := soon/capacity + overflow(soon, capacity)
	return (delayDue + r.cfg.RiskWeight*fullDue) * src.boost(r.cfg)
}

// sqrtLawWait is θ, the waiting (in item-hours) that the square-root law
// lets the postings of a source build up between two of its polls: with
// intervals I = √(2θ/r) (min-delay's optimum for Poisson postings at r an
// hour), the budget B per period P is spent when Σ P/I = B, so
// θ = (P/B)² · (Σ √(r/2))².
func sqrtLawWait(sources []Source, budget int, period time.Duration) float64 {
	var sum float64
	for i := range sources {
		sum += math.Sqrt(sources[i].state().Rate() / 24 / 2)
	}
	perPoll := period.Hours() / float64(max(budget, 1))
	return max(perPoll*perPoll*sum*sum, 1e-9)
}

// waited is the expected waiting so far, in item-hours, of the postings
// made in (from, now]: ∫ r(s)·(now − s) ds.
func waited(rates [24]float64, from, now time.Time) float64 {
	var total float64
	forEachHour(from.UTC(), now.UTC(), func(start time.Time, hours float64) {
		mid := start.Add(time.Duration(hours * float64(time.Hour) / 2))
		total += rates[start.Hour()] * hours * now.Sub(mid).Hours()
	})
	return total
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
func (r ranking) pollsThisCycle(sources []Source, budget int, now time.Time) int {
	period, cycle := r.cfg.Period, r.cfg.Cycle
	start := now.Add(-time.Duration(now.UnixNano() % int64(period)))
	if now.UnixNano() < 0 {
		start = start.Add(-period)
	}
	j := int64(now.Sub(start) / cycle)
	cycles := int64((period + cycle - 1) / cycle)
	share := r.budgetShare(sources, start, cycles)
	due := func(j int64) int64 {
		return int64(math.Floor(float64(budget) * share(j)))
	}
	return int(max(due(j+1)-due(j), 0))
}

// budgetShare returns W: the share of the period's budget due before each
// cycle. hourly spreads it evenly; at-risk gives a share Shape of it in
// proportion to the postings expected in each cycle, from all sources.
func (r ranking) budgetShare(sources []Source, start time.Time, cycles int64) func(int64) float64 {
	even := func(j int64) float64 { return min(float64(j)/float64(cycles), 1) }
	if r.name == Hourly || r.cfg.Shape == 0 {
		return even
	}
	var all [24]float64
	for i := range sources {
		rates := sources[i].state().HourlyRates()
		for h := range 24 {
			all[h] += rates[h]
		}
	}
	end := start.Add(r.cfg.Period)
	total := expected(all, start, end)
	if total <= 0 {
		return even
	}
	return func(j int64) float64 {
		until := start.Add(time.Duration(j) * r.cfg.Cycle)
		if until.After(end) {
			until = end
		}
		return (1-r.cfg.Shape)*even(j) + r.cfg.Shape*expected(all, start, until)/total
	}
}

// overflow is E[(N−S)+] for N ~ Poisson(mean): the postings expected to
// have scrolled out of a source showing S items, mean postings after its
// last poll.
func overflow(mean, capacity float64) float64 {
	if mean <= 0 {
		return 0
	}
	sd := math.Sqrt(mean)
	switch {
	case capacity > mean+12*sd+12:
		return 0 // the tail beyond S is negligible
	case mean > 200:
		// The normal approximation, with continuity correction, where
		// summing the Poisson terms would be long and e^−mean underflows.
		z := (capacity + 0.5 - mean) / sd
		return sd*normalPDF(z) + (mean-capacity)*(1-normalCDF(z))
	}
	// E[(N−S)+] = mean − Σ_{j=1..S} P(N ≥ j).
	pmf := math.Exp(-mean)
	cdf := pmf
	collected := 0.0
	for j := 1; j <= int(capacity); j++ {
		collected += 1 - cdf
		pmf *= mean / float64(j)
		cdf += pmf
	}
	return max(mean-collected, 0)
}

func normalPDF(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
