package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"
)

// StateVersion is written in every State so a later layout can convert
// older ones.
const StateVersion = 1

// Learning constants. They belong to the state, not to a policy: every
// policy reads the same learnt state, whichever was active when it was
// learnt.
const (
	// HalfLife is how fast old observations fade from the posting rates:
	// an observation counts half as much 14 days later. Long enough to
	// average over two weeks of weekly rhythm, short enough to follow a
	// source that changes its habits within a month.
	HalfLife = 14 * 24 * time.Hour
	// HourlyFloor (items per hour) keeps every hourly rate above zero, so
	// a source that has been silent for a while still gathers rank and is
	// polled again: about one item in six weeks.
	HourlyFloor = 0.001
	// DefaultCapacity is the capacity assumed before a source was read.
	DefaultCapacity = 10

	maxChangeIntervals = 32       // change intervals kept for smart's τ
	maxDays            = 52 * 7   // days of weekday history kept
	maxSpread          = 366 * 24 // hours an observation is spread over at most
	priorRate          = 1.0      // items per day assumed before any observation
	priorHours         = 24.0     // weight of that prior, in hours of observation
	priorHourWeight    = 1.0      // weight of the mean rate in each hourly rate, in hours
	dateSlack          = time.Minute
)

// State is what Dynamo has learnt about one source's posting habits. It is
// updated after every successful poll by Learn, whatever the policy, and
// read by every policy; it is stored as JSON in dynamo.PollState.Schedule.
//
// Rates are exponentially decayed counts over exposure (time observed), so
// irregular polling weighs every hour observed the same and old habits
// fade with HalfLife.
type State struct {
	Version int `json:"v"`
	// Since is the first poll that taught anything.
	Since time.Time `json:"since,omitzero"`
	// LastRetrieval is the last successful poll.
	LastRetrieval time.Time `json:"last_retrieval,omitzero"`
	// LastChange is the last poll that found changed content.
	LastChange time.Time `json:"last_change,omitzero"`
	// ChangeIntervals are the latest observed intervals between content
	// changes, in seconds, oldest first. Smart folds them into τ with the
	// α configured at the time of asking.
	ChangeIntervals []float64 `json:"change_intervals_s,omitempty"`

	// Items and Exposure give the posting rate λ: decayed count of new
	// items over decayed hours observed.
	Items    float64 `json:"items"`
	Exposure float64 `json:"exposure_h"`
	// HourItems and HourExposure are the same per hour of day (UTC).
	HourItems    [24]float64 `json:"hour_items"`
	HourExposure [24]float64 `json:"hour_exposure_h"`

	// Capacity S is how many items the source shows, as last read.
	Capacity int `json:"capacity,omitempty"`

	// DaysStart (YYYY-MM-DD, UTC) and Days record which days had updates:
	// Days[i] is '1' if the day DaysStart+i had one, else '0'.
	DaysStart string `json:"days_start,omitempty"`
	Days      string `json:"days,omitempty"`

	Polls    int `json:"polls"`     // successful polls learnt from
	Changes  int `json:"changes"`   // polls that found changed content
	NewItems int `json:"new_items"` // items first seen, in total

	// Errors counts consecutive failed polls; RetryAt is when the back-off
	// after them ends. Both clear on the next success.
	Errors  int       `json:"errors,omitempty"`
	RetryAt time.Time `json:"retry_at,omitzero"`
	// NotBefore is the origin's own freshness floor from the last retrieval
	// (Cache-Control max-age, Expires, RSS ttl): no policy polls earlier.
	NotBefore time.Time `json:"not_before,omitzero"`
}

// Observation is what one successful poll saw.
type Observation struct {
	At time.Time // when the poll happened
	// Previous is the previous successful poll; zero means the state's own
	// LastRetrieval, which is right unless the state was lost.
	Previous  time.Time
	NewItems  int  // items not seen before
	ItemsSeen int  // items the document holds: its capacity as served
	Changed   bool // a new version was stored
	// ItemDates are the publication dates of the new items, when the
	// document gives them; they place postings at their real hour.
	ItemDates []time.Time
	// NotBefore is the origin's freshness floor (Cache-Control, Expires,
	// RSS ttl), zero if none.
	NotBefore time.Time
}

// LoadState reads a stored state. An empty or null document is a fresh
// state. Values no Learn could have written (negative counts, days other
// than '0' and '1') are repaired rather than refused, so one bad row never
// stops a source from being polled; malformed JSON is an error, after
// which the poller should start afresh.
func LoadState(raw json.RawMessage) (State, error) {
	var s State
	if len(raw) == 0 || string(raw) == "null" {
		return State{Version: StateVersion}, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return State{Version: StateVersion}, fmt.Errorf("schedule state: %w", err)
	}
	s.repair()
	return s, nil
}

// MarshalState encodes a state for dynamo.PollState.Schedule.
func MarshalState(s State) (json.RawMessage, error) {
	s.Version = StateVersion
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("schedule state: %w", err)
	}
	return b, nil
}

// repair clamps what a corrupted or hand-edited state could hold.
func (s *State) repair() {
	s.Version = StateVersion
	nonNeg := func(v *float64) {
		if math.IsNaN(*v) || *v < 0 || math.IsInf(*v, 0) {
			*v = 0
		}
	}
	nonNeg(&s.Items)
	nonNeg(&s.Exposure)
	for h := range 24 {
		nonNeg(&s.HourItems[h])
		nonNeg(&s.HourExposure[h])
	}
	s.ChangeIntervals = slices.DeleteFunc(s.ChangeIntervals, func(v float64) bool {
		return !(v > 0) || math.IsInf(v, 0)
	})
	if n := len(s.ChangeIntervals); n > maxChangeIntervals {
		s.ChangeIntervals = s.ChangeIntervals[n-maxChangeIntervals:]
	}
	s.Capacity = max(s.Capacity, 0)
	s.Polls, s.Changes, s.NewItems, s.Errors = max(s.Polls, 0), max(s.Changes, 0), max(s.NewItems, 0), max(s.Errors, 0)
	if _, err := time.Parse(time.DateOnly, s.DaysStart); err != nil {
		s.DaysStart, s.Days = "", ""
	}
	days := []byte(s.Days)
	for i, c := range days {
		if c != '1' {
			days[i] = '0'
		}
	}
	if drop := len(days) - maxDays; drop > 0 {
		start, _ := s.daysStart()
		days = days[drop:]
		s.DaysStart = dayDate(start + int64(drop)).Format(time.DateOnly)
	}
	s.Days = string(days)
}

// Learn updates the state with one successful poll. It is called after
// every poll whatever the policy, so that any policy can take over at any
// time. New items are spread over the hours since the previous retrieval
// in proportion to the hourly rates learnt so far, or placed at their own
// dates when the document gives plausible ones.
func (s *State) Learn(o Observation) {
	s.Version = StateVersion
	at := o.At.UTC()
	prev := o.Previous.UTC()
	if o.Previous.IsZero() {
		prev = s.LastRetrieval
	}
	if !prev.IsZero() && !prev.Before(at) {
		prev = time.Time{} // a clock going backwards teaches nothing about time
	}
	if s.Since.IsZero() {
		s.Since = at
	}
	newItems := max(o.NewItems, 0)
	s.Polls++
	s.NewItems += newItems
	s.Errors, s.RetryAt = 0, time.Time{}
	s.NotBefore = o.NotBefore.UTC()
	if o.ItemsSeen > 0 {
		s.Capacity = o.ItemsSeen
	}
	if o.Changed {
		s.learnChange(at)
	}
	s.decay(at)
	switch {
	case !prev.IsZero():
		s.learnPostings(prev, at, newItems, o.ItemsSeen, o.ItemDates)
	case len(o.ItemDates) > 1:
		s.bootstrap(at, o.ItemDates)
	default:
		s.extendDays(at)
	}
	if at.After(s.LastRetrieval) {
		s.LastRetrieval = at
	}
}

// Fail records a failed poll and sets RetryAt by Backoff. The caller gives
// the random source so that runs (and tests) are reproducible.
func (s *State) Fail(at time.Time, cfg Config, rnd Rand) {
	s.Version = StateVersion
	s.Errors++
	s.RetryAt = at.UTC().Add(Backoff(s.Errors, cfg, rnd))
}

// learnChange records a content change for smart.
func (s *State) learnChange(at time.Time) {
	if !s.LastChange.IsZero() && at.After(s.LastChange) {
		s.ChangeIntervals = append(s.ChangeIntervals, at.Sub(s.LastChange).Seconds())
		if n := len(s.ChangeIntervals); n > maxChangeIntervals {
			s.ChangeIntervals = slices.Delete(s.ChangeIntervals, 0, n-maxChangeIntervals)
		}
	}
	if at.After(s.LastChange) {
		s.LastChange = at
	}
	s.Changes++
}

// decay fades the counts by the time since the last retrieval.
func (s *State) decay(at time.Time) {
	if s.LastRetrieval.IsZero() || !at.After(s.LastRetrieval) {
		return
	}
	f := math.Exp2(-float64(at.Sub(s.LastRetrieval)) / float64(HalfLife))
	s.Items *= f
	s.Exposure *= f
	for h := range 24 {
		s.HourItems[h] *= f
		s.HourExposure[h] *= f
	}
}

// learnPostings attributes the new items found at `at` to the hours of
// (from, at].
func (s *State) learnPostings(from, at time.Time, newItems, seen int, dates []time.Time) {
	if at.Sub(from) > maxSpread*time.Hour {
		from = at.Add(-maxSpread * time.Hour)
	}
	dated := datesWithin(dates, from, at)
	count := float64(newItems)
	if seen > 0 && newItems >= seen {
		// The document was all new: more may have scrolled out unseen, so
		// the count is only a lower bound. With dates, the oldest new item
		// says how far back the document reaches, and the time before it
		// is simply not observed; without, assume as many again were lost
		// (polls then come sooner until the document stops overflowing).
		if len(dated) == newItems && newItems > 0 {
			from = dated[0]
		} else {
			count *= 2
		}
	}
	undated := max(count-float64(len(dated)), 0)
	s.extendDays(at)
	perDay := s.spread(from, at, undated)
	for _, d := range dated {
		h := d.Hour()
		s.HourItems[h]++
		s.Items++
		perDay[dayNumber(d)]++
	}
	s.markDays(perDay)
}

// bootstrap learns from the dates of a first retrieval: the document's
// items tell how often and when the source posted before Dynamo knew it.
// The oldest item only marks where the observation starts, so n dates
// count as n−1 postings.
func (s *State) bootstrap(at time.Time, dates []time.Time) {
	from := at.Add(-maxDays * 24 * time.Hour)
	dated := datesWithin(dates, from, at)
	if len(dated) < 2 {
		s.extendDays(at)
		return
	}
	start := dated[0]
	s.Since = start
	s.DaysStart, s.Days = "", ""
	s.extendDaysFrom(start, at)
	perDay := s.spread(start, at, 0)
	perDay[dayNumber(start)]++
	for _, d := range dated[1:] {
		s.HourItems[d.Hour()]++
		s.Items++
		perDay[dayNumber(d)]++
	}
	s.markDays(perDay)
}

// datesWithin returns the dates that fall in [from−slack, at+slack],
// clamped into [from, at] and sorted. Dates outside are wrong clocks, time
// zones or back-dated posts, and are better spread by the rates.
func datesWithin(dates []time.Time, from, at time.Time) []time.Time {
	var in []time.Time
	for _, d := range dates {
		d = d.UTC()
		if d.Before(from.Add(-dateSlack)) || d.After(at.Add(dateSlack)) {
			continue
		}
		in = append(in, clampTime(d, from, at))
	}
	slices.SortFunc(in, func(a, b time.Time) int { return a.Compare(b) })
	return in
}

func clampTime(t, lo, hi time.Time) time.Time {
	if t.Before(lo) {
		return lo
	}
	if t.After(hi) {
		return hi
	}
	return t
}

// spread adds (from, at] to the exposure, hour by hour, and shares count
// items among its hours in proportion to the current hourly rates. It
// returns the expected items per day, to mark the weekday history.
func (s *State) spread(from, at time.Time, count float64) map[int64]float64 {
	rates := s.HourlyRates()
	perDay := map[int64]float64{}
	var total float64
	forEachHour(from, at, func(start time.Time, hours float64) {
		total += rates[start.Hour()] * hours
	})
	forEachHour(from, at, func(start time.Time, hours float64) {
		h := start.Hour()
		s.HourExposure[h] += hours
		s.Exposure += hours
		if count > 0 && total > 0 {
			share := count * rates[h] * hours / total
			s.HourItems[h] += share
			s.Items += share
			perDay[dayNumber(start)] += share
		}
	})
	return perDay
}

// forEachHour calls fn for each piece of (from, to] cut at whole UTC hours,
// with the piece's start and its length in hours.
func forEachHour(from, to time.Time, fn func(start time.Time, hours float64)) {
	for t := from; t.Before(to); {
		next := t.Truncate(time.Hour).Add(time.Hour)
		if next.After(to) {
			next = to
		}
		fn(t, next.Sub(t).Hours())
		t = next
	}
}

// Rate is the posting rate λ in items per day. Before any observation it
// is one a day; observations outweigh that prior within a day or two.
func (s *State) Rate() float64 {
	return 24 * (s.Items + priorRate*priorHours/24) / (s.Exposure + priorHours)
}

// HourlyRates are the expected new items per hour at each hour of day
// (UTC). Each leans on the mean rate for its first hour of observation and
// never drops below HourlyFloor.
func (s *State) HourlyRates() [24]float64 {
	mean := s.Rate() / 24
	var r [24]float64
	for h := range 24 {
		r[h] = max((s.HourItems[h]+mean*priorHourWeight)/(s.HourExposure[h]+priorHourWeight), HourlyFloor)
	}
	return r
}

// Expected is the expected number of postings in (from, to]: the integral
// of the hourly rates over that time.
func (s *State) Expected(from, to time.Time) float64 {
	return expected(s.HourlyRates(), from, to)
}

// expected integrates hourly rates over (from, to], whole days at once.
func expected(rates [24]float64, from, to time.Time) float64 {
	if !to.After(from) {
		return 0
	}
	var total float64
	if days := int(to.Sub(from) / (24 * time.Hour)); days > 0 {
		var daily float64
		for _, r := range rates {
			daily += r
		}
		total = float64(days) * daily
		from = from.Add(time.Duration(days) * 24 * time.Hour)
	}
	forEachHour(from.UTC(), to.UTC(), func(start time.Time, hours float64) {
		total += rates[start.Hour()] * hours
	})
	return total
}

// CapacityOrDefault is the learnt capacity, or DefaultCapacity before the
// source was read.
func (s *State) CapacityOrDefault() int {
	if s.Capacity > 0 {
		return s.Capacity
	}
	return DefaultCapacity
}

// Tau is smart's τ: the observed intervals between changes folded with
// τ(n+1) = α·τ(n) + (1−α)·t(n), starting from start.
func (s *State) Tau(alpha float64, start time.Duration) time.Duration {
	tau := start.Seconds()
	for _, t := range s.ChangeIntervals {
		tau = alpha*tau + (1-alpha)*t
	}
	return time.Duration(tau * float64(time.Second))
}

// PeakHour is the hour of day (UTC) with the highest posting rate, the
// earliest on ties: when the source usually publishes.
func (s *State) PeakHour() int {
	rates := s.HourlyRates()
	best := 0
	for h := 1; h < 24; h++ {
		if rates[h] > rates[best] {
			best = h
		}
	}
	return best
}

// floor is the earliest time the state allows a poll.
func (s *State) floor() time.Time {
	if s.RetryAt.After(s.NotBefore) {
		return s.RetryAt
	}
	return s.NotBefore
}
