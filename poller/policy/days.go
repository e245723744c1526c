package policy

import (
	"fmt"
	"strings"
	"time"
)

// Days are counted in the source's own time zone (State.Zone): a source
// in Paris that publishes on Mondays publishes on Paris's Mondays, which
// begin on Sunday 23:00 UTC. A day is a civil date, numbered from
// 1970-01-01; the hourly rates stay in UTC, where hours are hours.

// dayNumberIn is the number of the civil date of t in loc (nil: UTC),
// counted from 1970-01-01.
func dayNumberIn(t time.Time, loc *time.Location) int64 {
	if loc != nil {
		t = t.In(loc)
	} else {
		t = t.UTC()
	}
	y, m, d := t.Date()
	return floorDiv(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix(), 86400)
}

// dayDate is day n as midnight UTC of its civil date.
func dayDate(n int64) time.Time {
	return time.Unix(n*86400, 0).UTC()
}

// localMidnight is the start of civil day n in loc.
func localMidnight(n int64, loc *time.Location) time.Time {
	if loc == nil {
		return dayDate(n)
	}
	y, m, d := dayDate(n).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// zoneOffset is loc's offset from UTC at t, in seconds east.
func zoneOffset(loc *time.Location, t time.Time) int64 {
	if loc == nil {
		return 0
	}
	_, off := t.In(loc).Zone()
	return int64(off)
}

// localWeekday is t's weekday (Sunday 0) at a fixed offset from UTC:
// cheaper than converting t to a zone, for the many pieces of time the
// rate model integrates over.
func localWeekday(t time.Time, offset int64) int {
	days := floorDiv(t.Unix()+offset, 86400)
	return int((days%7 + 7 + 4) % 7) // 1 January 1970 was a Thursday
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// zoneName is how State.Zone records loc: "" for UTC, the zone's name
// (an IANA name such as Europe/Paris, or UTC±HH:MM), or, for a zone
// without a name, UTC±HH:MM from its offset at t.
func zoneName(loc *time.Location, t time.Time) string {
	if loc == nil || loc == time.UTC {
		return ""
	}
	if name := loc.String(); name != "" && name != "Local" && name != "UTC" && validZoneName(name) {
		return name
	}
	off := zoneOffset(loc, t)
	if off == 0 {
		return ""
	}
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("UTC%c%02d:%02d", sign, off/3600, off%3600/60)
}

// validZoneName reports whether name could name a zone: IANA names are
// letters, digits and _ + - / only. It reads no zone database, so that
// loading a state stays cheap; zoneByName does.
func validZoneName(name string) bool {
	if len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_+-/:", c)) {
			return false
		}
	}
	return true
}

// zoneByName is the location State.Zone names: UTC for "", a fixed
// offset for UTC±HH:MM, else the IANA zone.
func zoneByName(name string) (*time.Location, error) {
	switch {
	case name == "" || name == "UTC":
		return time.UTC, nil
	case strings.HasPrefix(name, "UTC+") || strings.HasPrefix(name, "UTC-"):
		t, err := time.Parse("-07:00", name[3:])
		if err != nil {
			return nil, fmt.Errorf("zone %q: %w", name, err)
		}
		_, off := t.Zone()
		return time.FixedZone(name, off), nil
	case name == "Local" || !validZoneName(name):
		return nil, fmt.Errorf("zone %q is not a zone name", name)
	}
	return time.LoadLocation(name)
}

// location is the zone the state counts its days in.
func (s *State) location() *time.Location {
	loc, err := zoneByName(s.Zone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// setZone makes loc the zone of the weekday counts. When the zone
// changes, the weekday rates start afresh (their days no longer line up);
// the day history is kept, off by the difference at its edges.
func (s *State) setZone(loc *time.Location, at time.Time) {
	name := zoneName(loc, at)
	if name == s.Zone {
		return
	}
	s.DayItems, s.DayExposure = [7]float64{}, [7]float64{}
	s.Zone = name
}

// daysStart is the day number of DaysStart, if set.
func (s *State) daysStart() (int64, bool) {
	t, err := time.Parse(time.DateOnly, s.DaysStart)
	if err != nil {
		return 0, false
	}
	return dayNumberIn(t, nil), true
}

// extendDays makes the day history reach the day of at, starting it on
// the day of Since when there is none yet.
func (s *State) extendDays(at time.Time, loc *time.Location) {
	anchor := s.Since
	if anchor.IsZero() || anchor.After(at) {
		anchor = at
	}
	s.extendDaysFrom(anchor, at, loc)
}

// extendDaysFrom makes the day history reach the day of at, starting it
// on the day of anchor when there is none yet, and keeps only the latest
// maxDays days.
func (s *State) extendDaysFrom(anchor, at time.Time, loc *time.Location) {
	start, ok := s.daysStart()
	if !ok {
		start = dayNumberIn(anchor, loc)
		s.Days = ""
	}
	last := dayNumberIn(at, loc)
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

// History is the weekday history as of now in loc (nil: the state's own
// zone): the first day recorded, one flag per complete day from it to
// yesterday (did the source publish that day), and whether an update was
// already seen today. Days the state has not reached yet (no poll since)
// count as days without updates.
func (s *State) History(now time.Time, loc *time.Location) (start time.Time, days []bool, today bool) {
	if loc == nil {
		loc = s.location()
	}
	first, ok := s.daysStart()
	todayN := dayNumberIn(now, loc)
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
