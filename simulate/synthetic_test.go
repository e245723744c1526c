package simulate

import (
	"math"
	"slices"
	"testing"
	"time"
)

// postingsIn counts a feed's postings within the trace's span.
func postingsIn(tr *Trace, f Feed) []time.Time {
	var in []time.Time
	for _, p := range f.Postings {
		if !p.Before(tr.Start) && p.Before(tr.End) {
			in = append(in, p)
		}
	}
	return in
}

// The Poisson workload has the shape docs/SCHEDULING.md ("The synthetic
// workloads") gives it: most feeds post under 10 items a day, most show
// 10 to 15, a few are busy, and posting follows the time of day and the
// weekday.
func TestSyntheticPoisson(t *testing.T) {
	const n, days = 1000, 28
	tr, err := Synthetic(Poisson, n, 42, days)
	if err != nil {
		t.Fatal(err)
	}
	var slow, usual, busy int
	var byHour [24]int
	var weekday, weekend int
	for _, f := range tr.Feeds {
		in := postingsIn(tr, f)
		for _, p := range in {
			byHour[p.Hour()]++
			if wd := p.Weekday(); wd == time.Saturday || wd == time.Sunday {
				weekend++
			} else {
				weekday++
			}
		}
		perDay := float64(len(in)) / days
		switch {
		case perDay < 10:
			slow++
		case perDay > 40:
			busy++
		}
		if f.Capacity >= 10 && f.Capacity <= 15 {
			usual++
		}
	}
	if slow < n/2 || busy == 0 || busy > n/10 || usual < n/2 {
		t.Errorf("%d feeds under 10 a day, %d over 40, %d showing 10–15", slow, busy, usual)
	}
	lo, hi := slices.Min(byHour[:]), slices.Max(byHour[:])
	if hi < 2*lo {
		t.Errorf("hours range from %d to %d postings: no time of day", lo, hi)
	}
	if perWeekendDay, perWeekday := float64(weekend)/8, float64(weekday)/20; perWeekendDay > 0.9*perWeekday {
		t.Errorf("%.0f postings a weekend day, %.0f a weekday: no weekly rhythm", perWeekendDay, perWeekday)
	}
}

// neighboured is the share of postings with another posting of the same
// feed within 30 minutes, over feeds posting under 10 items a day: Poisson
// postings at that rate have one in at most 1 − e^(−10/24) = 34 % of
// cases; bursts put most postings next to others.
func neighboured(tr *Trace, days int) float64 {
	var near, all int
	for _, f := range tr.Feeds {
		in := postingsIn(tr, f)
		if float64(len(in))/float64(days) >= 10 {
			continue
		}
		for k, p := range in {
			all++
			if (k > 0 && p.Sub(in[k-1]) <= 30*time.Minute) || (k+1 < len(in) && in[k+1].Sub(p) <= 30*time.Minute) {
				near++
			}
		}
	}
	return float64(near) / float64(all)
}

// Bursts are present: most postings of bursty feeds have a neighbour
// within 30 minutes (tolerance: at least 60 %, against at most 34 % for
// Poisson feeds of the same rates), and a quarter of the feeds (±8 %)
// show the items of the last 24–48 hours instead of a number of items.
func TestSyntheticBursty(t *testing.T) {
	const n, days = 600, 28
	bursty, err := Synthetic(Bursty, n, 42, days)
	if err != nil {
		t.Fatal(err)
	}
	steady, _ := Synthetic(Poisson, n, 42, days)
	b, p := neighboured(bursty, days), neighboured(steady, days)
	if b < 0.6 || p > 0.34 {
		t.Errorf("postings with a neighbour within 30 min: bursty %.2f (want ≥ 0.60), Poisson %.2f (want ≤ 0.34)", b, p)
	}
	windowed := 0
	for _, f := range bursty.Feeds {
		if f.Window > 0 {
			windowed++
			if f.Capacity != 0 || f.Window < 24*time.Hour || f.Window > 48*time.Hour {
				t.Errorf("feed %s: capacity %d, window %v", f.ID, f.Capacity, f.Window)
			}
		}
	}
	if share := float64(windowed) / n; math.Abs(share-0.25) > 0.08 {
		t.Errorf("%.2f of the feeds have a time window, want 0.25 ± 0.08", share)
	}
}

// Drift is present: every drift feed changes rate once, by ×2 to ×10 up
// or down; over the feeds with enough postings to tell (50 before and
// after at the old rate), the rate measured after the change is within a
// factor 1.5 of the drawn factor for at least 90 % of them, and both
// directions occur.
func TestSyntheticDrift(t *testing.T) {
	const n, days, seed = 400, 28, 42
	tr, err := Synthetic(Drift, n, seed, days)
	if err != nil {
		t.Fatal(err)
	}
	var judged, right, up, down int
	for i, f := range tr.Feeds {
		m := newFeedModel(Drift, seed, i, tr.Start, tr.End)
		if m.factor < 1/10.0-1e-9 || m.factor > 10+1e-9 || (m.factor > 1/2.0+1e-9 && m.factor < 2-1e-9) {
			t.Fatalf("feed %d: factor %v outside ×2–×10", i, m.factor)
		}
		if m.changeAt.Before(tr.Start) || !m.changeAt.Before(tr.End) {
			t.Fatalf("feed %d: change at %v, outside the run", i, m.changeAt)
		}
		var before, after int
		for _, p := range postingsIn(tr, f) {
			if p.Before(m.changeAt) {
				before++
			} else {
				after++
			}
		}
		b, a := m.changeAt.Sub(tr.Start).Hours(), tr.End.Sub(m.changeAt).Hours()
		if float64(before) < 50 || m.rate*a/24 < 50 {
			continue
		}
		judged++
		measured := (float64(after) / a) / (float64(before) / b)
		if math.Abs(math.Log(measured/m.factor)) < math.Log(1.5) {
			right++
		}
		if m.factor > 1 {
			up++
		} else {
			down++
		}
	}
	if judged < 50 || float64(right) < 0.9*float64(judged) || up == 0 || down == 0 {
		t.Errorf("%d of %d feeds show their drift (%d up, %d down)", right, judged, up, down)
	}
}

// A weekday pattern is present, in each feed's own time zone: at least
// 85 % of weekly feeds' postings fall on their publishing days, which are
// at most 5 of the 7.
func TestSyntheticWeekly(t *testing.T) {
	const n, days, seed = 400, 28, 42
	tr, err := Synthetic(Weekly, n, seed, days)
	if err != nil {
		t.Fatal(err)
	}
	var on, all int
	for i, f := range tr.Feeds {
		m := newFeedModel(Weekly, seed, i, tr.Start, tr.End)
		days := 0
		for _, d := range m.onDays {
			if d {
				days++
			}
		}
		if days < 1 || days > 5 {
			t.Fatalf("feed %d publishes on %d days", i, days)
		}
		for _, p := range postingsIn(tr, f) {
			all++
			if m.onDays[p.In(f.Zone).Weekday()] {
				on++
			}
		}
	}
	if share := float64(on) / float64(all); all < 1000 || !(share >= 0.85) {
		t.Errorf("%.2f of %d weekly postings on their feeds' days, want ≥ 0.85", share, all)
	}
}

// The blog rates match Han et al.'s figures: 94 % of blogs post under 10
// items a day (tolerance ±2 %) and they post about one a day on average
// (tolerance 0.8–1.25).
func TestSyntheticBlog(t *testing.T) {
	const n, days = 2000, 28
	tr, err := Synthetic(Blog, n, 42, days)
	if err != nil {
		t.Fatal(err)
	}
	under, total := 0, 0
	for _, f := range tr.Feeds {
		in := len(postingsIn(tr, f))
		total += in
		if float64(in)/days < 10 {
			under++
		}
	}
	share, mean := float64(under)/n, float64(total)/n/days
	if math.Abs(share-0.94) > 0.02 || mean < 0.8 || mean > 1.25 {
		t.Errorf("%.3f of blogs under 10 a day (want 0.94 ± 0.02), %.2f a day on average (want 0.8–1.25)", share, mean)
	}
}

// mixed draws its feeds from the five shapes in equal shares (±5 %).
func TestSyntheticMixed(t *testing.T) {
	const n = 1000
	tr, err := Synthetic(Mixed, n, 42, 7)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, f := range tr.Feeds {
		count[f.Shape]++
	}
	for _, s := range shapes[:len(shapes)-1] {
		if share := float64(count[s]) / n; math.Abs(share-0.2) > 0.05 {
			t.Errorf("%s: %.2f of the feeds, want 0.20 ± 0.05", s, share)
		}
	}
	if len(count) != 5 {
		t.Errorf("shapes drawn: %v", count)
	}
}

// The same shape and seed give the same trace, and feed i does not depend
// on n.
func TestSyntheticDeterministic(t *testing.T) {
	for _, shape := range Shapes() {
		a, err := Synthetic(shape, 30, 7, 5)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Synthetic(shape, 30, 7, 5)
		c, _ := Synthetic(shape, 10, 7, 5)
		other, _ := Synthetic(shape, 30, 8, 5)
		for i := range a.Feeds {
			if !slices.EqualFunc(a.Feeds[i].Postings, b.Feeds[i].Postings, time.Time.Equal) {
				t.Fatalf("%s: feed %d differs between two runs", shape, i)
			}
		}
		for i := range c.Feeds {
			if !slices.EqualFunc(a.Feeds[i].Postings, c.Feeds[i].Postings, time.Time.Equal) || a.Feeds[i].Capacity != c.Feeds[i].Capacity {
				t.Fatalf("%s: feed %d depends on the number of feeds", shape, i)
			}
		}
		same := 0
		for i := range a.Feeds {
			if slices.EqualFunc(a.Feeds[i].Postings, other.Feeds[i].Postings, time.Time.Equal) {
				same++
			}
		}
		if same == len(a.Feeds) {
			t.Errorf("%s: another seed gave the same trace", shape)
		}
	}
}

func TestSyntheticRejects(t *testing.T) {
	for _, tt := range []struct {
		shape   string
		n, days int
	}{{Poisson, 0, 5}, {Poisson, maxSynthetic + 1, 5}, {Blog, 5, 0}, {Blog, 5, maxDaysSim + 1}, {"lumpy", 5, 5}} {
		if _, err := Synthetic(tt.shape, tt.n, 1, tt.days); err == nil {
			t.Errorf("Synthetic(%s, %d, 1, %d) accepted", tt.shape, tt.n, tt.days)
		}
	}
}
