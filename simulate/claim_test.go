package simulate

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// The claim for Dynamo's default policy, at-risk (docs/SCHEDULING.md):
// at equal polls it misses no more postings than min-missing, delays no
// more (mean delay over all postings) than min-delay, and starves no feed
// — except where the budget makes that impossible or costly, in the
// trade-offs below, which the test holds to their documented bounds.
//
// It is checked on seeds not used for tuning. Seen seeds, which count as
// tuning data: 1 and 2 (at-risk's defaults were chosen there, 200 feeds,
// 28 days, every shape, budgets 1–16 a feed a day); 1001 (the noise
// tolerance below was added after its run); 5171 and 8923 (the rate of a
// document showing only its newest item, policy.State's NewestItems, was
// changed after they failed there); 6247 and 3391 (the guard's floor of
// polls was spread evenly over the day, ranking.budgetShare, after seed
// 3391's mixed shape at two polls a feed a day failed there). This test
// runs claimSeeds, chosen after that change, never run before, with every
// criterion below fixed before their first run (heldOutFailures records
// what that run found), and writes the table it checked to
// docs/benchmarks/scheduling-claim.md.
const (
	claimFeeds = 200
	claimDays  = 28
)

var claimSeeds = []uint64{4817, 9241}

var claimBudgets = []int{1, 2, 4, 8, 16} // polls a feed a day

// allowance is how far at-risk may be from the claim in one cell: its
// misses over min-missing's, its mean delay over all postings over
// min-delay's, and whether feeds may starve. The claim itself is {1, 1,
// false}.
type allowance struct {
	missed, delay float64
	starve        bool
	why           string
}

var claim = allowance{1, 1, false, "the claim"}

// withinNoise reports whether at-risk's misses exceed min-missing's by
// no more than chance would: two standard deviations of the difference of
// two Poisson counts, 2·√(a + b). It was added after seed 1001's run,
// whose only miss of the claim was poisson at 16 polls a feed a day, 18
// postings missed against min-missing's 12 of 45,183 (difference 6,
// noise 11), and fixed before claimSeeds ran; the table says so for every
// cell it decides.
func withinNoise(a, b int) bool {
	return float64(a-b) <= 2*math.Sqrt(float64(a+b))
}

// allowed is the documented trade-off for a shape and a budget, the bounds
// set from the tuning seeds with a margin, before any held-out seed ran.
func allowed(shape string, budget int) allowance {
	busy := shape == Poisson || shape == Bursty || shape == Drift || shape == Mixed
	switch {
	case budget == 1:
		return allowance{1.25, 1.10, true, "one poll a feed a day: no policy can poll every feed daily and still serve the busy ones"}
	case budget == 2 && busy:
		return allowance{1.40, 1.12, false, "the daily guard takes up to half the budget"}
	case shape == Bursty:
		return allowance{1.20, 1.10, false, "bursts overflow windows between any polls"}
	}
	return claim
}

// claimKey names one cell of the check.
type claimKey struct {
	seed   uint64
	shape  string
	budget int
}

// heldOutFailures are the cells where at-risk broke the claim, or its
// trade-off's bounds, on the first run of claimSeeds. They are failures,
// not trade-offs: the claim does not hold there, and docs/SCHEDULING.md
// says so. The test holds each to the ratios that run measured (where one
// is within the trade-off's bound, to that bound), so that they cannot
// get worse unseen.
var heldOutFailures = map[claimKey]allowance{}

const heldOutFailure = "a held-out failure: the claim does not hold here"

// claimCell is one seed, shape and budget of the check.
type claimCell struct {
	seed                 uint64
	shape                string
	budget               int
	atRisk, delay, miss  Result // at-risk, min-delay, min-missing
	missRatio, delayRate float64
	allow                allowance
	ok                   bool // within the allowance
	noise                bool // only thanks to missNoise
}

func TestDefaultPolicyClaim(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of simulation")
	}
	var cells []claimCell
	for _, seed := range claimSeeds {
		cells = append(cells, claimCells(t, seed)...)
	}
	if err := writeClaimTable(cells); err != nil {
		t.Error(err)
	}
}

// claimCells runs every shape and budget on one seed and checks each cell.
func claimCells(t *testing.T, seed uint64) []claimCell {
	var cells []claimCell
	for _, shape := range Shapes() {
		tr, err := Synthetic(shape, claimFeeds, seed, claimDays)
		if err != nil {
			t.Fatal(err)
		}
		budgets := make([]int, len(claimBudgets))
		for i, b := range claimBudgets {
			budgets[i] = b * claimFeeds
		}
		names := []string{policy.AtRisk, policy.MinDelay, policy.MinMissing}
		res, err := Run(context.Background(), tr, Options{Policies: names, Budgets: budgets})
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range claimBudgets {
			c := claimCell{seed: seed, shape: shape, budget: b, atRisk: res[3*i], delay: res[3*i+1], miss: res[3*i+2], allow: allowed(shape, b)}
			if a, ok := heldOutFailures[claimKey{seed, shape, b}]; ok {
				c.allow = a
			}
			c.missRatio = ratio(c.atRisk.Missed, c.miss.Missed)
			c.delayRate = c.atRisk.AllMeanDelay / c.delay.AllMeanDelay
			// Equal polls: at-risk keeps its budget (within 0.5 %).
			polls := c.atRisk.Polls <= b*claimFeeds*(claimDays-7)*1005/1000
			rest := polls && c.delayRate <= c.allow.delay && (c.allow.starve || c.atRisk.Starved == 0)
			c.ok = rest && c.missRatio <= c.allow.missed
			if !c.ok && rest && c.allow == claim && withinNoise(c.atRisk.Missed, c.miss.Missed) {
				c.ok, c.noise = true, true
			}
			if !c.ok {
				t.Errorf("seed %d, %s at %d a feed a day: at-risk %d polls, %d missed (%.3f× min-missing's %d), delay %.3f h (%.3f× min-delay's %.3f h), %d starved; allowed %.2f×, %.2f×, starving %v (%s)",
					seed, shape, b, c.atRisk.Polls, c.atRisk.Missed, c.missRatio, c.miss.Missed, c.atRisk.AllMeanDelay/3600, c.delayRate, c.delay.AllMeanDelay/3600, c.atRisk.Starved,
					c.allow.missed, c.allow.delay, c.allow.starve, c.allow.why)
			}
			cells = append(cells, c)
		}
	}
	return cells
}

// ratio is a/b, 0 for 0/0 and a large number for a/0.
func ratio(a, b int) float64 {
	switch {
	case a == 0:
		return 0
	case b == 0:
		return 1e9
	}
	return float64(a) / float64(b)
}

// strict reports whether the cell meets the claim itself, without the
// noise tolerance or a trade-off: misses no more than min-missing's, delay
// no more than min-delay's, no feed starved.
func (c claimCell) strict() bool {
	return c.atRisk.Missed <= c.miss.Missed && c.delayRate <= 1 && c.atRisk.Starved == 0
}

// writeClaimTable writes the cells to docs/benchmarks/scheduling-claim.md,
// if that changes it.
func writeClaimTable(cells []claimCell) error {
	var b bytes.Buffer
	seeds := make([]string, len(claimSeeds))
	for i, s := range claimSeeds {
		seeds[i] = fmt.Sprint(s)
	}
	fmt.Fprintf(&b, `# The default policy's claim, on held-out seeds

Generated by `+"`go test ./simulate -run TestDefaultPolicyClaim`"+` (part of the normal
test run), which checks every row; do not edit by hand. docs/SCHEDULING.md
explains the claim, the measures and the trade-offs.

Seeds %s, held out: at-risk was tuned on seeds 1 and 2; the previous
held-out seeds, 1001, 5171 and 8923, 6247 and 3391, count as seen (the
noise tolerance below was added after 1001's run, the rate of a document
showing only its newest item was changed after 5171's and 8923's, the
guard's floor of polls was spread evenly over the day after 3391's).
%d feeds, %d days of which the last %d are measured. Budgets are polls a feed a day; "polls" are those made in the
measured days by at-risk, min-delay and min-missing (the budget is budget
× feeds × %d; at-risk must keep within 0.5 %% of it, the allocations
overshoot it by a few percent at low budgets, which only favours them);
"delay" is the mean delay over **all** postings (a missed posting counts
until the poll that found it gone), in hours; "starved" counts feeds with
a posting that waited more than a day for a poll. Ratios are at-risk's
over min-missing's misses and over min-delay's delay. "claim" says whether
the cell meets the claim itself (misses ≤ min-missing's, delay ≤
min-delay's, none starved), "allowed" what the test holds the cell to (the
claim, the documented trade-off's bounds, or, where the claim failed on
these seeds' first run, that run's ratios, so that a failure cannot grow
unseen), and "holds" whether the claim or trade-off holds (for a failed
cell: no, and whether it is still within its first run's ratios).

| seed | shape | budget | polls: at-risk | min-delay | min-missing | missed: at-risk | min-missing | min-delay | ratio | delay: at-risk | min-delay | min-missing | ratio | starved: at-risk | min-delay | min-missing | claim | allowed | holds |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
`, strings.Join(seeds, " and "), claimFeeds, claimDays, claimDays-7, claimDays-7)
	var held, strict, claimed, failed int
	for _, c := range cells {
		allow := "claim"
		switch {
		case c.allow.why == heldOutFailure:
			failed++
			allow = fmt.Sprintf("**failed**: held to its first run, ≤ %.3f×, ≤ %.3f×", c.allow.missed, c.allow.delay)
		case c.allow != claim:
			starve := "none starved"
			if c.allow.starve {
				starve = "starving allowed"
			}
			allow = fmt.Sprintf("≤ %.2f×, ≤ %.2f×, %s", c.allow.missed, c.allow.delay, starve)
		default:
			claimed++
		}
		itself := "no"
		if c.strict() {
			itself = "yes"
			strict++
		}
		verdict := "no"
		switch {
		case c.allow.why == heldOutFailure && c.ok:
			verdict = "**no**, no worse than its first run"
		case c.allow.why == heldOutFailure:
			verdict = "**no**, and worse than its first run"
		case c.noise:
			verdict = "yes, within noise: misses exceed min-missing's by at most 2·√(sum)"
		case c.ok:
			verdict = "yes"
		}
		if c.ok && !c.noise && c.allow == claim {
			held++
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %d | %d | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %d | %d | %s | %s | %s |\n",
			c.seed, c.shape, c.budget, c.atRisk.Polls, c.delay.Polls, c.miss.Polls,
			c.atRisk.Missed, c.miss.Missed, c.delay.Missed, c.missRatio,
			c.atRisk.AllMeanDelay/3600, c.delay.AllMeanDelay/3600, c.miss.AllMeanDelay/3600, c.delayRate,
			c.atRisk.Starved, c.delay.Starved, c.miss.Starved, itself, allow, verdict)
	}
	fmt.Fprintf(&b, "\n**%d of the %d cells failed** on these seeds' first run: the claim, or the trade-off's bounds, does not hold there (marked **failed**). Of the other %d, the claim is made in %d and met outright in %d; %d are documented trade-offs within their bounds. Over all %d cells, %d meet the claim itself.\n",
		failed, len(cells), len(cells)-failed, claimed, held, len(cells)-failed-claimed, len(cells), strict)
	fmt.Fprintf(&b, "A claimed cell whose only fault is missing more than min-missing by no more than two standard deviations of Poisson noise, 2·√(sum of both counts), passes the test as noise and says so above; that tolerance was added after seed 1001's run and fixed before these seeds first ran.\n")
	path := filepath.Join("..", "docs", "benchmarks", "scheduling-claim.md")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return nil
	}
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return fmt.Errorf("claim table: %w", err)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
