package policy

import (
	"math"
	"time"
)

// model is a source's posting rate as learnt, ready to integrate over
// time: at a moment t it expects
//
//	r(t) = hourly[hour of t, UTC] × day[weekday of t, the source's zone]
//	       + BurstRate · e^(−(t − BurstAt)/burstFade)
//
// items an hour. The hourly rates carry the level and the time of day;
// the weekday factors, which average 1, the week; the burst term, a burst
// found in progress.
type model struct {
	hourly    [24]float64 // items an hour at each UTC hour, averaged over the week
	day       [7]float64  // weekday factors, mean 1, Sunday first
	offset    int64       // the zone's offset from UTC, seconds east
	burstRate float64
	burstAt   time.Time
}

// model builds the rate model with the weekdays of loc (nil: UTC), whose
// offset is taken at `at`.
func (s *State) model(loc *time.Location, at time.Time) model {
	m := model{
		hourly:    s.HourlyRates(),
		day:       s.DayFactors(),
		offset:    zoneOffset(loc, at),
		burstRate: s.BurstRate,
		burstAt:   s.BurstAt,
	}
	return m
}

// eachPiece calls fn for each piece of (from, to] cut at whole UTC hours,
// with the piece's start, its length in hours, the pattern's rate in it
// (without the burst term) and its weekday in the source's zone.
func (m *model) eachPiece(from, to time.Time, fn func(start time.Time, hours, rate float64, weekday int)) {
	forEachHour(from.UTC(), to.UTC(), func(start time.Time, hours float64) {
		wd := localWeekday(start, m.offset)
		fn(start, hours, m.hourly[start.Hour()]*m.day[wd], wd)
	})
}

// integrate gives, over (from, to], the postings expected and their
// expected waiting at `to`, in item-hours: ∫ r(s) ds and ∫ r(s)·(to − s) ds.
// It walks whole UTC hours in float arithmetic: planning calls it for
// every source every cycle.
func (m *model) integrate(from, to time.Time) (expected, waited float64) {
	if !to.After(from) {
		return 0, 0
	}
	a, b := unixHours(from), unixHours(to)
	offsetHours := float64(m.offset) / 3600
	for a < b {
		hour := math.Floor(a)
		end := min(hour+1, b)
		h := int(int64(hour) % 24)
		if h < 0 {
			h += 24
		}
		days := int64(math.Floor((a + offsetHours) / 24))
		wd := int((days%7 + 7 + 4) % 7) // 1 January 1970 was a Thursday
		piece := m.hourly[h] * m.day[wd] * (end - a)
		expected += piece
		waited += piece * (b - (a+end)/2)
		a = end
	}
	e, w := m.burst(from, to)
	return expected + e, waited + w
}

// unixHours is t in hours since the Unix epoch.
func unixHours(t time.Time) float64 {
	return float64(t.Unix())/3600 + float64(t.Nanosecond())/3.6e12
}

// burst integrates the burst term over (from, to]: with u the time since
// BurstAt and τ = burstFade, ∫ R·e^(−u/τ) du and ∫ R·e^(−u/τ)·(to − u) du.
func (m *model) burst(from, to time.Time) (expected, waited float64) {
	if m.burstRate <= 0 || !to.After(m.burstAt) {
		return 0, 0
	}
	if from.Before(m.burstAt) {
		from = m.burstAt
	}
	tau := burstFade.Hours()
	a := from.Sub(m.burstAt).Hours()
	c := to.Sub(m.burstAt).Hours()
	ea, ec := math.Exp(-a/tau), math.Exp(-c/tau)
	expected = m.burstRate * tau * (ea - ec)
	// ∫ u·e^(−u/τ) du from a to c = τ·[(a+τ)e^(−a/τ) − (c+τ)e^(−c/τ)]
	moment := m.burstRate * tau * ((a+tau)*ea - (c+tau)*ec)
	waited = c*expected - moment
	return expected, max(waited, 0)
}

// Expecting is what the rate model expects of a source between from and
// to, in the source's time zone loc (nil: the state's own): the postings
// and their waiting at `to` in item-hours. Policies rank sources by it;
// `dynamo policy rank` shows it.
func (s *State) Expecting(from, to time.Time, loc *time.Location) (postings, waiting float64) {
	if loc == nil {
		loc = s.location()
	}
	m := s.model(loc, to)
	return m.integrate(from, to)
}

// learnClusters counts the clusters among the dated items of a poll or
// push (sorted): items within clusterGap of the previous one, or a
// quarter of the mean gap between postings if shorter, continue its
// cluster, which may have begun before this poll (LastItem).
func (s *State) learnClusters(dated []time.Time) {
	if len(dated) == 0 {
		return
	}
	gap := clusterGap
	if r := s.Rate(); r > 0 {
		gap = min(gap, time.Duration(0.25*24/r*float64(time.Hour)))
	}
	prev := s.LastItem
	for _, d := range dated {
		if prev.IsZero() || d.Sub(prev) > gap {
			s.Clusters++
		}
		s.ClusterItems++
		if d.After(prev) {
			prev = d
		}
	}
	s.LastItem = prev
}

// learnBurst looks for a burst in progress: more items dated within the
// last burstWindow before `at` than the pattern expects, by at least two
// and two standard deviations. The excess becomes the burst term's rate,
// fading with burstFade: the next items of a burst come within minutes.
func (s *State) learnBurst(at time.Time, dated []time.Time, loc *time.Location) {
	recent := 0
	for _, d := range dated {
		if d.After(at.Add(-burstWindow)) {
			recent++
		}
	}
	if recent < 2 {
		return
	}
	m := s.model(loc, at)
	m.burstRate = 0
	exp, _ := m.integrate(at.Add(-burstWindow), at)
	excess := float64(recent) - exp
	if excess < 2 || excess < 2*math.Sqrt(exp) {
		return
	}
	s.BurstRate = excess / burstWindow.Hours()
	s.BurstAt = at
}
