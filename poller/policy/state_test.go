package policy

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC) // a Monday

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

// A day with 24 undated new items, from a fresh state: the prior (one item
// a day, weighing 24 hours) and the day observed give
// λ = 24·(24 + 1)/(24 + 24) = 12.5 a day; each hour got one item in one
// hour, so with the prior of two items at the mean rate m = 12.5/24 an
// hour its rate is (1 + 2)/(1 + 2/m).
func TestLearnRates(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0, ItemsSeen: 30})
	if got := s.Rate(); !near(got, 1) {
		t.Errorf("rate before any interval = %v, want the prior 1", got)
	}
	s.Learn(Observation{At: t0.Add(24 * time.Hour), NewItems: 24, ItemsSeen: 30, Changed: true})
	if got := s.Rate(); !near(got, 12.5) {
		t.Errorf("rate = %v, want 12.5", got)
	}
	wantHour := (1 + 2) / (1 + 2/(12.5/24))
	for h, r := range s.HourlyRates() {
		if !near(r, wantHour) {
			t.Fatalf("hourly rate %d = %v, want %v", h, r, wantHour)
		}
	}
	if got := s.Expected(t0, t0.Add(36*time.Hour)); !near(got, 36*wantHour) {
		t.Errorf("expected over 36h = %v, want %v", got, 36*wantHour)
	}
	if s.Capacity != 30 || s.Polls != 2 || s.NewItems != 24 || s.Changes != 1 {
		t.Errorf("capacity %d polls %d new %d changes %d, want 30 2 24 1", s.Capacity, s.Polls, s.NewItems, s.Changes)
	}
}

// Dated items land in their own hours; undated ones are spread.
func TestLearnDates(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0, ItemsSeen: 10})
	at := t0.Add(24 * time.Hour)
	dates := []time.Time{t0.Add(9*time.Hour + 10*time.Minute), t0.Add(9*time.Hour + 50*time.Minute), t0.Add(14 * time.Hour)}
	s.Learn(Observation{At: at, NewItems: 3, ItemsSeen: 10, ItemDates: dates})
	if s.HourItems[9] != 2 || s.HourItems[14] != 1 || s.HourItems[3] != 0 {
		t.Errorf("hour items 9/14/3 = %v/%v/%v, want 2/1/0", s.HourItems[9], s.HourItems[14], s.HourItems[3])
	}
	if got := s.PeakHour(); got != 9 {
		t.Errorf("peak hour = %d, want 9", got)
	}
	// A date outside the interval polled is not trusted: the item is spread.
	var u State
	u.Learn(Observation{At: t0, ItemsSeen: 10})
	u.Learn(Observation{At: at, NewItems: 1, ItemsSeen: 10, ItemDates: []time.Time{t0.AddDate(-1, 0, 0)}})
	if !near(u.Items, 1) || u.HourItems[0] >= 1 {
		t.Errorf("an out-of-range date was placed: items %v, hour 0 %v", u.Items, u.HourItems[0])
	}
}

// A document that is all new may have lost items: without dates, the
// count is doubled.
func TestLearnOverflow(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0, ItemsSeen: 5})
	s.Learn(Observation{At: t0.Add(24 * time.Hour), NewItems: 5, ItemsSeen: 5})
	if !near(s.Items, 10) {
		t.Errorf("items = %v, want 10 (5 seen, as many assumed lost)", s.Items)
	}
}

// Old observations fade with HalfLife.
func TestLearnDecay(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0})
	s.Learn(Observation{At: t0.Add(time.Hour), NewItems: 4, ItemsSeen: 10})
	before := s.Items
	s.Learn(Observation{At: t0.Add(time.Hour + HalfLife)})
	if !near(s.Items, before/2) {
		t.Errorf("items after a half-life = %v, want %v", s.Items, before/2)
	}
}

// Changes at 0, 2h and 6h: intervals 2h and 4h; from τ = 1h with α = ½,
// τ = ½(½·3600 + ½·7200) + ½·14400 = 9900 s.
func TestTau(t *testing.T) {
	var s State
	for _, h := range []int{0, 1, 2, 6} {
		s.Learn(Observation{At: t0.Add(time.Duration(h) * time.Hour), Changed: h != 1})
	}
	if got, want := s.Tau(0.5, time.Hour), 9900*time.Second; got != want {
		t.Errorf("τ = %v, want %v", got, want)
	}
	if s.Changes != 3 || !s.LastChange.Equal(t0.Add(6*time.Hour)) {
		t.Errorf("changes %d, last change %v", s.Changes, s.LastChange)
	}
}

// A clock going backwards teaches no interval.
func TestLearnClockBackwards(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0.Add(time.Hour)})
	s.Learn(Observation{At: t0, NewItems: 3, ItemsSeen: 10})
	if s.Exposure != 0 || !s.LastRetrieval.Equal(t0.Add(time.Hour)) {
		t.Errorf("exposure %v, last retrieval %v: learnt from a backwards interval", s.Exposure, s.LastRetrieval)
	}
}

type fixedRand float64

func (f fixedRand) Float64() float64 { return float64(f) }

func TestBackoff(t *testing.T) {
	cfg := Config{ErrorBase: time.Minute, ErrorMax: time.Hour}
	tests := []struct {
		n    int
		rnd  Rand
		want time.Duration
	}{
		{0, nil, 0},
		{1, nil, time.Minute},
		{3, nil, 4 * time.Minute},
		{7, nil, time.Hour}, // 64 min, capped
		{1000, nil, time.Hour},
		{3, fixedRand(0), 2 * time.Minute},          // half of 4 min
		{3, fixedRand(0.5), 3 * time.Minute},        // half + a quarter
		{3, fixedRand(math.NaN()), time.Minute * 2}, // a broken source draws 0
	}
	for _, tt := range tests {
		if got := Backoff(tt.n, cfg, tt.rnd); got != tt.want {
			t.Errorf("Backoff(%d, %v) = %v, want %v", tt.n, tt.rnd, got, tt.want)
		}
	}
}

func TestFail(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0})
	cfg := Config{ErrorBase: time.Minute}
	s.Fail(t0.Add(time.Hour), cfg, nil)
	s.Fail(t0.Add(2*time.Hour), cfg, nil)
	if s.Errors != 2 || !s.RetryAt.Equal(t0.Add(2*time.Hour+2*time.Minute)) {
		t.Errorf("errors %d retry at %v, want 2 and 02:02", s.Errors, s.RetryAt)
	}
	s.Learn(Observation{At: t0.Add(3 * time.Hour)})
	if s.Errors != 0 || !s.RetryAt.IsZero() {
		t.Errorf("a success left errors %d retry at %v", s.Errors, s.RetryAt)
	}
}

func TestStateRoundTrip(t *testing.T) {
	var s State
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 40 {
		at := t0.Add(time.Duration(i) * 7 * time.Hour)
		s.Learn(Observation{At: at, NewItems: rng.IntN(5), ItemsSeen: 12, Changed: i%3 == 0, NotBefore: at.Add(time.Minute)})
	}
	s.Fail(t0.AddDate(0, 0, 20), Config{}, nil)
	raw, err := MarshalState(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := LoadState(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("round trip changed the state:\n got %+v\nwant %+v", back, s)
	}
}

func TestLoadState(t *testing.T) {
	for _, raw := range []string{"", "null"} {
		s, err := LoadState(json.RawMessage(raw))
		if err != nil || s.Version != StateVersion || s.Polls != 0 {
			t.Errorf("LoadState(%q) = %+v, %v; want a fresh state", raw, s, err)
		}
	}
	if _, err := LoadState(json.RawMessage(`{"items":`)); err == nil || !strings.Contains(err.Error(), "schedule state") {
		t.Errorf("malformed JSON: err = %v", err)
	}
	s, err := LoadState(json.RawMessage(`{"items":-3,"exposure_h":5,"capacity":-2,"days_start":"2026-03-02","days":"1x01","change_intervals_s":[-1,60],"polls":-4,"newest_items":-1,"newest_exposure_h":-2}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Items != 0 || s.Exposure != 5 || s.Capacity != 0 || s.Days != "1001" || len(s.ChangeIntervals) != 1 || s.Polls != 0 || s.NewestItems != 0 || s.NewestHours != 0 {
		t.Errorf("repair gave %+v", s)
	}
	s, _ = LoadState(json.RawMessage(`{"days_start":"yesterday","days":"111"}`))
	if s.DaysStart != "" || s.Days != "" {
		t.Errorf("a bad day start kept its days: %q %q", s.DaysStart, s.Days)
	}
}

// FuzzLoadState: any stored document loads or fails cleanly, and what
// loads can be learnt from, scheduled and stored again.
func FuzzLoadState(f *testing.F) {
	var s State
	s.Learn(Observation{At: t0, ItemsSeen: 10})
	s.Learn(Observation{At: t0.Add(30 * time.Hour), NewItems: 3, ItemsSeen: 10, Changed: true})
	seed, _ := MarshalState(s)
	f.Add(string(seed))
	f.Add(`{"items":1e308,"exposure_h":1e-308,"hour_items":[1e308]}`)
	f.Add(`{"days_start":"0001-01-01","days":"1111","last_retrieval":"9999-12-31T23:59:59Z"}`)
	f.Add(`{"change_intervals_s":[1e300,1e300],"capacity":2147483647}`)
	f.Add(`{"newest_items":1e308,"newest_exposure_h":1e-308,"capacity":1}`)
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := LoadState(json.RawMessage(raw))
		if err != nil {
			return
		}
		now := t0.AddDate(0, 1, 0)
		src := Source{ID: "x", State: &s}
		for _, name := range Names() {
			p, err := ByName(name, Config{})
			if err != nil {
				t.Fatal(err)
			}
			if next := p.Next(src, now); next.Before(now) {
				t.Fatalf("%s: next %v before now", name, next)
			}
			p.Plan([]Source{src}, now)
		}
		s.Learn(Observation{At: now, NewItems: 2, ItemsSeen: 5, Changed: true})
		s.Pushed(Push{At: now.Add(time.Minute), NewItems: 1, ItemDates: []time.Time{now.Add(30 * time.Second)}})
		s.Learn(Observation{At: now.Add(3 * time.Minute), NewItems: 1, ItemsSeen: 1, ItemDates: []time.Time{now.Add(2 * time.Minute)}})
		if _, err := Ranks(AtRisk, Config{}, []Source{{State: &s}, src}, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if r := s.Rate(); math.IsNaN(r) || r < 0 {
			t.Fatalf("rate %v", r)
		}
		if _, err := MarshalState(s); err != nil {
			t.Fatal(err)
		}
	})
}

// The weekday history marks the days with postings, and counts days not
// reached yet as days without.
func TestHistory(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0.Add(12 * time.Hour)})
	for d := 1; d <= 9; d++ {
		at := t0.AddDate(0, 0, d).Add(12 * time.Hour)
		var dates []time.Time
		if d%3 == 0 {
			dates = []time.Time{at.Add(-2 * time.Hour)}
		}
		s.Learn(Observation{At: at, NewItems: len(dates), ItemsSeen: 10, ItemDates: dates})
	}
	if s.DaysStart != "2026-03-02" || s.Days != "0001001001" {
		t.Fatalf("days from %s: %s, want 2026-03-02: 0001001001", s.DaysStart, s.Days)
	}
	start, days, today := s.History(t0.AddDate(0, 0, 12).Add(time.Hour), nil)
	want := []bool{false, false, false, true, false, false, true, false, false, true, false, false}
	if !start.Equal(t0) || !reflect.DeepEqual(days, want) || today {
		t.Errorf("History = %v %v %v, want %v %v false", start, days, today, t0, want)
	}
}

func TestSummarize(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0, ItemsSeen: 30})
	s.Learn(Observation{At: t0.Add(24 * time.Hour), NewItems: 24, ItemsSeen: 30, Changed: true})
	sum := s.Summarize(Config{}, 2*time.Hour, t0.Add(25*time.Hour))
	// Full precision: 3/(1 + 2·24/12.5) = 0.61983…
	if !near(sum.Rate, 12.5) || sum.Capacity != 30 || sum.Polls != 2 || !near(sum.HourlyRates[5], 3/(1+2*24/12.5)) || sum.Tau != 7200 {
		t.Errorf("summary %+v", sum)
	}
	// The 24 items fell on 2 March; on 3 March, one complete day observed,
	// with an update: Ū = 1 and β = Ū for an unseen weekday, so today is
	// likely.
	if sum.DaysStart != "2026-03-02" || sum.Days != "10" || sum.Next != "2026-03-03" {
		t.Errorf("weekday part: %q %q next %q", sum.DaysStart, sum.Days, sum.Next)
	}
	raw, err := json.Marshal(sum)
	if err != nil || !strings.Contains(string(raw), `"rate_per_day":12.50000000000000`) {
		t.Errorf("json %s, %v", raw, err)
	}
}

// A source silent for months keeps every hourly rate above zero and the
// floor: its expected new items (hourly's rank) still grow with the time
// since its last poll, and it is polled again.
func TestHourlyRatesFloor(t *testing.T) {
	var s State
	for d := 0; d <= 100; d++ {
		s.Learn(Observation{At: t0.AddDate(0, 0, d), ItemsSeen: 10})
	}
	for h, r := range s.HourlyRates() {
		if !(r >= HourlyFloor) {
			t.Fatalf("after 100 silent days the rate at %02d h is %v, below the floor %v", h, r, HourlyFloor)
		}
	}
	if r := s.Rate(); r > 0.1 {
		t.Errorf("after 100 silent days λ = %v a day", r)
	}
	last := s.LastRetrieval
	if got := s.Expected(last, last.Add(10*24*time.Hour)); got < 240*HourlyFloor || got > 10*s.Rate()*1.01 {
		t.Errorf("expected items over 10 days = %v, want between %v and 10·λ", got, 240*HourlyFloor)
	}
}
