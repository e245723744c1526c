package policy

import (
	"math"
	"testing"
	"time"
)

// A push is an observation: its items and the time since the previous
// poll or push feed the rates, but it is not a poll. A poll after pushes
// learns only from the time since the last push.
func TestPushed(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0, ItemsSeen: 10})
	for h := 1; h <= 48; h++ {
		at := t0.Add(time.Duration(h) * time.Hour)
		s.Pushed(Push{At: at, NewItems: 2, ItemDates: []time.Time{at.Add(-30 * time.Minute), at.Add(-10 * time.Minute)}})
	}
	if s.Pushes != 48 || s.Polls != 1 || !s.LastRetrieval.Equal(t0) || !s.LastObservation.Equal(t0.Add(48*time.Hour)) {
		t.Fatalf("pushes %d, polls %d, last retrieval %v, last observation %v", s.Pushes, s.Polls, s.LastRetrieval, s.LastObservation)
	}
	// 96 items in 48 hours, with the prior of one over 24: 24·97/72,
	// a little less as the counts decay (the prior does not).
	if got, want := s.Rate(), 24*97.0/72; got > want || got < 0.98*want {
		t.Errorf("rate %v, want %v", got, want)
	}
	exposure := s.Exposure
	s.Learn(Observation{At: t0.Add(49 * time.Hour), ItemsSeen: 10})
	if got := s.Exposure - exposure*math.Exp2(-float64(time.Hour)/float64(HalfLife)); math.Abs(got-1) > 1e-9 {
		t.Errorf("the poll after the pushes observed %v hours, want the 1 since the last push", got)
	}
	if !s.LastRetrieval.Equal(t0.Add(49*time.Hour)) || s.Polls != 2 {
		t.Errorf("last retrieval %v, polls %d", s.LastRetrieval, s.Polls)
	}
}

// Every policy polls a push-capable source only for safety, PushSafety
// after its last poll, however many pushes came since; a source never
// polled is read at once.
func TestPushSafetyPolls(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0, ItemsSeen: 10})
	s.Pushed(Push{At: t0.Add(time.Hour), NewItems: 3})
	now := t0.Add(2 * time.Hour)
	cfg := Config{PushSafety: 12 * time.Hour, Budget: 100}
	for _, name := range Names() {
		p := mustPolicy(t, name, cfg)
		if next := p.Next(Source{State: &s, Push: true}, now); !next.Equal(t0.Add(12 * time.Hour)) {
			t.Errorf("%s: next poll %v, want the safety poll at %v", name, next, t0.Add(12*time.Hour))
		}
		if next := p.Next(Source{Push: true}, now); !next.Equal(now) {
			t.Errorf("%s: a push source never polled is due at %v", name, next)
		}
		if plan := p.Plan([]Source{{State: &s, Push: true}}, now); !plan.Next[0].Equal(t0.Add(12 * time.Hour)) {
			t.Errorf("%s: planned for %v, want the safety poll", name, plan.Next[0])
		}
	}
}

// The budget a push-capable source no longer needs goes to the others: in
// at-risk, the safety polls come out of the budget and θ is computed over
// the polled sources alone, so the same budget lets them wait less.
func TestPushFreesBudget(t *testing.T) {
	now := t0.Add(12 * time.Hour)
	polled := make([]State, 10)
	sources := make([]Source, 20)
	for i := range polled {
		polled[i] = Steady(24, 10, now.Add(-time.Hour))
		sources[i] = Source{State: &polled[i]}
	}
	pushed := make([]State, 10)
	for i := range pushed {
		pushed[i] = Steady(24, 10, now.Add(-time.Hour))
		sources[10+i] = Source{State: &pushed[i]}
	}
	cfg := Config{Budget: 80}
	before, err := Ranks(AtRisk, cfg, sources, now)
	if err != nil {
		t.Fatal(err)
	}
	for i := 10; i < 20; i++ {
		sources[i].Push = true
	}
	after, _ := Ranks(AtRisk, cfg, sources, now)
	// 80 polls a day over 20 sources posting one an hour: θ =
	// (24/80)²·(20·√(1/2))² = 18; with 10 of them pushed and safety polls
	// daily, 70 polls over 10 sources: θ = (24/70)²·(10·√(1/2))² = 5.88.
	if math.Abs(before.Theta-18) > 1e-3 || math.Abs(after.Theta-24.0*24/70/70*50) > 1e-3 {
		t.Errorf("θ %v, then %v", before.Theta, after.Theta)
	}
	if !(after.Ranks[0].Rank > 3*before.Ranks[0].Rank) {
		t.Errorf("a polled source's rank %v, then %v: want it due sooner", before.Ranks[0].Rank, after.Ranks[0].Rank)
	}
	for i := 10; i < 20; i++ {
		if after.Ranks[i].Eligible || after.Ranks[i].Poll {
			t.Errorf("push source %d ranked before its safety poll: %+v", i, after.Ranks[i])
		}
	}
}
