package policy

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// feeds builds feeds from RATE, CAPACITY, WEIGHT triples.
func feeds(spec ...float64) []Feed {
	var out []Feed
	for i := 0; i+2 < len(spec); i += 3 {
		out = append(out, Feed{Rate: spec[i], Capacity: int(spec[i+1]), Weight: spec[i+2]})
	}
	return out
}

// Each case is worked out by hand in its comment.
func TestAllocate(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		budget int
		feeds  []Feed
		want   []int
		missed []float64
	}{
		{
			// 5 polls, 3 feeds: 1 each, the 2 left to the first two.
			name: "uniform remainder to the first", policy: Uniform, budget: 5,
			feeds: feeds(12, 5, 1, 3, 10, 1, 1, 1, 1), want: []int{2, 2, 1}, missed: []float64{2, 0, 0},
		},
		{
			// √12 = 3.464, √3 = 1.732; κ = 5/5.196 → 3.333 and 1.667;
			// floors 3 and 1, the last poll to the larger remainder.
			name: "min-delay square root", policy: MinDelay, budget: 5,
			feeds: feeds(12, 5, 1, 3, 10, 1), want: []int{3, 2}, missed: []float64{0, 0},
		},
		{
			// ω·λ = 4 for both: 1.5 each, the odd poll to the first.
			name: "min-delay weights", policy: MinDelay, budget: 3,
			feeds: feeds(1, 1, 4, 4, 1, 1), want: []int{2, 1}, missed: []float64{0, 3},
		},
		{
			// ω·λ = 0 everywhere: no square root to share, uniform.
			name: "min-delay all zero", policy: MinDelay, budget: 3,
			feeds: feeds(0, 5, 1, 0, 5, 1), want: []int{2, 1}, missed: []float64{0, 0},
		},
		{
			// A feed with no postings gets no min-delay polls.
			name: "min-delay zero rate", policy: MinDelay, budget: 4,
			feeds: feeds(0, 5, 1, 9, 5, 1), want: []int{0, 4}, missed: []float64{0, 0},
		},
		{
			// Gains 5|3 → A (7 left); 5|3 → A (2 left); 2|3 → B (0);
			// 2|0 → A (0); nothing left: reset, 5|3 → A.
			name: "min-missing spec example", policy: MinMissing, budget: 5,
			feeds: feeds(12, 5, 1, 3, 10, 1), want: []int{4, 1}, missed: []float64{0, 0},
		},
		{
			// 5|3 → A, 5|3 → A: A misses 12 − 2·5 = 2, B all 3.
			name: "min-missing short budget", policy: MinMissing, budget: 2,
			feeds: feeds(12, 5, 1, 3, 10, 1), want: []int{2, 0}, missed: []float64{2, 3},
		},
		{
			// Gains 2|2 → A (tie, listed first), 2|2 → A, 0|2 → B.
			name: "min-missing ties to the first", policy: MinMissing, budget: 3,
			feeds: feeds(4, 2, 1, 4, 2, 1), want: []int{2, 1}, missed: []float64{0, 2},
		},
		{
			// Rounds of one poll each: two full rounds, then the first.
			name: "min-missing rounds", policy: MinMissing, budget: 5,
			feeds: feeds(1, 10, 1, 1, 10, 1), want: []int{3, 2}, missed: []float64{0, 0},
		},
		{
			// Nothing to collect anywhere: every gain is 0, ties to the first.
			name: "min-missing nothing to collect", policy: MinMissing, budget: 3,
			feeds: feeds(0, 10, 1, 0, 10, 1), want: []int{3, 0}, missed: []float64{0, 0},
		},
		{
			name: "zero budget", policy: MinMissing, budget: 0,
			feeds: feeds(12, 5, 1, 3, 10, 1), want: []int{0, 0}, missed: []float64{12, 3},
		},
		{
			// A fractional rate: 2.5 postings with S = 1 need 3 polls.
			name: "min-missing fractional rate", policy: MinMissing, budget: 4,
			feeds: feeds(2.5, 1, 1, 1, 1, 1), want: []int{3, 1}, missed: []float64{0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Allocate(tt.policy, tt.budget, tt.feeds)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("polls = %v, want %v", got, tt.want)
			}
			for i, f := range tt.feeds {
				if m := Missed(f, got[i]); math.Abs(m-tt.missed[i]) > 1e-9 {
					t.Errorf("feed %d missed = %v, want %v", i+1, m, tt.missed[i])
				}
			}
		})
	}
}

func TestAllocateCaps(t *testing.T) {
	tests := []struct {
		policy string
		budget int
		feeds  []Feed
		want   []int
	}{
		// The capped feed keeps its cap, the rest goes to the other.
		{Uniform, 5, []Feed{{Rate: 1, Capacity: 1, Cap: 1}, {Rate: 1, Capacity: 1}}, []int{1, 4}},
		// √100 = 10 vs √1 = 1 would give 9.1 and 0.9 of 10; capped at 3,
		// the first leaves 7 to the second.
		{MinDelay, 10, []Feed{{Rate: 100, Capacity: 1, Weight: 1, Cap: 3}, {Rate: 1, Capacity: 1, Weight: 1}}, []int{3, 7}},
		// Every feed capped: the budget beyond the caps is not used.
		{Uniform, 10, []Feed{{Rate: 1, Capacity: 1, Cap: 2}, {Rate: 1, Capacity: 1, Cap: 3}}, []int{2, 3}},
		{MinMissing, 10, []Feed{{Rate: 50, Capacity: 5, Cap: 2}, {Rate: 1, Capacity: 5, Cap: 3}}, []int{2, 3}},
		// Capped busy feed: min-missing gives the rest to the next gain.
		{MinMissing, 4, []Feed{{Rate: 50, Capacity: 5, Cap: 1}, {Rate: 6, Capacity: 5}}, []int{1, 3}},
	}
	for _, tt := range tests {
		got, err := Allocate(tt.policy, tt.budget, tt.feeds)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %d %+v = %v, want %v", tt.policy, tt.budget, tt.feeds, got, tt.want)
		}
	}
}

func TestAllocateRejects(t *testing.T) {
	good := Feed{Rate: 1, Capacity: 1, Weight: 1}
	tests := []struct {
		name   string
		policy string
		budget int
		feeds  []Feed
		want   string
	}{
		{"unknown policy", "hourly", 1, []Feed{good}, "not an allocation policy"},
		{"negative budget", Uniform, -1, []Feed{good}, "budget -1"},
		{"huge budget", Uniform, maxBudget + 1, []Feed{good}, "budget"},
		{"no feeds", Uniform, 1, nil, "no feeds"},
		{"negative rate", Uniform, 1, []Feed{{Rate: -1, Capacity: 1}}, "rate -1"},
		{"NaN rate", Uniform, 1, []Feed{{Rate: math.NaN(), Capacity: 1}}, "rate NaN"},
		{"infinite rate", Uniform, 1, []Feed{{Rate: math.Inf(1), Capacity: 1}}, "rate +Inf"},
		{"zero capacity", Uniform, 1, []Feed{{Rate: 1}}, "capacity 0"},
		{"negative weight", MinDelay, 1, []Feed{{Rate: 1, Capacity: 1, Weight: -2}}, "weight -2"},
		{"negative cap", Uniform, 1, []Feed{{Rate: 1, Capacity: 1, Cap: -1}}, "cap -1"},
	}
	for _, tt := range tests {
		_, err := Allocate(tt.policy, tt.budget, tt.feeds)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// naiveMinMissing is min-missing's rule applied one poll at a time, as
// docs/SCHEDULING.md ("uniform, min-delay, min-missing") states it: the reference the bulk computation must match.
func naiveMinMissing(budget int, feeds []Feed) []int {
	polls := make([]int, len(feeds))
	remaining := make([]float64, len(feeds))
	for i, f := range feeds {
		remaining[i] = f.Rate
	}
	for range budget {
		best := -1
		gain := func(i int) float64 { return min(float64(feeds[i].Capacity), remaining[i]) }
		open := func(i int) bool { return feeds[i].Cap == 0 || polls[i] < feeds[i].Cap }
		for i := range feeds {
			if open(i) && (best < 0 || gain(i) > gain(best)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		if gain(best) == 0 {
			reset := false
			for i, f := range feeds {
				if open(i) && f.Rate > 0 {
					reset = true
				}
			}
			if reset {
				for i, f := range feeds {
					remaining[i] = f.Rate
				}
				best = -1
				for i := range feeds {
					if open(i) && (best < 0 || gain(i) > gain(best)) {
						best = i
					}
				}
			}
		}
		remaining[best] -= min(float64(feeds[best].Capacity), remaining[best])
		polls[best]++
	}
	return polls
}

func randomFeeds(rng *rand.Rand, n int, caps bool) []Feed {
	out := make([]Feed, n)
	for i := range out {
		out[i] = Feed{
			Rate:     float64(rng.IntN(40)) / float64(1+rng.IntN(3)),
			Capacity: 1 + rng.IntN(12),
			Weight:   float64(rng.IntN(4)),
		}
		if rng.IntN(5) == 0 {
			out[i].Rate = 0
		}
		if caps && rng.IntN(3) == 0 {
			out[i].Cap = 1 + rng.IntN(6)
		}
	}
	return out
}

// The bulk greedy gives exactly what the poll-by-poll rule gives.
func TestMinMissingMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		fs := randomFeeds(rng, 1+rng.IntN(8), trial%2 == 0)
		budget := rng.IntN(60)
		got, err := Allocate(MinMissing, budget, fs)
		if err != nil {
			t.Fatal(err)
		}
		if want := naiveMinMissing(budget, fs); !slices.Equal(got, want) {
			t.Fatalf("budget %d feeds %+v: got %v, naive %v", budget, fs, got, want)
		}
	}
}

// Property: allocations sum to the budget unless caps forbid it, respect
// caps, and give nothing negative.
func TestAllocateSumsToBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 3000 {
		caps := trial%3 == 0
		fs := randomFeeds(rng, 1+rng.IntN(20), caps)
		budget := rng.IntN(500)
		for _, p := range []string{Uniform, MinDelay, MinMissing} {
			polls, err := Allocate(p, budget, fs)
			if err != nil {
				t.Fatal(err)
			}
			assertAllocation(t, p, budget, fs, polls)
		}
	}
}

func assertAllocation(t *testing.T, p string, budget int, fs []Feed, polls []int) {
	t.Helper()
	// The feeds that may take polls: for min-delay those with a share
	// (every feed when none has one).
	takes := func(f Feed) bool { return true }
	if p == MinDelay && slices.ContainsFunc(fs, func(f Feed) bool { return f.Weight*f.Rate > 0 }) {
		takes = func(f Feed) bool { return f.Weight*f.Rate > 0 }
	}
	room, unlimited, sum := 0, false, 0
	for i, f := range fs {
		if polls[i] < 0 || (f.Cap > 0 && polls[i] > f.Cap) {
			t.Fatalf("%s: feed %d got %d polls (cap %d)", p, i, polls[i], f.Cap)
		}
		sum += polls[i]
		if !takes(f) {
			if polls[i] != 0 {
				t.Fatalf("%s: feed %d has no share but got %d polls", p, i, polls[i])
			}
			continue
		}
		if f.Cap == 0 {
			unlimited = true
		}
		room += f.Cap
	}
	want := budget
	if !unlimited {
		want = min(budget, room)
	}
	if sum != want {
		t.Fatalf("%s budget %d feeds %+v: polls %v sum to %d, want %d", p, budget, fs, polls, sum, want)
	}
}

// A huge budget and huge rates stay quick: the bulk rounds do not walk
// poll by poll.
func TestAllocateHuge(t *testing.T) {
	fs := []Feed{{Rate: maxRate, Capacity: 1, Weight: maxWeight}, {Rate: 1e-9, Capacity: maxCapacity, Weight: 1}, {Rate: 3, Capacity: 2, Weight: 1}}
	for _, p := range []string{Uniform, MinDelay, MinMissing} {
		polls, err := Allocate(p, maxBudget, fs)
		if err != nil {
			t.Fatal(err)
		}
		assertAllocation(t, p, maxBudget, fs, polls)
	}
}

// FuzzAllocate feeds arbitrary numbers to the allocator: it must answer
// with an error or a valid allocation, never panic or hang.
func FuzzAllocate(f *testing.F) {
	f.Add(5, []byte{12, 5, 1, 3, 10, 1})
	f.Add(0, []byte{0, 1, 0})
	f.Add(-3, []byte{255, 255, 255})
	f.Add(1_000_000_000, []byte{200, 1, 200, 0, 0, 0, 7, 7, 7})
	f.Fuzz(func(t *testing.T, budget int, raw []byte) {
		var fs []Feed
		for len(raw) >= 3 && len(fs) < 64 {
			f := Feed{
				Rate:     decodeFloat(raw[0]),
				Capacity: int(int8(raw[1])),
				Weight:   decodeFloat(raw[2]),
			}
			if len(raw) >= 4 {
				f.Cap = int(int8(raw[3])) / 16
			}
			fs = append(fs, f)
			raw = raw[3:]
		}
		if len(raw) >= 8 && len(fs) > 0 {
			fs[0].Rate = math.Float64frombits(binary.LittleEndian.Uint64(raw))
		}
		for _, p := range []string{Uniform, MinDelay, MinMissing} {
			polls, err := Allocate(p, budget, fs)
			if err != nil {
				continue
			}
			assertAllocation(t, p, budget, fs, polls)
		}
	})
}

// decodeFloat spreads a byte over zero, negatives, fractions and huge
// values.
func decodeFloat(b byte) float64 {
	switch {
	case b == 0:
		return 0
	case b < 100:
		return float64(b) / 7
	case b < 200:
		return -float64(b)
	}
	return math.Pow(10, float64(b-200))
}
