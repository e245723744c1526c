package policy

import (
	"fmt"
	"math"
	"time"
)

// Config holds every tunable of every policy. A zero field takes its
// default (see Default), so Config{} is a working configuration and an
// operator only writes what they change.
type Config struct {
	// Interval is flat's interval and smart's starting τ for a source that
	// has no interval of its own. Default 1h.
	Interval time.Duration `json:"interval,omitempty"`

	// Alpha is smart's smoothing weight in τ(n+1) = α·τ(n) + (1−α)·t(n).
	// Default 0.5. Because State keeps the raw change intervals, a new α
	// applies at once to everything already observed.
	Alpha float64 `json:"alpha,omitempty"`
	// Min and Max clamp smart's interval. Defaults 5m and 24h.
	Min time.Duration `json:"min,omitempty"`
	Max time.Duration `json:"max,omitempty"`
	// Backoff stretches smart's interval while nothing changes: the
	// interval is the larger of τ and Backoff × the silence since the last
	// change, so once the silence passes τ/Backoff, silent polls thin out
	// geometrically (×(1+Backoff) per poll). Default 0.5.
	Backoff float64 `json:"backoff,omitempty"`

	// Budget is how many polls the budget policies share per Period among
	// all the sources under them. Default: 24 per source (one an hour on
	// average, the same cost as the default flat interval).
	Budget int `json:"budget,omitempty"`
	// Period is the span the Budget covers. Default 24h.
	Period time.Duration `json:"period,omitempty"`
	// Cycle is how often budget policies plan: the poller calls Plan once
	// per cycle. Default 10m.
	Cycle time.Duration `json:"cycle,omitempty"`
	// Gap is the politeness gap: budget policies never poll a source twice
	// within it. Default 10m.
	Gap time.Duration `json:"gap,omitempty"`
	// MaxWait bounds starvation: a budget policy polls a source that has
	// waited this long whatever its rank or allocation. Default 7 days.
	MaxWait time.Duration `json:"max_wait,omitempty"`
	// C weighs subscribers in rankings and in min-delay's weights:
	// rank = expected_new_items × (1 + C × subscribers). Default 0 (ignore).
	C float64 `json:"c,omitempty"`
	// MissHours is μ, what a missed posting is worth to at-risk in hours
	// of delay: it weighs its windows' overflow against its postings'
	// waiting. Default see Default (docs/SCHEDULING.md has the sweep).
	MissHours float64 `json:"miss_hours,omitempty"`
	// Lookahead is how far at-risk looks for a window's overflow: a
	// source not polled now gets its next chance a cycle or two later.
	// Default see Default.
	Lookahead time.Duration `json:"lookahead,omitempty"`
	// Shape is the share of at-risk's budget that follows the time of day,
	// of the budget left beyond the floor the clock sets (a poll of every
	// source each Guard while the guard is on, push safety polls), which
	// is spread evenly, like the rest of it. Default 0.5; set it negative
	// for 0 (an even spread), since 0 means "default".
	Shape float64 `json:"shape,omitempty"`

	// Guard bounds how long at-risk lets a source go without a poll, so
	// that no posting waits more than a day: a source not polled for
	// Guard comes before every ranked one. When polling every source that
	// often would take more than GuardShare of the budget (with the
	// defaults, below about 1.8 polls a source a day, where the guard
	// alone would eat the budget), the guard is off and MaxWait alone
	// holds. Defaults 23h50m (a day
	// less a cycle) and 0.55.
	Guard      time.Duration `json:"guard,omitempty"`
	GuardShare float64       `json:"guard_share,omitempty"`

	// PushSafety is how often every policy polls a source whose postings
	// are pushed (Source.Push), in case a push was lost. Default 24h.
	PushSafety time.Duration `json:"push_safety,omitempty"`

	// WeekdayDays is how many days after today the weekday policy
	// considers; a source unlikely to publish on any of them is checked on
	// the last. Default 7.
	WeekdayDays int `json:"weekday_days,omitempty"`

	// ErrorBase and ErrorMax shape the back-off after failed polls: the
	// n-th consecutive failure waits about ErrorBase·2^(n−1), capped at
	// ErrorMax, with jitter. Defaults 1m and 6h.
	ErrorBase time.Duration `json:"error_base,omitempty"`
	ErrorMax  time.Duration `json:"error_max,omitempty"`
}

// Default returns the configuration every zero field falls back to.
func Default() Config {
	return Config{
		Interval:    time.Hour,
		Alpha:       0.5,
		Min:         5 * time.Minute,
		Max:         24 * time.Hour,
		Backoff:     0.5,
		Period:      24 * time.Hour,
		Cycle:       10 * time.Minute,
		Gap:         10 * time.Minute,
		MaxWait:     7 * 24 * time.Hour,
		MissHours:   1,
		Lookahead:   20 * time.Minute,
		Shape:       0.5,
		Guard:       24*time.Hour - 10*time.Minute,
		GuardShare:  0.55,
		PushSafety:  24 * time.Hour,
		WeekdayDays: 7,
		ErrorBase:   time.Minute,
		ErrorMax:    6 * time.Hour,
	}
}

// maxBudget keeps allocations quick and their arithmetic exact: a billion
// polls a period is far beyond any deployment.
const maxBudget = 1_000_000_000

// WithDefaults returns c with every zero field replaced by its default.
// Budget stays 0, meaning 24 polls per source: only Plan knows how many
// sources share it.
func (c Config) WithDefaults() Config {
	d := Default()
	setDuration := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	setDuration(&c.Interval, d.Interval)
	setDuration(&c.Min, d.Min)
	setDuration(&c.Max, d.Max)
	setDuration(&c.Period, d.Period)
	setDuration(&c.Cycle, d.Cycle)
	setDuration(&c.Gap, d.Gap)
	setDuration(&c.MaxWait, d.MaxWait)
	setDuration(&c.ErrorBase, d.ErrorBase)
	setDuration(&c.ErrorMax, d.ErrorMax)
	setDuration(&c.Guard, d.Guard)
	setDuration(&c.Lookahead, d.Lookahead)
	setDuration(&c.PushSafety, d.PushSafety)
	if c.GuardShare == 0 {
		c.GuardShare = d.GuardShare
	}
	if c.Alpha == 0 {
		c.Alpha = d.Alpha
	}
	if c.Backoff == 0 {
		c.Backoff = d.Backoff
	}
	if c.MissHours == 0 {
		c.MissHours = d.MissHours
	}
	switch {
	case c.Shape == 0:
		c.Shape = d.Shape
	case c.Shape < 0:
		c.Shape = 0
	}
	if c.WeekdayDays == 0 {
		c.WeekdayDays = d.WeekdayDays
	}
	return c
}

// Validate reports the first setting that cannot work, after defaults are
// applied. Policies are built only from valid configurations, so their
// arithmetic never meets a negative interval or a NaN.
func (c Config) Validate() error {
	c = c.WithDefaults()
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"interval", c.Interval}, {"min", c.Min}, {"max", c.Max}, {"period", c.Period},
		{"cycle", c.Cycle}, {"gap", c.Gap}, {"max_wait", c.MaxWait},
		{"error_base", c.ErrorBase}, {"error_max", c.ErrorMax},
		{"guard", c.Guard}, {"push_safety", c.PushSafety}, {"lookahead", c.Lookahead},
	} {
		if d.v < 0 {
			return fmt.Errorf("policy config: %s %v is negative", d.name, d.v)
		}
	}
	switch {
	case c.Min > c.Max:
		return fmt.Errorf("policy config: min %v is above max %v", c.Min, c.Max)
	case c.ErrorBase > c.ErrorMax:
		return fmt.Errorf("policy config: error_base %v is above error_max %v", c.ErrorBase, c.ErrorMax)
	case c.Cycle > c.Period:
		return fmt.Errorf("policy config: cycle %v is longer than the period %v", c.Cycle, c.Period)
	case c.Budget < 0 || c.Budget > maxBudget:
		return fmt.Errorf("policy config: budget %d is outside 0..%d", c.Budget, maxBudget)
	case !inRange(c.Alpha, 0, 1) || c.Alpha == 1:
		return fmt.Errorf("policy config: alpha %v is outside [0, 1)", c.Alpha)
	case !inRange(c.Backoff, 0, 100):
		return fmt.Errorf("policy config: backoff %v is outside [0, 100]", c.Backoff)
	case !inRange(c.C, 0, 1e6):
		return fmt.Errorf("policy config: c %v is outside [0, 1e6]", c.C)
	case !inRange(c.MissHours, 0, 1e6):
		return fmt.Errorf("policy config: miss_hours %v is outside [0, 1e6]", c.MissHours)
	case !inRange(c.GuardShare, 0, 1):
		return fmt.Errorf("policy config: guard_share %v is outside [0, 1]", c.GuardShare)
	case !inRange(c.Shape, 0, 1):
		return fmt.Errorf("policy config: shape %v is outside [0, 1]", c.Shape)
	case c.WeekdayDays < 1 || c.WeekdayDays > 366:
		return fmt.Errorf("policy config: weekday_days %d is outside 1..366", c.WeekdayDays)
	}
	return nil
}

// inRange reports whether v is a number within [lo, hi]; NaN is not.
func inRange(v, lo, hi float64) bool {
	return !math.IsNaN(v) && v >= lo && v <= hi
}

// budgetFor is the number of polls per Period shared by n sources.
func (c Config) budgetFor(n int) int {
	if c.Budget > 0 {
		return c.Budget
	}
	return min(24*n, maxBudget)
}
