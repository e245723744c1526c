package policy

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
)

// Feed is one source as the allocation policies (uniform, min-delay,
// min-missing) see it.
type Feed struct {
	Rate     float64 // λ: postings per period
	Capacity int     // S: how many items the feed shows
	Weight   float64 // ω: min-delay's weight (others ignore it)
	Cap      int     // the most polls it may get; 0 means no limit
}

// Limits on allocation inputs, so that no input can make Allocate slow or
// its arithmetic inexact.
const (
	maxFeeds    = 10_000_000
	maxRate     = 1e12
	maxWeight   = 1e12
	maxCapacity = 1_000_000_000
)

// Allocate shares budget polls per period among feeds with the named
// allocation policy and returns each feed's polls, in order:
//
//   - uniform: an equal share, the remainder to the feeds listed first;
//   - min-delay: m = κ·√(ω·λ) with κ chosen so that they sum to the budget,
//     rounded to whole polls by largest remainders (ties to the feed listed
//     first); when every ω·λ is 0 it falls back to uniform;
//   - min-missing: greedily, each poll to the feed whose next poll would
//     collect the most, min(S, postings still to collect), ties to the feed
//     listed first; postings to collect start at λ, drop by what each poll
//     collects, and start again at λ everywhere when nothing is left.
//
// No feed gets more than its Cap; polls that no feed may take are left
// over, so the sum is the budget unless the caps forbid it.
func Allocate(policy string, budget int, feeds []Feed) ([]int, error) {
	a, err := AllocateExact(policy, budget, feeds)
	return a.Polls, err
}

// Allocation is an allocation in full: the whole polls each feed gets,
// the real numbers they were rounded from, and κ.
type Allocation struct {
	Polls []int
	// Exact are the real-valued polls before rounding: κ·√(ω·λ) for
	// min-delay (a feed held to its Cap keeps the Cap), κ for uniform.
	// min-missing's greedy gives whole polls only: Exact are its polls.
	Exact []float64
	// Kappa is κ: min-delay's factor (its value for the feeds below their
	// cap), uniform's equal share; 0 for min-missing, which has none.
	Kappa float64
}

// AllocateExact is Allocate with the real-valued allocation and κ beside
// the whole polls (Han et al. report κ and m_i; `dynamo policy allocate
// --json` prints them).
func AllocateExact(policy string, budget int, feeds []Feed) (Allocation, error) {
	if err := checkAllocation(budget, feeds); err != nil {
		return Allocation{}, err
	}
	equal := func(Feed) float64 { return 1 }
	switch policy {
	case Uniform:
		return proportional(budget, feeds, equal), nil
	case MinDelay:
		if slices.ContainsFunc(feeds, func(f Feed) bool { return f.Weight*f.Rate > 0 }) {
			return proportional(budget, feeds, func(f Feed) float64 { return math.Sqrt(f.Weight * f.Rate) }), nil
		}
		return proportional(budget, feeds, equal), nil
	case MinMissing:
		polls := minMissing(budget, feeds)
		exact := make([]float64, len(polls))
		for i, p := range polls {
			exact[i] = float64(p)
		}
		return Allocation{Polls: polls, Exact: exact}, nil
	}
	return Allocation{}, fmt.Errorf("allocate: %q is not an allocation policy (want %s, %s or %s)", policy, Uniform, MinDelay, MinMissing)
}

// Missed is how many of a feed's λ postings per period its polls miss when
// they are spread evenly over the period: each poll collects what was
// posted since the previous one, at most S, so the polls collect
// min(λ, polls·S) and miss the rest. This is also what min-missing's
// greedy leaves to collect after the feed's polls.
func Missed(f Feed, polls int) float64 {
	return max(0, f.Rate-float64(max(polls, 0))*float64(f.Capacity))
}

func checkAllocation(budget int, feeds []Feed) error {
	switch {
	case budget < 0 || budget > maxBudget:
		return fmt.Errorf("allocate: budget %d is outside 0..%d", budget, maxBudget)
	case len(feeds) == 0:
		return fmt.Errorf("allocate: no feeds")
	case len(feeds) > maxFeeds:
		return fmt.Errorf("allocate: %d feeds is more than %d", len(feeds), maxFeeds)
	}
	for i, f := range feeds {
		switch {
		case !inRange(f.Rate, 0, maxRate):
			return fmt.Errorf("allocate: feed %d: rate %v is outside [0, %g]", i+1, f.Rate, maxRate)
		case f.Capacity < 1 || f.Capacity > maxCapacity:
			return fmt.Errorf("allocate: feed %d: capacity %d is outside 1..%d", i+1, f.Capacity, maxCapacity)
		case !inRange(f.Weight, 0, maxWeight):
			return fmt.Errorf("allocate: feed %d: weight %v is outside [0, %g]", i+1, f.Weight, maxWeight)
		case f.Cap < 0:
			return fmt.Errorf("allocate: feed %d: cap %d is negative", i+1, f.Cap)
		}
	}
	return nil
}

// capLeft is how many more polls a feed with the given polls may take.
func capLeft(f Feed, polls int) int {
	if f.Cap == 0 {
		return math.MaxInt
	}
	return f.Cap - polls
}

// proportional shares budget in proportion to share(f), capped per feed,
// in whole polls by largest remainders (ties to the feed listed first).
// Feeds with a zero share get nothing.
func proportional(budget int, feeds []Feed, share func(Feed) float64) Allocation {
	shares := make([]float64, len(feeds))
	for i, f := range feeds {
		shares[i] = share(f)
	}
	exact, total, kappa := waterFill(budget, feeds, shares)
	return Allocation{Polls: largestRemainders(exact, total, feeds, shares), Exact: exact, Kappa: kappa}
}

// largestRemainders rounds exact shares to whole polls that sum to total:
// each feed gets the floor of its share, and the polls left go one each to
// the largest fractional parts, ties to the feed listed first. With
// extreme shares the floating-point floors can add up to a poll or two
// more or less than total; the difference is taken back from the smallest
// fractional parts or given out again in the same order, so the sum is
// total whatever the inputs (as long as the caps leave room for it).
func largestRemainders(exact []float64, total int, feeds []Feed, shares []float64) []int {
	polls := make([]int, len(feeds))
	given := 0
	order := make([]int, 0, len(feeds))
	for i, x := range exact {
		if shares[i] <= 0 {
			continue
		}
		polls[i] = max(min(int(math.Floor(x)), capLeft(feeds[i], 0), total), 0)
		given += polls[i]
		order = append(order, i)
	}
	frac := func(i int) float64 { return exact[i] - math.Floor(exact[i]) }
	slices.SortFunc(order, func(a, b int) int {
		if c := cmpFloat(frac(b), frac(a)); c != 0 {
			return c
		}
		return a - b
	})
	for k := len(order) - 1; given > total; k-- {
		if k < 0 {
			k = len(order) - 1
		}
		if i := order[k]; polls[i] > 0 {
			polls[i]--
			given--
		}
	}
	for given < total {
		progress := false
		for _, i := range order {
			if given == total {
				break
			}
			if capLeft(feeds[i], polls[i]) > 0 {
				polls[i]++
				given++
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	return polls
}

// waterFill gives each feed κ·share, κ chosen so that they sum to the
// budget, except that feeds reaching their cap keep the cap and the rest is
// shared among the others. It returns the exact shares, the whole number
// of polls they add up to, and κ (0 if every feed is capped).
func waterFill(budget int, feeds []Feed, shares []float64) ([]float64, int, float64) {
	exact := make([]float64, len(feeds))
	var order []int
	capacity := 0
	unlimited := false
	for i, s := range shares {
		if s <= 0 {
			continue
		}
		order = append(order, i)
		if feeds[i].Cap == 0 {
			unlimited = true
		} else {
			capacity += min(feeds[i].Cap, maxBudget)
		}
	}
	total := budget
	if !unlimited {
		total = min(budget, capacity)
	}
	if len(order) == 0 {
		return exact, 0, 0
	}
	// Feeds whose cap binds first are those with the smallest cap/share.
	ratio := func(i int) float64 {
		if feeds[i].Cap == 0 {
			return math.Inf(1)
		}
		return float64(feeds[i].Cap) / shares[i]
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmpFloat(ratio(a), ratio(b)); c != 0 {
			return c
		}
		return a - b
	})
	// The shares still to serve after k capped feeds, summed from the
	// smallest ratios' end: subtracting a huge share from a running total
	// would leave the small ones to rounding noise.
	rest := make([]float64, len(order)+1)
	for k := len(order) - 1; k >= 0; k-- {
		rest[k] = rest[k+1] + shares[order[k]]
	}
	left := float64(total)
	for k, i := range order {
		kappa := left / rest[k]
		if ratio(i) > kappa {
			for _, j := range order[k:] {
				exact[j] = kappa * shares[j]
			}
			return exact, total, kappa
		}
		exact[i] = float64(feeds[i].Cap)
		left -= exact[i]
	}
	return exact, total, 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// minMissing is min-missing's greedy allocation, computed in bulk: a whole
// round (from "every count starts at λ" until nothing is left) gives each
// feed ceil(λ/S) polls whatever the order, so full rounds are given at
// once, and within the last, partial round a feed keeps the lead for as
// many polls as it collects a full S.
func minMissing(budget int, feeds []Feed) []int {
	polls := make([]int, len(feeds))
	var active []int // feeds with postings to collect and room under their cap
	for i, f := range feeds {
		if f.Rate > 0 && capLeft(f, 0) > 0 {
			active = append(active, i)
		}
	}
	left := budget
	for left > 0 && len(active) > 0 {
		round := make([]int, len(active))
		total := 0
		for k, i := range active {
			f := feeds[i]
			need := math.Ceil(f.Rate / float64(f.Capacity))
			round[k] = int(min(need, float64(min(capLeft(f, polls[i]), left+1))))
			total += round[k]
			if total > left {
				break
			}
		}
		if total > left {
			partialRound(left, feeds, active, polls)
			left = 0
			break
		}
		repeat := left / total
		for k, i := range active {
			if room := capLeft(feeds[i], polls[i]); room != math.MaxInt {
				repeat = min(repeat, room/round[k])
			}
		}
		for k, i := range active {
			polls[i] += repeat * round[k]
		}
		left -= repeat * total
		active = slices.DeleteFunc(active, func(i int) bool { return capLeft(feeds[i], polls[i]) == 0 })
	}
	// Polls left when no feed has anything to collect: every gain is 0,
	// so they go to the feeds listed first.
	for i := 0; left > 0 && i < len(feeds); i++ {
		give := min(left, capLeft(feeds[i], polls[i]))
		polls[i] += give
		left -= give
	}
	return polls
}

// partialRound gives out left polls, fewer than a full round needs, by
// the greedy rule from fresh counts.
func partialRound(left int, feeds []Feed, active []int, polls []int) {
	h := &gainHeap{feeds: feeds}
	for _, i := range active {
		h.items = append(h.items, gainItem{index: i, remaining: feeds[i].Rate})
	}
	heap.Init(h)
	for left > 0 && h.Len() > 0 {
		top := heap.Pop(h).(gainItem)
		f := feeds[top.index]
		capacity := float64(f.Capacity)
		steps := 1
		if top.remaining >= capacity {
			// While it collects a full S its gain cannot drop, and it
			// already beats every other feed.
			full := math.Floor(top.remaining / capacity)
			steps = int(min(full, float64(left), float64(capLeft(f, polls[top.index]))))
		}
		polls[top.index] += steps
		left -= steps
		top.remaining = max(0, top.remaining-min(capacity*float64(steps), top.remaining))
		if top.remaining > 0 && capLeft(f, polls[top.index]) > 0 {
			heap.Push(h, top)
		}
	}
}

type gainItem struct {
	index     int
	remaining float64
}

// gainHeap orders feeds by what their next poll collects, most first, ties
// to the feed listed first.
type gainHeap struct {
	feeds []Feed
	items []gainItem
}

func (h *gainHeap) gain(k int) float64 {
	return min(float64(h.feeds[h.items[k].index].Capacity), h.items[k].remaining)
}
func (h *gainHeap) Len() int { return len(h.items) }
func (h *gainHeap) Less(a, b int) bool {
	if ga, gb := h.gain(a), h.gain(b); ga != gb {
		return ga > gb
	}
	return h.items[a].index < h.items[b].index
}
func (h *gainHeap) Swap(a, b int) { h.items[a], h.items[b] = h.items[b], h.items[a] }
func (h *gainHeap) Push(x any)    { h.items = append(h.items, x.(gainItem)) }
func (h *gainHeap) Pop() any {
	last := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return last
}
