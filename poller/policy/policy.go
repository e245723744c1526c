package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The policies' names, as written in configuration and in the API.
const (
	Flat       = "flat"
	Smart      = "smart"
	Weekday    = "weekday"
	Uniform    = "uniform"
	MinDelay   = "min-delay"
	MinMissing = "min-missing"
	Hourly     = "hourly"
	AtRisk     = "at-risk"
)

var names = []string{Flat, Smart, Weekday, Uniform, MinDelay, MinMissing, Hourly, AtRisk}

// Names lists every policy ByName knows: the per-source ones first, then
// the budget ones.
func Names() []string { return slices.Clone(names) }

// ByName builds the named policy with cfg (zero fields take their
// defaults). It fails on an unknown name or an unusable configuration.
func ByName(name string, cfg Config) (Policy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	switch name {
	case Flat:
		return flat{cfg}, nil
	case Smart:
		return smart{cfg}, nil
	case Weekday:
		return weekday{cfg}, nil
	case Uniform, MinDelay, MinMissing:
		return allocator{name: name, cfg: cfg}, nil
	case Hourly, AtRisk:
		return ranking{name: name, cfg: cfg}, nil
	}
	return nil, fmt.Errorf("unknown scheduling policy %q (known: %s)", name, strings.Join(names, ", "))
}

// Policy decides when sources are polled.
//
// The live poller uses it in two ways. After every poll (once State.Learn
// has run) it sets the source's next poll to Next(source, now). Once per
// Cycle it calls Plan on all the sources that follow a budget policy and
// stores the times returned; per-source policies need Plan only when a
// source switches to them.
type Policy interface {
	// Name is the policy's name, as ByName takes it.
	Name() string
	// Budgeted reports whether the policy shares a budget among sources,
	// and so needs Plan every cycle.
	Budgeted() bool
	// Next is when src should be polled next, never before now nor before
	// its floors. For a budget policy it is provisional: a source never
	// polled is due now, any other waits one Cycle, for the next Plan.
	Next(src Source, now time.Time) time.Time
	// Plan is when each of sources should be polled next, in the order
	// given.
	Plan(sources []Source, now time.Time) Plan
}

// Source is what a policy knows of one source.
type Source struct {
	ID string
	// Interval is the source's configured interval: flat's interval and
	// smart's starting τ. Zero takes Config.Interval.
	Interval time.Duration
	// Subscribers weigh the source in hourly and at-risk's ranks and in
	// min-delay's weights, by Config.C.
	Subscribers int
	// Weight is min-delay's ω; zero means 1 + C × Subscribers.
	Weight float64
	// NotBefore is a floor set from outside the state, e.g. a Retry-After
	// that holds a whole host back. No policy polls before it.
	NotBefore time.Time
	// Push says that the source's postings are pushed to Dynamo (a WebSub
	// subscription is active): every policy then polls it only for
	// safety, Config.PushSafety after its last poll, and budget policies
	// give the polls it no longer needs to the other sources. Its pushes
	// reach the state through State.Pushed.
	Push bool
	// Location is the source's time zone: the weekday model counts its
	// days there. Nil means the zone the state was learnt in (UTC if
	// none).
	Location *time.Location
	// State is what was learnt; nil for a source never polled.
	State *State
}

// Plan is a budget policy's decision for one cycle.
type Plan struct {
	// Next is when each source should be polled, in the order given to
	// Plan; due sources get now. None is before now or a source's floors.
	Next []time.Time
	// Replan is when Plan should be called again; zero for per-source
	// policies, whose plan holds until a source is polled.
	Replan time.Time
}

var freshState State

// state is the source's learnt state, a fresh one if none.
func (src *Source) state() *State {
	if src.State == nil {
		return &freshState
	}
	return src.State
}

// polled reports whether the source was ever polled successfully.
func (src *Source) polled() bool {
	return src.State != nil && !src.State.LastRetrieval.IsZero()
}

// floor is the earliest time src may be polled.
func (src *Source) floor() time.Time {
	f := src.state().floor()
	if src.NotBefore.After(f) {
		return src.NotBefore
	}
	return f
}

// interval is the source's configured interval, or cfg's.
func (src *Source) interval(cfg Config) time.Duration {
	if src.Interval > 0 {
		return src.Interval
	}
	return cfg.Interval
}

// weight is min-delay's ω for src.
func (src *Source) weight(cfg Config) float64 {
	if src.Weight > 0 {
		return src.Weight
	}
	return 1 + cfg.C*float64(max(src.Subscribers, 0))
}

// boost is the subscribers' factor in ranks, 1 + C × subscribers.
func (src *Source) boost(cfg Config) float64 {
	return 1 + cfg.C*float64(max(src.Subscribers, 0))
}

// settle moves t to now or to the source's floor if it is before them.
func settle(t, now time.Time, src *Source) time.Time {
	if t.Before(now) {
		t = now
	}
	if f := src.floor(); t.Before(f) {
		t = f
	}
	return t
}

// planEach is Plan for per-source policies.
func planEach(p Policy, sources []Source, now time.Time) Plan {
	next := make([]time.Time, len(sources))
	for i := range sources {
		next[i] = p.Next(sources[i], now)
	}
	return Plan{Next: next}
}

// budgetNext is Next for budget policies: a source never polled is due at
// once (its first read teaches its capacity and rates, and users expect a
// new source to show up); a push-capable one waits for its safety poll;
// any other waits for the next plan.
func budgetNext(cfg Config, src Source, now time.Time) time.Time {
	if !src.polled() {
		return settle(now, now, &src)
	}
	if src.Push {
		return pushNext(cfg, src, now)
	}
	return settle(now.Add(cfg.Cycle), now, &src)
}

// pushNext is the safety poll of a push-capable source: PushSafety after
// its last poll (at once if never polled). Pushes do not put it off: only
// a poll shows what a lost push left out.
func pushNext(cfg Config, src Source, now time.Time) time.Time {
	last := src.state().LastRetrieval
	if last.IsZero() {
		return settle(now, now, &src)
	}
	return settle(last.Add(cfg.PushSafety), now, &src)
}
