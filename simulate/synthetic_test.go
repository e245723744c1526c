package simulate

import (
	"slices"
	"testing"
	"time"
)

// The synthetic workload has the shape the specification asks for: most
// feeds post under 10 items a day, most show 10 to 15, a few are busy,
// and posting follows the time of day and the weekday.
func TestSyntheticShape(t *testing.T) {
	const n, days = 1000, 28
	tr, err := Synthetic(n, 42, days)
	if err != nil {
		t.Fatal(err)
	}
	var slow, usual, busy int
	var byHour [24]int
	var weekday, weekend int
	for _, f := range tr.Feeds {
		var in int
		for _, p := range f.Postings {
			if p.Before(tr.Start) || !p.Before(tr.End) {
				continue
			}
			in++
			byHour[p.Hour()]++
			if wd := p.Weekday(); wd == time.Saturday || wd == time.Sunday {
				weekend++
			} else {
				weekday++
			}
		}
		perDay := float64(in) / days
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

// The same seed gives the same trace, and feed i does not depend on n.
func TestSyntheticDeterministic(t *testing.T) {
	a, err := Synthetic(30, 7, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synthetic(30, 7, 5)
	c, _ := Synthetic(10, 7, 5)
	other, _ := Synthetic(30, 8, 5)
	for i := range a.Feeds {
		if !slices.EqualFunc(a.Feeds[i].Postings, b.Feeds[i].Postings, time.Time.Equal) {
			t.Fatalf("feed %d differs between two runs", i)
		}
	}
	for i := range c.Feeds {
		if !slices.EqualFunc(a.Feeds[i].Postings, c.Feeds[i].Postings, time.Time.Equal) || a.Feeds[i].Capacity != c.Feeds[i].Capacity {
			t.Fatalf("feed %d depends on the number of feeds", i)
		}
	}
	same := 0
	for i := range a.Feeds {
		if slices.EqualFunc(a.Feeds[i].Postings, other.Feeds[i].Postings, time.Time.Equal) {
			same++
		}
	}
	if same == len(a.Feeds) {
		t.Error("another seed gave the same trace")
	}
}

func TestSyntheticRejects(t *testing.T) {
	for _, tt := range []struct{ n, days int }{{0, 5}, {maxSynthetic + 1, 5}, {5, 0}, {5, maxDaysSim + 1}} {
		if _, err := Synthetic(tt.n, 1, tt.days); err == nil {
			t.Errorf("Synthetic(%d, 1, %d) accepted", tt.n, tt.days)
		}
	}
}
