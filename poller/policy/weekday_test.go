package policy

import (
	"math"
	"testing"
	"time"
)

func history(s string) []bool {
	out := make([]bool, len(s))
	for i, c := range s {
		out[i] = c == '1'
	}
	return out
}

func TestForecast(t *testing.T) {
	tests := []struct {
		name    string
		start   time.Time
		history string
		days    int
		want    []float64
		next    string // "" for none
	}{
		{
			// Four weeks from Tuesday 3 Feb, updates on the four
			// Wednesdays. Tuesday 3 Mar: β = 0/4, Ū = 4/28:
			// P = 0.1·4/28 = 0.0142857. Wednesday 4 Mar: one more observed
			// day, β = 4/4, Ū = 4/29: P = 0.9 + 0.1·4/29.
			name: "weekly on Wednesdays", start: time.Date(2026, 2, 3, 0, 0, 0, 0, time.UTC),
			history: "0100000010000001000000100000", days: 2,
			want: []float64{0.1 * 4 / 28, 0.9 + 0.1*4/29}, next: "2026-03-04",
		},
		{
			// Two weeks from Monday 2 Mar, updates all the first week. The
			// next day is a Monday: β = 1/2, Ū = 7/14, P = 0.45 + 0.05 =
			// 0.5 exactly, which reaches the threshold.
			name: "exactly one half", start: t0, history: "11111110000000", days: 1,
			want: []float64{0.5}, next: "2026-03-16",
		},
		{
			// The coming days before d count as observed days without an
			// update: the same weekday a week later has β = 1/2 (this
			// week's miss counts) and Ū = 1/8.
			name: "coming days count", start: t0, history: "1000000", days: 8,
			want: []float64{0.9 + 0.1/7, 0.1 / 8, 0.1 / 9, 0.1 / 10, 0.1 / 11, 0.1 / 12, 0.1 / 13, 0.9*0.5 + 0.1/14},
			next: "2026-03-09",
		},
		{
			// A weekday never observed takes β = Ū: two days, one update.
			name: "unseen weekday", start: t0, history: "10", days: 1,
			want: []float64{0.5}, next: "2026-03-04",
		},
		{
			name: "never published", start: t0, history: "0000000000", days: 3,
			want: []float64{0, 0, 0}, next: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Forecast(tt.start, history(tt.history), tt.days)
			if len(got) != len(tt.want) {
				t.Fatalf("%d days, want %d", len(got), len(tt.want))
			}
			for i, f := range got {
				if math.Abs(f.P-tt.want[i]) > 1e-12 {
					t.Errorf("day %d (%s): P = %v, want %v", i, f.Date.Format(time.DateOnly), f.P, tt.want[i])
				}
				if wantDate := tt.start.AddDate(0, 0, len(tt.history)+i); !f.Date.Equal(wantDate) {
					t.Errorf("day %d is %v, want %v", i, f.Date, wantDate)
				}
			}
			next, ok := Predicted(got)
			gotNext := ""
			if ok {
				gotNext = next.Format(time.DateOnly)
			}
			if gotNext != tt.next {
				t.Errorf("predicted %q, want %q", gotNext, tt.next)
			}
		})
	}
}

// A source that publishes on Wednesdays around 09:00 is polled next on
// Wednesday at 10:00, the end of its usual hour, and not in between.
func TestWeekdayPolicy(t *testing.T) {
	var s State
	p, err := ByName(Weekday, Config{})
	if err != nil {
		t.Fatal(err)
	}
	// Four weeks of daily polls at noon, a posting each Wednesday at 09:20.
	s.Learn(Observation{At: t0.Add(12 * time.Hour)})
	for d := 1; d <= 28; d++ {
		at := t0.AddDate(0, 0, d).Add(12 * time.Hour)
		var dates []time.Time
		if at.Weekday() == time.Wednesday {
			dates = []time.Time{at.Add(-2*time.Hour - 40*time.Minute)}
		}
		s.Learn(Observation{At: at, NewItems: len(dates), ItemsSeen: 10, ItemDates: dates})
	}
	last := s.LastRetrieval // Monday 30 March, noon
	if last.Weekday() != time.Monday {
		t.Fatalf("last poll on %v", last.Weekday())
	}
	next := p.Next(Source{State: &s}, last)
	want := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	if !next.Equal(want) {
		t.Errorf("next = %v, want %v", next, want)
	}
	// A floor from the origin holds it back.
	floor := want.Add(3 * time.Hour)
	if got := p.Next(Source{State: &s, NotBefore: floor}, last); !got.Equal(floor) {
		t.Errorf("with a floor: next = %v, want %v", got, floor)
	}
}

// With under a week of history the weekday policy checks daily.
func TestWeekdayWarmup(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0.Add(12 * time.Hour)})
	p, _ := ByName(Weekday, Config{})
	next := p.Next(Source{State: &s}, t0.Add(12*time.Hour))
	if d := next.Sub(t0.Add(12 * time.Hour)); d <= 0 || d > 24*time.Hour {
		t.Errorf("next after %v, want within a day", d)
	}
}
