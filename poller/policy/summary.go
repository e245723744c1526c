package policy

import (
	"math"
	"time"
)

// Summary is what a source's learnt state says, in the units an operator
// reads: the admin API and the stats show it so that one can see why a
// source is scheduled as it is.
type Summary struct {
	Rate        float64     `json:"rate_per_day"` // λ, postings a day
	Capacity    int         `json:"capacity"`     // S, items shown (0: not read yet)
	HourlyRates [24]float64 `json:"hourly_rates"` // postings an hour at each UTC hour
	PeakHour    int         `json:"peak_hour"`    // the UTC hour it posts most in
	Tau         float64     `json:"tau_s"`        // smart's τ, seconds
	DaysStart   string      `json:"days_start"`   // first day of the weekday history
	Days        string      `json:"days"`         // one 0/1 a day: did it publish
	Next        string      `json:"weekday_next"` // weekday's predicted next update day, "" if none
	Polls       int         `json:"polls"`        // successful polls learnt from
	Errors      int         `json:"errors"`       // consecutive failed polls
	RetryAt     time.Time   `json:"retry_at,omitzero"`
}

// Summarize describes the state as of now, with smart's τ from cfg and
// the source's own interval (zero for cfg's).
func (s *State) Summarize(cfg Config, interval time.Duration, now time.Time) Summary {
	cfg = cfg.WithDefaults()
	if interval <= 0 {
		interval = cfg.Interval
	}
	sum := Summary{
		Rate:      round4(s.Rate()),
		Capacity:  s.Capacity,
		PeakHour:  s.PeakHour(),
		Tau:       math.Round(s.Tau(cfg.Alpha, interval).Seconds()),
		DaysStart: s.DaysStart,
		Days:      s.Days,
		Polls:     s.Polls,
		Errors:    s.Errors,
		RetryAt:   s.RetryAt,
	}
	for h, r := range s.HourlyRates() {
		sum.HourlyRates[h] = round4(r)
	}
	start, history, _ := s.History(now)
	if next, ok := Predicted(Forecast(start, history, cfg.WeekdayDays)); ok {
		sum.Next = next.Format(time.DateOnly)
	}
	return sum
}

// round4 keeps four decimals: the rates are estimates, and more digits
// would only hide them.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
