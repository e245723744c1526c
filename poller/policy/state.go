package policy

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// StateVersion is written in every State so a later layout can convert
// older ones. Version 2 added the weekday rates, the peak capacity,
// clusters, bursts, pushes and the zone; a version 1 state loads with
// those empty and learns them.
const StateVersion = 2

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
	// The hourly and weekday rates lean on the mean rate with the weight
	// of this many items (a Gamma prior): a busy source's pattern shows
	// within hours, a slow source's only once it has posted enough for
	// its hours or days to differ beyond chance.
	priorHourItems = 2.0
	priorDayItems  = 3.0
	dateSlack      = time.Minute
	maxImputed     = 1e6 // postings estimated lost by one overflowing poll, at most

	// Items closer than clusterGap (or a quarter of the mean gap between
	// postings, if shorter) belong to one cluster; the mean cluster size
	// tells a bursty source from a steady one. Poisson postings make
	// clusters of poissonCluster items on average by that rule.
	clusterGap     = 30 * time.Minute
	poissonCluster = 1.284
	// A poll that finds more items of the last burstWindow than the
	// model expects has found a burst in progress, whose excess rate then
	// fades with the time constant burstFade.
	burstWindow = 30 * time.Minute
	burstFade   = 15 * time.Minute
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
	// DayItems and DayExposure are the same per weekday (Sunday first),
	// counted in the source's own time zone (Zone).
	DayItems    [7]float64 `json:"day_items"`
	DayExposure [7]float64 `json:"day_exposure_h"`
	// Clusters and ClusterItems count the clusters of dated items (items
	// closer together than clusterGap) and the items in them, decayed
	// with HalfLife; LastItem is the newest item date seen, where the
	// next poll's cluster may continue.
	Clusters     float64 `json:"clusters"`
	ClusterItems float64 `json:"cluster_items"`
	// NewestItems and NewestHours give the rate of a document that shows
	// only its newest item: each dated new item counts over the time since
	// its date, and a poll finding nothing new over its whole interval
	// (decayed with HalfLife). The time before a new item's date is left
	// out, since any number may have scrolled out then.
	NewestItems float64   `json:"newest_items,omitempty"`
	NewestHours float64   `json:"newest_exposure_h,omitempty"`
	LastItem    time.Time `json:"last_item,omitzero"`
	// BurstRate is the excess rate (items an hour) of a burst found in
	// progress at BurstAt; it fades with burstFade.
	BurstRate float64   `json:"burst_rate_h,omitempty"`
	BurstAt   time.Time `json:"burst_at,omitzero"`
	// Zone is the time zone the weekday counts and the day history are
	// kept in: the source's own ("" for UTC).
	Zone string `json:"zone,omitempty"`
	// LastObservation is the last poll or push: everything posted before
	// it is known.
	LastObservation time.Time `json:"last_observation,omitzero"`
	// Pushes counts the pushes learnt from (see Pushed).
	Pushes int `json:"pushes,omitempty"`

	// Capacity is how many items the source showed at the last read;
	// PeakCapacity the most it showed lately, which is S (see
	// learnCapacity).
	Capacity     int     `json:"capacity,omitempty"`
	PeakCapacity float64 `json:"peak_capacity,omitempty"`

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
	// Location is the source's time zone, in which its weekdays are
	// counted; nil for UTC.
	Location *time.Location
}

// Push is what one push from a source's WebSub hub brought: the items it
// carried that were not seen before, and their dates when they have some.
type Push struct {
	At        time.Time // when the push arrived
	NewItems  int
	ItemDates []time.Time
	Location  *time.Location // as in Observation
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
	for d := range 7 {
		nonNeg(&s.DayItems[d])
		nonNeg(&s.DayExposure[d])
	}
	for _, v := range []*float64{&s.Clusters, &s.ClusterItems, &s.BurstRate, &s.NewestItems, &s.NewestHours} {
		nonNeg(v)
	}
	s.ClusterItems = max(s.ClusterItems, s.Clusters)
	s.Pushes = max(s.Pushes, 0)
	if !validZoneName(s.Zone) || s.Zone == "Local" {
		s.Zone = ""
	}
	s.ChangeIntervals = slices.DeleteFunc(s.ChangeIntervals, func(v float64) bool {
		return !(v > 0) || math.IsInf(v, 0)
	})
	if n := len(s.ChangeIntervals); n > maxChangeIntervals {
		s.ChangeIntervals = s.ChangeIntervals[n-maxChangeIntervals:]
	}
	s.Capacity = max(s.Capacity, 0)
	if !(s.PeakCapacity >= 0) || math.IsInf(s.PeakCapacity, 0) {
		s.PeakCapacity = 0
	}
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
// time. New items are placed at their own dates when the document gives
// plausible ones, or else spread over the time since the previous poll or
// push in proportion to the rates learnt so far.
func (s *State) Learn(o Observation) {
	s.Version = StateVersion
	at := o.At.UTC()
	prev := o.Previous.UTC()
	if o.Previous.IsZero() {
		prev = s.lastSeen()
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
		s.learnCapacity(at, o.ItemsSeen)
	}
	if o.Changed {
		s.learnChange(at)
	}
	s.learn(at, prev, newItems, o.ItemsSeen, o.ItemDates, o.Location)
	if at.After(s.LastRetrieval) {
		s.LastRetrieval = at
	}
}

// Pushed updates the state with one push from the source's hub: the items
// it carried are postings like those a poll finds, and the time since the
// previous poll or push was observed. A push is not a poll: the last
// retrieval, the capacity and the poll counts stay as they are, so a
// push-capable source still gets its safety polls (Config.PushSafety).
func (s *State) Pushed(p Push) {
	s.Version = StateVersion
	at := p.At.UTC()
	prev := s.lastSeen()
	if !prev.IsZero() && !prev.Before(at) {
		prev = time.Time{}
	}
	if s.Since.IsZero() {
		s.Since = at
	}
	newItems := max(p.NewItems, 0)
	s.Pushes++
	s.NewItems += newItems
	if prev.IsZero() && len(p.ItemDates) <= 1 {
		// Nothing observed before: the push only marks where observation
		// starts, as a first poll does.
		s.learn(at, time.Time{}, newItems, 0, nil, p.Location)
		return
	}
	s.learn(at, prev, newItems, 0, p.ItemDates, p.Location)
}

// lastSeen is the last poll or push.
func (s *State) lastSeen() time.Time {
	if s.LastObservation.After(s.LastRetrieval) {
		return s.LastObservation
	}
	return s.LastRetrieval
}

// learn is what polls and pushes share: decay the counts, place the new
// items, check for a change of rate, a cluster or a burst.
func (s *State) learn(at, prev time.Time, newItems, seen int, dates []time.Time, loc *time.Location) {
	s.setZone(loc, at)
	s.decay(at)
	switch {
	case !prev.IsZero():
		dated := s.learnPostings(prev, at, newItems, seen, dates, loc)
		s.learnClusters(dated)
		s.learnBurst(at, dated, loc)
	case len(dates) > 1:
		s.bootstrap(at, dates, loc)
	default:
		s.extendDays(at, loc)
	}
	if at.After(s.LastObservation) {
		s.LastObservation = at
	}
}

// learnCapacity updates S with a document showing `seen` items. A window
// bound by a count shows the same number every time; one bound by time
// (the items of the last day) shows more after a busy day and fewer after
// a quiet one, and can hold what its busiest days brought. So besides the
// count last read (Capacity), PeakCapacity keeps the most shown lately: it
// takes a larger count at once and comes down to smaller ones with
// HalfLife, so that a source that shortens its feed is believed within
// weeks.
func (s *State) learnCapacity(at time.Time, seen int) {
	peak := s.PeakCapacity
	if last := s.LastRetrieval; !last.IsZero() && at.After(last) && peak > float64(seen) {
		peak = float64(seen) + (peak-float64(seen))*math.Exp2(-float64(at.Sub(last))/float64(HalfLife))
	}
	s.PeakCapacity = max(peak, float64(seen))
	s.Capacity = seen
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

// decay fades the counts by the time since the last poll or push.
func (s *State) decay(at time.Time) {
	last := s.lastSeen()
	if last.IsZero() || !at.After(last) {
		return
	}
	f := math.Exp2(-float64(at.Sub(last)) / float64(HalfLife))
	s.Items *= f
	s.Exposure *= f
	for h := range 24 {
		s.HourItems[h] *= f
		s.HourExposure[h] *= f
	}
	for d := range 7 {
		s.DayItems[d] *= f
		s.DayExposure[d] *= f
	}
	s.Clusters *= f
	s.ClusterItems *= f
	s.NewestItems *= f
	s.NewestHours *= f
}

// learnPostings attributes the new items found at `at` to the hours and
// weekdays of (from, at], and returns the dates it placed them at.
func (s *State) learnPostings(from, at time.Time, newItems, seen int, dates []time.Time, loc *time.Location) []time.Time {
	if at.Sub(from) > maxSpread*time.Hour {
		from = at.Add(-maxSpread * time.Hour)
	}
	dated := datesWithin(dates, from, at)
	count := float64(newItems)
	s.extendDays(at, loc)
	perDay := map[int64]float64{}
	if seen > 0 && newItems >= seen {
		// The document was all new: more may have scrolled out unseen, so
		// the count is only a lower bound. With dates, the items shown
		// give the rate of their own span, (n−1)/span (the oldest only
		// marks where it starts), and the postings of the time before the
		// oldest, which scrolled out, are estimated at that rate. Without
		// dates, assume as many again were lost (polls then come sooner
		// until the document stops overflowing).
		//
		// A document showing only its newest item has no span to measure:
		// its rate is NewestItems/NewestHours (see newestRate), and the
		// postings of the time before the item's date are estimated at it.
		// Doubling instead learnt a source posting 290 a day that shows
		// one item at about one posting per poll interval (issue 17).
		n := len(dated)
		switch {
		case n == newItems && n > 1 && dated[0].After(from) && at.After(dated[0]):
			local := float64(n-1) / at.Sub(dated[0]).Hours()
			lost := min(local*dated[0].Sub(from).Hours(), maxImputed)
			maps.Copy(perDay, s.spread(from, dated[0], lost, loc))
			from, count = dated[0], float64(n)
		case n == 1 && seen == 1 && dated[0].After(from) && at.After(dated[0]):
			s.NewestItems++
			s.NewestHours += at.Sub(dated[0]).Hours()
			if local, ok := s.newestRate(); ok {
				lost := min(local*dated[0].Sub(from).Hours(), maxImputed)
				maps.Copy(perDay, s.spread(from, dated[0], lost, loc))
			}
			from = dated[0]
		default:
			count *= 2
		}
	} else if seen == 1 && newItems == 0 {
		s.NewestHours += at.Sub(from).Hours()
	}
	undated := max(count-float64(len(dated)), 0)
	for d, v := range s.spread(from, at, undated, loc) {
		perDay[d] += v
	}
	offset := zoneOffset(loc, at)
	for _, d := range dated {
		s.countItem(d, offset, 1)
		perDay[dayNumberIn(d, loc)]++
	}
	s.markDays(perDay)
	return dated
}

// newestRate is the rate, in items an hour, of a document that shows only
// its newest item, once it has shown more than one: the items over the
// time observed, where a new item's time runs from its date (a censored
// observation). The time since the newest posting has mean 1/λ when
// postings are Poisson (at most the poll interval), so this ratio is
// consistent where counting the item over the whole interval is not.
// A single item is not enough: one over the minutes since it would make
// any source look frantic.
func (s *State) newestRate() (float64, bool) {
	if s.NewestItems <= 1 || s.NewestHours <= 0 {
		return 0, false
	}
	return s.NewestItems / s.NewestHours, true
}

// countItem adds an item (or a share of one) posted at t to every count.
func (s *State) countItem(t time.Time, offset int64, share float64) {
	s.Items += share
	s.HourItems[t.Hour()] += share
	s.DayItems[localWeekday(t, offset)] += share
}

// bootstrap learns from the dates of a first retrieval: the document's
// items tell how often and when the source posted before Dynamo knew it.
// The oldest item only marks where the observation starts, so n dates
// count as n−1 postings.
func (s *State) bootstrap(at time.Time, dates []time.Time, loc *time.Location) {
	from := at.Add(-maxDays * 24 * time.Hour)
	dated := datesWithin(dates, from, at)
	if len(dated) < 2 {
		s.extendDays(at, loc)
		return
	}
	start := dated[0]
	s.Since = start
	s.DaysStart, s.Days = "", ""
	s.extendDaysFrom(start, at, loc)
	perDay := s.spread(start, at, 0, loc)
	perDay[dayNumberIn(start, loc)]++
	offset := zoneOffset(loc, at)
	for _, d := range dated[1:] {
		s.countItem(d, offset, 1)
		perDay[dayNumberIn(d, loc)]++
	}
	s.markDays(perDay)
	s.learnClusters(dated)
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

// spread adds (from, at] to the exposures, hour by hour, and shares count
// items among its hours in proportion to the rates learnt so far. It
// returns the expected items per (local) day, to mark the weekday
// history.
func (s *State) spread(from, at time.Time, count float64, loc *time.Location) map[int64]float64 {
	m := s.model(loc, at)
	perDay := map[int64]float64{}
	var total float64
	m.eachPiece(from, at, func(start time.Time, hours, rate float64, weekday int) {
		total += rate * hours
	})
	m.eachPiece(from, at, func(start time.Time, hours, rate float64, weekday int) {
		h := start.Hour()
		s.HourExposure[h] += hours
		s.Exposure += hours
		s.DayExposure[weekday] += hours
		if count > 0 && total > 0 {
			share := count * rate * hours / total
			s.Items += share
			s.HourItems[h] += share
			s.DayItems[weekday] += share
			perDay[dayNumberIn(start, loc)] += share
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
	// Items that come in clusters are fewer independent observations:
	// the prior weighs as many clusters.
	prior := priorHourItems * s.ClusterSize()
	var r [24]float64
	for h := range 24 {
		r[h] = max((s.HourItems[h]+prior)/(s.HourExposure[h]+prior/mean), HourlyFloor)
	}
	return r
}

// Expected is the expected number of postings in (from, to]: the integral
// of the hourly rates over that time.
func (s *State) Expected(from, to time.Time) float64 {
	return expected(s.HourlyRates(), from, to)
}

// DayFactors are the weekday factors of the rate (Sunday first), in the
// source's time zone: how much busier than its average the source is on
// each day of the week. They average 1 and lean on 1 for the first day
// observed of each weekday.
func (s *State) DayFactors() [7]float64 {
	var f [7]float64
	var items, exposure float64
	for d := range 7 {
		items += s.DayItems[d]
		exposure += s.DayExposure[d]
	}
	if items <= 0 || exposure <= 0 {
		for d := range f {
			f[d] = 1
		}
		return f
	}
	mean := items / exposure
	prior := priorDayItems * s.ClusterSize()
	var sum float64
	for d := range 7 {
		f[d] = (s.DayItems[d] + prior) / (s.DayExposure[d] + prior/mean) / mean
		sum += f[d]
	}
	for d := range f {
		f[d] *= 7 / sum
	}
	return f
}

// ClusterSize is the mean number of items a source posts together (within
// clusterGap of each other) beyond what steady posting at its rate would
// give: 1 for a steady source, more for one that posts in bursts.
func (s *State) ClusterSize() float64 {
	const prior = 2 // clusters of one item
	c := (s.ClusterItems + prior) / (s.Clusters + prior) / poissonCluster
	return max(c, 1)
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
	switch {
	case s.PeakCapacity >= 1:
		return int(math.Round(min(s.PeakCapacity, maxCapacity)))
	case s.Capacity > 0:
		return s.Capacity // a state learnt before PeakCapacity existed
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

// Steady is the state learnt of a source that posts ratePerDay items a
// day, as steadily at every hour and on every day, shows capacity items
// and was last polled at last, observed for so long (a thousand years'
// worth of exposure) that the rates carry no prior's weight. It is what
// `dynamo policy rank` ranks, and a fixture for what-if questions.
func Steady(ratePerDay float64, capacity int, last time.Time) State {
	const hours = 1000 * 365 * 24.0
	perHour := max(ratePerDay, 0) / 24
	s := State{
		Version:         StateVersion,
		Since:           last.AddDate(-1, 0, 0).UTC(),
		LastRetrieval:   last.UTC(),
		LastObservation: last.UTC(),
		Items:           perHour * hours,
		Exposure:        hours,
		Capacity:        capacity,
		PeakCapacity:    float64(capacity),
		Polls:           1,
	}
	for h := range 24 {
		s.HourItems[h] = perHour * hours / 24
		s.HourExposure[h] = hours / 24
	}
	for d := range 7 {
		s.DayItems[d] = perHour * hours / 7
		s.DayExposure[d] = hours / 7
	}
	return s
}
