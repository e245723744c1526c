package policy

import (
	"math"
	"time"
)

// Summary is what a source's learnt state says, in the units an operator
// reads: the admin API and the stats show it so that one can see why a
// source is scheduled as it is. Numbers are given at full precision.
type Summary struct {
	Rate     float64 `json:"rate_per_day"` // λ, postings a day
	Capacity int     `json:"capacity"`     // items shown at the last read (0: not read yet)
	// PeakCapacity is S as the policies use it: the most items shown
	// lately (a window bound by time shows more after a busy day).
	PeakCapacity float64     `json:"peak_capacity"`
	HourlyRates  [24]float64 `json:"hourly_rates"` // postings an hour at each UTC hour
	PeakHour     int         `json:"peak_hour"`    // the UTC hour it posts most in
	// DayFactors are how much busier than average each weekday is
	// (Sunday first), in the source's zone (Zone, "" for UTC).
	DayFactors [7]float64 `json:"day_factors"`
	Zone       string     `json:"zone"`
	// ClusterSize is the mean number of items posted together (1 for a
	// steady source); BurstRate the excess rate of a burst found in
	// progress at the last poll, in items an hour, as it stands now.
	ClusterSize float64   `json:"cluster_size"`
	BurstRate   float64   `json:"burst_rate_h"`
	Tau         float64   `json:"tau_s"`        // smart's τ, seconds
	DaysStart   string    `json:"days_start"`   // first day of the weekday history
	Days        string    `json:"days"`         // one 0/1 a day: did it publish
	Next        string    `json:"weekday_next"` // weekday's predicted next update day, "" if none
	Polls       int       `json:"polls"`        // successful polls learnt from
	Pushes      int       `json:"pushes"`       // pushes learnt from
	Errors      int       `json:"errors"`       // consecutive failed polls
	RetryAt     time.Time `json:"retry_at,omitzero"`
}

// Summarize describes the state as of now, with smart's τ from cfg and
// the source's own interval (zero for cfg's).
func (s *State) Summarize(cfg Config, interval time.Duration, now time.Time) Summary {
	cfg = cfg.WithDefaults()
	if interval <= 0 {
		interval = cfg.Interval
	}
	sum := Summary{
		Rate:         s.Rate(),
		Capacity:     s.Capacity,
		PeakCapacity: s.PeakCapacity,
		HourlyRates:  s.HourlyRates(),
		PeakHour:     s.PeakHour(),
		DayFactors:   s.DayFactors(),
		Zone:         s.Zone,
		ClusterSize:  s.ClusterSize(),
		Tau:          s.Tau(cfg.Alpha, interval).Seconds(),
		DaysStart:    s.DaysStart,
		Days:         s.Days,
		Polls:        s.Polls,
		Pushes:       s.Pushes,
		Errors:       s.Errors,
		RetryAt:      s.RetryAt,
	}
	if now.After(s.BurstAt) && s.BurstRate > 0 {
		sum.BurstRate = s.BurstRate * math.Exp(-now.Sub(s.BurstAt).Hours()/burstFade.Hours())
	}
	start, history, _ := s.History(now, nil)
	if next, ok := Predicted(Forecast(start, history, cfg.WeekdayDays)); ok {
		sum.Next = next.Format(time.DateOnly)
	}
	return sum
}
