package policy

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func mustPolicy(t *testing.T, name string, cfg Config) Policy {
	t.Helper()
	p, err := ByName(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestByName(t *testing.T) {
	for _, name := range Names() {
		p := mustPolicy(t, name, Config{})
		if p.Name() != name {
			t.Errorf("ByName(%q).Name() = %q", name, p.Name())
		}
		wantBudget := !slices.Contains([]string{Flat, Smart, Weekday}, name)
		if p.Budgeted() != wantBudget {
			t.Errorf("%s: Budgeted = %v, want %v", name, p.Budgeted(), wantBudget)
		}
	}
	if _, err := ByName("fastest", Config{}); err == nil || !strings.Contains(err.Error(), "known: flat") {
		t.Errorf("unknown policy: err = %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Min: time.Hour, Max: time.Minute}, "min 1h0m0s is above max"},
		{Config{Interval: -time.Second}, "interval -1s is negative"},
		{Config{Alpha: 1}, "alpha 1"},
		{Config{Alpha: -0.5}, "alpha -0.5"},
		{Config{Cycle: 48 * time.Hour}, "cycle 48h0m0s is longer"},
		{Config{Budget: -1}, "budget -1"},
		{Config{C: -1}, "c -1"},
		{Config{Shape: 2}, "shape 2"},
		{Config{WeekdayDays: 400}, "weekday_days 400"},
		{Config{ErrorBase: time.Hour, ErrorMax: time.Minute}, "error_base"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want one containing %q", tt.cfg, err, tt.want)
		}
		if _, err := ByName(Flat, tt.cfg); err == nil {
			t.Errorf("ByName accepted %+v", tt.cfg)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
}

// polledAt is a state whose last successful poll was at.
func polledAt(at time.Time) *State {
	s := &State{}
	s.Learn(Observation{At: at, ItemsSeen: 10})
	return s
}

func TestFlat(t *testing.T) {
	p := mustPolicy(t, Flat, Config{Interval: 2 * time.Hour})
	now := t0.Add(30 * time.Minute)
	tests := []struct {
		name string
		src  Source
		want time.Time
	}{
		{"never polled", Source{}, now},
		{"config interval", Source{State: polledAt(t0)}, t0.Add(2 * time.Hour)},
		{"own interval", Source{Interval: 45 * time.Minute, State: polledAt(t0)}, t0.Add(45 * time.Minute)},
		{"overdue", Source{Interval: 10 * time.Minute, State: polledAt(t0)}, now},
		{"floor", Source{State: polledAt(t0), NotBefore: t0.Add(5 * time.Hour)}, t0.Add(5 * time.Hour)},
	}
	for _, tt := range tests {
		if got := p.Next(tt.src, now); !got.Equal(tt.want) {
			t.Errorf("%s: next = %v, want %v", tt.name, got, tt.want)
		}
	}
	// The origin's freshness floor (max-age, ttl) and the error back-off
	// are floors too.
	s := polledAt(t0)
	s.Learn(Observation{At: t0.Add(time.Hour), NotBefore: t0.Add(9 * time.Hour)})
	if got := p.Next(Source{State: s}, now); !got.Equal(t0.Add(9 * time.Hour)) {
		t.Errorf("origin floor: next = %v, want 09:00", got)
	}
	s.Fail(t0.Add(2*time.Hour), Config{ErrorBase: 10 * time.Hour, ErrorMax: 10 * time.Hour}, nil)
	if got := p.Next(Source{State: s}, now); !got.Equal(t0.Add(12 * time.Hour)) {
		t.Errorf("back-off: next = %v, want 12:00", got)
	}
}

func TestSmart(t *testing.T) {
	cfg := Config{Interval: time.Hour, Alpha: 0.5, Min: 10 * time.Minute, Max: 6 * time.Hour, Backoff: 0.5}
	p := mustPolicy(t, Smart, cfg)
	changes := func(hours ...float64) *State {
		s := &State{}
		for _, h := range hours {
			s.Learn(Observation{At: t0.Add(time.Duration(h * float64(time.Hour))), Changed: true})
		}
		return s
	}
	tests := []struct {
		name  string
		state *State
		want  time.Duration // after the last poll
	}{
		// τ = ½·1h + ½·3h = 2h.
		{"follows changes", changes(0, 3), 2 * time.Hour},
		// τ = ½(½·1h + ½·20m) + ½·20m = 30m.
		{"speeds up", changes(0, 1.0/3, 2.0/3), 30 * time.Minute},
		// Five 1-minute intervals halve τ's distance to 1m each time:
		// 30.5m, 15.75m, 8.4m, ...: below Min, so Min.
		{"clamped below", changes(0, 1.0/60, 2.0/60, 3.0/60, 4.0/60, 5.0/60), 10 * time.Minute},
		// τ = ½·1h + ½·40h = 20.5h, clamped at 6h.
		{"clamped above", changes(0, 40), 6 * time.Hour},
	}
	for _, tt := range tests {
		last := tt.state.LastRetrieval
		if got := p.Next(Source{State: tt.state}, last).Sub(last); got != tt.want {
			t.Errorf("%s: interval %v, want %v", tt.name, got, tt.want)
		}
	}
	// Silence backs off: a change at 0, τ = 1h, then polls without change
	// until 5h: the wait is Backoff × 5h = 2.5h.
	s := changes(0)
	for h := 1; h <= 5; h++ {
		s.Learn(Observation{At: t0.Add(time.Duration(h) * time.Hour)})
	}
	if got := p.Next(Source{State: s}, s.LastRetrieval).Sub(s.LastRetrieval); got != 150*time.Minute {
		t.Errorf("after 5h of silence: interval %v, want 2h30m", got)
	}
}

// hourly polls the sources with the most expected new items since their
// last poll, weighted by subscribers, among those outside the gap.
func TestHourlyPlan(t *testing.T) {
	// A budget of 144 a day over 10-minute cycles is one poll a cycle.
	cfg := Config{Budget: 144, Gap: 10 * time.Minute}
	p := mustPolicy(t, Hourly, cfg)
	now := t0.Add(12 * time.Hour)
	busy := &State{}
	busy.Learn(Observation{At: t0, ItemsSeen: 10})
	busy.Learn(Observation{At: t0.Add(10 * time.Hour), NewItems: 50, ItemsSeen: 60})
	quiet := polledAt(t0.Add(2 * time.Hour))
	sources := []Source{
		{ID: "quiet", State: quiet},
		{ID: "busy", State: busy},
		{ID: "just-polled", State: polledAt(now.Add(-5 * time.Minute))},
	}
	plan := p.Plan(sources, now)
	if !plan.Next[1].Equal(now) || !plan.Next[0].After(now) || !plan.Next[2].After(now) {
		t.Errorf("plan %v: want only busy due now", plan.Next)
	}
	if !plan.Replan.Equal(now.Add(10 * time.Minute)) {
		t.Errorf("replan at %v", plan.Replan)
	}
	// Enough subscribers lift the quiet source above the busy one:
	// rank = expected × (1 + c × subscribers).
	cfg.C = 1
	p = mustPolicy(t, Hourly, cfg)
	sources[0].Subscribers = 10_000
	plan = p.Plan(sources, now)
	if !plan.Next[0].Equal(now) || plan.Next[1].Equal(now) {
		t.Errorf("with subscribers, plan %v: want only quiet due now", plan.Next)
	}
	// A source never polled is due at once, outside the budget.
	plan = p.Plan(append(sources, Source{ID: "new"}), now)
	if !plan.Next[3].Equal(now) {
		t.Errorf("a new source is due at %v", plan.Next[3])
	}
}

// Ties go to the source listed first.
func TestHourlyTies(t *testing.T) {
	p := mustPolicy(t, Hourly, Config{Budget: 144})
	now := t0.Add(12 * time.Hour)
	sources := []Source{{ID: "a", State: polledAt(t0)}, {ID: "b", State: polledAt(t0)}}
	plan := p.Plan(sources, now)
	if !plan.Next[0].Equal(now) || plan.Next[1].Equal(now) {
		t.Errorf("plan %v: want the first due", plan.Next)
	}
}

// The allocation policies spread each source's polls evenly over the
// period. With min-missing, a budget of 12 a day, a source posting 20 a
// day showing 5 and one posting 4 showing 10: a greedy round is 4 polls
// and 1 poll; two rounds and 2 more polls give 10 and 2, so they are
// polled every 2h24m and every 12h after their last poll.
func TestAllocatorPlan(t *testing.T) {
	// Learnt rates of exactly 20 and 4 a day: with the prior of one item
	// in 24 hours, λ = 24·(items + 1)/(exposure + 24).
	fast := &State{Capacity: 5, LastRetrieval: t0, Exposure: 2376, Items: 1999}
	slow := &State{Capacity: 10, LastRetrieval: t0, Exposure: 2376, Items: 399}
	if fast.Rate() != 20 || slow.Rate() != 4 {
		t.Fatalf("rates %v and %v, want 20 and 4", fast.Rate(), slow.Rate())
	}
	p := mustPolicy(t, MinMissing, Config{Budget: 12})
	plan := p.Plan([]Source{{State: fast}, {State: slow}}, t0.Add(time.Minute))
	for i, want := range []time.Time{t0.Add(144 * time.Minute), t0.Add(12 * time.Hour)} {
		if !plan.Next[i].Equal(want) {
			t.Errorf("source %d: next %v, want %v", i, plan.Next[i], want)
		}
	}
	// min-delay: √20 : √4 of 12 is 8.29 and 3.71, rounded to 8 and 4.
	p = mustPolicy(t, MinDelay, Config{Budget: 12})
	plan = p.Plan([]Source{{State: fast}, {State: slow}}, t0.Add(time.Minute))
	for i, want := range []time.Time{t0.Add(3 * time.Hour), t0.Add(6 * time.Hour)} {
		if !plan.Next[i].Equal(want) {
			t.Errorf("min-delay source %d: next %v, want %v", i, plan.Next[i], want)
		}
	}
}

// Properties of every budget policy over a simulated week of random
// sources: politeness (no source polled twice within the gap), no
// starvation (none waits longer than MaxWait and the time the budget
// takes to poll every source once, should all starve together), and the
// budget roughly kept.
func TestBudgetPoliciesProperties(t *testing.T) {
	const n = 30
	cfg := Config{Budget: 3 * n, Gap: 30 * time.Minute, MaxWait: 36 * time.Hour}
	for _, name := range []string{Uniform, MinDelay, MinMissing, Hourly, AtRisk} {
		t.Run(name, func(t *testing.T) {
			p := mustPolicy(t, name, cfg)
			rng := rand.New(rand.NewPCG(7, 8))
			states := make([]State, n)
			sources := make([]Source, n)
			rates := make([]float64, n) // postings an hour
			for i := range sources {
				sources[i] = Source{ID: string(rune('a' + i)), State: &states[i]}
				rates[i] = []float64{0, 0.01, 0.2, 3}[rng.IntN(4)]
			}
			var polls []time.Time
			last := make([]time.Time, n)
			end := t0.AddDate(0, 0, 7)
			cycle := 10 * time.Minute
			starve := cfg.MaxWait + 24*time.Hour*n/time.Duration(cfg.Budget) + cycle
			for now := t0; now.Before(end); now = now.Add(cycle) {
				plan := p.Plan(sources, now)
				for i, at := range plan.Next {
					if !at.Before(now.Add(cycle)) {
						continue
					}
					if !last[i].IsZero() && at.Sub(last[i]) < cfg.Gap {
						t.Fatalf("source %d polled at %v and again at %v", i, last[i], at)
					}
					fresh := 0
					if !last[i].IsZero() {
						fresh = int(rates[i]*at.Sub(last[i]).Hours() + rng.Float64())
					}
					states[i].Learn(Observation{At: at, NewItems: min(fresh, 10), ItemsSeen: 10})
					last[i] = at
					polls = append(polls, at)
				}
				for i := range last {
					if now.Sub(last[i]) > starve {
						t.Fatalf("source %d starved: last poll %v, now %v", i, last[i], now)
					}
				}
			}
			// The first read of each source is outside the budget.
			budget := 7*cfg.Budget + n
			if len(polls) > budget*105/100 || len(polls) < budget*90/100 {
				t.Errorf("%d polls in a week, budget %d", len(polls), budget)
			}
		})
	}
}

// at-risk's guard: at 4 polls a source a day, polling every source daily
// takes a quarter of the budget, so a source silent for a day less a
// cycle comes first, whatever its rank; at one poll a source a day the
// guard would take it all, so it is off and ranks decide.
func TestAtRiskGuard(t *testing.T) {
	now := t0.Add(30 * 24 * time.Hour)
	states := make([]State, 40)
	sources := make([]Source, len(states))
	for i := range states {
		states[i] = Steady(50, 100, now.Add(-2*time.Hour))
		sources[i] = Source{State: &states[i]}
	}
	states[39] = Steady(0.01, 10, now.Add(-24*time.Hour+10*time.Minute))
	for _, tt := range []struct {
		budget  int
		guarded bool
	}{{4 * 40, true}, {40, false}} {
		c, err := Ranks(AtRisk, Config{Budget: tt.budget}, sources, now)
		if err != nil {
			t.Fatal(err)
		}
		slow := c.Ranks[39]
		if slow.Guarded != tt.guarded || (tt.guarded && !slow.Poll) {
			t.Errorf("budget %d: the silent source %+v, want guarded %v", tt.budget, slow, tt.guarded)
		}
		for i, r := range c.Ranks[:39] {
			if !tt.guarded && r.Rank < slow.Rank {
				t.Errorf("budget %d: busy source %d ranks %v below the silent one's %v", tt.budget, i, r.Rank, slow.Rank)
			}
		}
	}
}

// at-risk weighs a window about to overflow: of two sources with the same
// rate and waiting, the one whose window is nearly full ranks higher by
// μ·S·P(N ≥ S+1), and Ranks reports both parts.
func TestAtRiskRisk(t *testing.T) {
	now := t0.Add(12 * time.Hour)
	roomy := Steady(240, 500, now.Add(-50*time.Minute))
	tight := Steady(240, 5, now.Add(-50*time.Minute))
	c, err := Ranks(AtRisk, Config{Budget: 96}, []Source{{State: &roomy}, {State: &tight}}, now)
	if err != nil {
		t.Fatal(err)
	}
	r, w := c.Ranks[0], c.Ranks[1]
	// 10 an hour for 50 minutes: 8.33 pending, 8.33·(50/60)/2 = 3.47
	// item-hours waiting; within the 20-minute lookahead 11.67 expected,
	// so a window of 5 has overflowed for certain: risk 1 h × 5 × ~1.
	if math.Abs(r.Pending-25.0/3) > 1e-3 || math.Abs(r.Waiting-125.0/36) > 1e-3 || r.Risk > 1e-9 {
		t.Errorf("roomy source: %+v", r)
	}
	if math.Abs(w.Risk-5*tailPoisson(35.0/3, 6)) > 1e-6 || !(w.Rank > r.Rank) {
		t.Errorf("tight source: %+v, roomy %+v", w, r)
	}
	if _, err := Ranks(MinDelay, Config{}, nil, now); err == nil {
		t.Error("Ranks accepted an allocation policy")
	}
}

// tailPoisson is P(N ≥ k) for N ~ Poisson(mean), summed plainly.
func tailPoisson(mean float64, k int) float64 {
	p, cdf := math.Exp(-mean), 0.0
	for j := range k {
		if j > 0 {
			p *= mean / float64(j)
		}
		cdf += p
	}
	return 1 - cdf
}

// topK picks the same sources whether it selects by insertion (few polls
// a cycle) or sorts (many): guarded ones first, oldest first, then by
// rank, ties to the source listed first.
func TestTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var all []candidate
	for i := range 500 {
		all = append(all, candidate{index: i, starving: rng.IntN(10) == 0, last: t0.Add(time.Duration(rng.IntN(5)) * time.Hour), rank: float64(rng.IntN(50))})
	}
	naive := slices.Clone(all)
	slices.SortStableFunc(naive, func(a, b candidate) int {
		switch {
		case a.starving != b.starving:
			if a.starving {
				return -1
			}
			return 1
		case a.starving && !a.last.Equal(b.last):
			return a.last.Compare(b.last)
		case a.rank != b.rank:
			return cmpFloat(b.rank, a.rank)
		}
		return a.index - b.index
	})
	for _, k := range []int{1, 7, partialSelection, partialSelection + 1, 300} {
		got := topK(slices.Clone(all), k)
		if len(got) != k {
			t.Fatalf("k %d: %d picked", k, len(got))
		}
		for i := range got {
			if got[i].index != naive[i].index {
				t.Fatalf("k %d: pick %d is source %d, want %d", k, i, got[i].index, naive[i].index)
			}
		}
	}
}

// At-risk's budget follows the time of day only beyond the floor the clock
// sets (a poll of every source each guard, push safety polls): that floor
// is spread evenly, so with the guard on the budget's departure from an
// even spread is the guard-off one times the share left to postings.
func TestAtRiskBudgetShare(t *testing.T) {
	noon := &State{LastRetrieval: t0, Items: 240, Exposure: 240}
	for h := range 24 {
		noon.HourExposure[h] = 100
	}
	noon.HourItems[12] = 1000 // everything at noon, UTC
	sources := []Source{{State: noon}, {State: noon}, {State: noon}, {State: noon}}
	r := mustPolicy(t, AtRisk, Config{}).(ranking)
	cfg := r.cfg
	start := t0.Truncate(24 * time.Hour)
	cycles := int64(cfg.Period / cfg.Cycle)
	even := func(j int64) float64 { return float64(j) / float64(cycles) }
	for _, budget := range []float64{8, 16, 64} {
		off := r.budgetShare(sources, budget, cfg.MaxWait, start, cycles)
		on := r.budgetShare(sources, budget, cfg.Guard, start, cycles)
		fixed := min(4*float64(cfg.Period)/float64(cfg.Guard)/budget, 1)
		for _, j := range []int64{36, 72, 78, 120} {
			want := (1 - fixed) * (off(j) - even(j))
			if got := on(j) - even(j); math.Abs(got-want) > 1e-12 {
				t.Errorf("budget %v, cycle %d: guard on departs %v from even, want %v (guard off: %v)", budget, j, got, want, off(j)-even(j))
			}
		}
		// Before noon the shaped budget lags the even one, after it leads.
		if !(off(72) < even(72) && off(78) > even(78)) {
			t.Errorf("budget %v: guard off, W(72) = %v, W(78) = %v: not shaped by the noon postings", budget, off(72), off(78))
		}
	}
	if on := r.budgetShare(sources, 4, cfg.Guard, start, cycles); on(72) != even(72) {
		t.Errorf("a budget the guard takes whole is spread evenly: W(72) = %v, want %v", on(72), even(72))
	}
}
