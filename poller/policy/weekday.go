package policy

import "time"

// The weekday formula's constants. docs/SCHEDULING.md ("weekday") fixes
// α = 0.9 and U = 1, which forecastDay folds into whole-number arithmetic.
const (
	// WeekdayThreshold is the probability from which a day is predicted to
	// have an update.
	WeekdayThreshold = 0.5
	// weekdayWarmup is how many complete days of history the weekday
	// policy wants before it trusts its forecast; until then it polls
	// daily.
	weekdayWarmup = 7
)

// DayForecast is the weekday policy's probability that a source publishes
// on one coming day.
type DayForecast struct {
	Date time.Time // midnight UTC of the day
	P    float64
	// Likely is P ≥ WeekdayThreshold, decided in exact arithmetic: P is
	// a ratio of whole counts, and a float comparison could put a P of
	// exactly one half on either side.
	Likely bool
}

// Forecast gives, for each of the `days` days following a history, the
// probability that the source publishes that day:
//
//	P(d) = α·β(d)·U + (1−α)·Ū,  α = 0.9, U = 1
//
// history[i] says whether the source published on day start+i. For a
// coming day d, the coming days before d count as observed days without
// an update. Ū = days with updates / days observed (0 when none were
// observed). β(d) = the share of observed weeks with an update on d's
// weekday, where an observed week for weekday w is an observed day that
// falls on w; with no such day yet, β(d) = Ū (nothing is known of that
// weekday, so it is taken as average).
func Forecast(start time.Time, history []bool, days int) []DayForecast {
	start = dayDate(dayNumberIn(start, nil))
	var ones int64
	var seen, updated [7]int64
	first := int(start.Weekday())
	for i, published := range history {
		w := (first + i) % 7
		seen[w]++
		if published {
			ones++
			updated[w]++
		}
	}
	out := make([]DayForecast, max(days, 0))
	for j := range out {
		d := start.AddDate(0, 0, len(history)+j)
		w := d.Weekday()
		// The coming days before d that fall on d's weekday: one a week.
		weeks := seen[w] + int64(j/7)
		out[j] = forecastDay(d, ones, int64(len(history)+j), updated[w], weeks)
	}
	return out
}

// forecastDay is P for one day from whole counts: ones updates in
// observed days, of which weekUpdates in weeks days on the day's weekday.
// With β = weekUpdates/weeks and Ū = ones/observed,
// P = (9·β + Ū)/10 = (9·weekUpdates·observed + ones·weeks) / (10·weeks·observed),
// computed with a single rounding.
func forecastDay(d time.Time, ones, observed, weekUpdates, weeks int64) DayForecast {
	f := DayForecast{Date: d}
	if observed == 0 {
		return f
	}
	if weeks == 0 {
		// β = Ū: P = Ū.
		weekUpdates, weeks = ones, observed
	}
	num := 9*weekUpdates*observed + ones*weeks
	den := 10 * weeks * observed
	f.P = float64(num) / float64(den)
	f.Likely = 2*num >= den // P ≥ 1/2
	return f
}

// Predicted is the first forecast day whose P reaches WeekdayThreshold,
// and false when none does.
func Predicted(forecast []DayForecast) (time.Time, bool) {
	for _, f := range forecast {
		if f.Likely {
			return f.Date, true
		}
	}
	return time.Time{}, false
}

// weekday polls slow sources on the days they are likely to publish, at
// the end of the hour they usually publish in: the first of today and the
// next WeekdayDays days whose P reaches 0.5. A source unlikely to publish on
// any of them is checked on the last; one with less than a week of history
// is checked daily while it is learnt. Days are the source's own
// (Source.Location): a Paris source's Monday starts at Paris's midnight.
type weekday struct{ cfg Config }

func (weekday) Name() string   { return Weekday }
func (weekday) Budgeted() bool { return false }

func (p weekday) Next(src Source, now time.Time) time.Time {
	s := src.state()
	if s.LastRetrieval.IsZero() {
		return settle(now, now, &src)
	}
	if src.Push {
		return pushNext(p.cfg, src, now)
	}
	loc := src.Location
	if loc == nil {
		loc = s.location()
	}
	start, history, seenToday := s.History(now, loc)
	// Today and the WeekdayDays days after it, so that a weekly source
	// seen today is expected again on the last of them.
	forecast := Forecast(start, history, p.cfg.WeekdayDays+1)
	warming := len(history) < weekdayWarmup
	var fallback time.Time
	for j, f := range forecast {
		at := peakEnd(dayNumberIn(f.Date, nil), s.PeakHour(), loc)
		if !at.After(s.LastRetrieval) || (j == 0 && seenToday) {
			continue // already polled after that slot, or today is done
		}
		fallback = at
		if warming || f.Likely {
			return settle(at, now, &src)
		}
	}
	if fallback.IsZero() {
		// Every slot in the horizon is behind the last poll (a clock
		// skew): look again one horizon later.
		fallback = s.LastRetrieval.Add(time.Duration(p.cfg.WeekdayDays) * 24 * time.Hour)
	}
	return settle(fallback, now, &src)
}

// peakEnd is the end of the source's usual hour (peak, a UTC hour) within
// its local day n, when that hour's posting is most likely out.
func peakEnd(n int64, peak int, loc *time.Location) time.Time {
	midnight := localMidnight(n, loc)
	offsetHours := int(zoneOffset(loc, midnight.Add(12*time.Hour)) / 3600)
	local := ((peak+1+offsetHours)%24 + 24) % 24
	if local == 0 {
		local = 24
	}
	return midnight.Add(time.Duration(local) * time.Hour)
}

func (p weekday) Plan(sources []Source, now time.Time) Plan { return planEach(p, sources, now) }
