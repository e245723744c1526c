package policy

import (
	"strings"
	"time"
)

// Days are counted in UTC, like the hourly rates: a source's local time
// zone only shifts its pattern, and counting in UTC keeps the learnt state
// independent of a zone setting that may change.

// dayNumber is the number of whole UTC days since the Unix epoch.
func dayNumber(t time.Time) int64 {
	u := t.Unix()
	d := u / 86400
	if u%86400 < 0 {
		d--
	}
	return d
}

// dayDate is the midnight (UTC) starting day n.
func dayDate(n int64) time.Time {
	return time.Unix(n*86400, 0).UTC()
}

// daysStart is the day number of DaysStart, if set.
func (s *State) daysStart() (int64, bool) {
	t, err := time.Parse(time.DateOnly, s.DaysStart)
	if err != nil {
		return 0, false
	}
	return dayNumber(t), true
}

// extendDays makes the day history reach the day of at, starting it on
// the day of Since when there is none yet.
func (s *State) extendDays(at time.Time) {
	anchor := s.Since
	if anchor.IsZero() || anchor.After(at) {
		anchor = at
	}
	s.extendDaysFrom(anchor, at)
}

// extendDaysFrom makes the day history reach the day of at, starting it
// on the day of anchor when there is none yet, and keeps only the latest
// maxDays days.
func (s *State) extendDaysFrom(anchor, at time.Time) {
	start, ok := s.daysStart()
	if !ok {
		start = dayNumber(anchor)
		s.Days = ""
	}
	last := dayNumber(at)
	if last < start {
		return
	}
	newStart := max(start, last-maxDays+1)
	kept := s.Days
	if shift := newStart - start; shift >= int64(len(kept)) {
		kept = ""
	} else {
		kept = kept[shift:]
	}
	if want := int(last - newStart + 1); want > len(kept) {
		kept += strings.Repeat("0", want-len(kept))
	}
	s.Days = kept
	s.DaysStart = dayDate(newStart).Format(time.DateOnly)
}

// markDays records the days that had updates, given the items each day is
// believed to have had: every day with at least one whole item, and
// always the day with the most (the earliest on ties), so that a single
// item spread thin over several days still marks one of them.
func (s *State) markDays(perDay map[int64]float64) {
	start, ok := s.daysStart()
	if !ok || len(perDay) == 0 {
		return
	}
	days := []byte(s.Days)
	best, bestShare := int64(0), 0.0
	for d, share := range perDay {
		if share > bestShare || (share == bestShare && share > 0 && d < best) {
			best, bestShare = d, share
		}
		if share >= 1 {
			setDay(days, d-start)
		}
	}
	if bestShare > 0 {
		setDay(days, best-start)
	}
	s.Days = string(days)
}

func setDay(days []byte, i int64) {
	if i >= 0 && i < int64(len(days)) {
		days[i] = '1'
	}
}

// History is the weekday history as of now: the first day recorded, one
// flag per complete day from it to yesterday (did the source publish that
// day), and whether an update was already seen today. Days the state has
// not reached yet (no poll since) count as days without updates.
func (s *State) History(now time.Time) (start time.Time, days []bool, today bool) {
	first, ok := s.daysStart()
	todayN := dayNumber(now)
	if !ok || first > todayN {
		return dayDate(todayN), nil, false
	}
	days = make([]bool, todayN-first)
	for i := range days {
		days[i] = i < len(s.Days) && s.Days[i] == '1'
	}
	if i := todayN - first; i < int64(len(s.Days)) {
		today = s.Days[i] == '1'
	}
	return dayDate(first), days, today
}
