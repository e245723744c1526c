// Package dates reads the dates that people write on web pages and that
// feeds carry, leniently: RFC 822/1123 with named or numeric zones, ISO 8601
// in its common shapes, Unix ctime, American and European numeric forms,
// month names in English and in the main Western European languages,
// ordinals, leading weekdays, "@" and "at" before the time, and so on.
//
// Pages written by hand rarely follow one standard, and a date that cannot
// be read costs the feed its ordering, so Parse tries hard; but it never
// guesses a value from a string that does not contain a whole calendar date.
package dates

import (
	"strings"
	"time"
)

// maxLen bounds the input that Parse considers: no real date is longer, and
// a bound keeps the work per call small whatever a page holds.
const maxLen = 256

// Parse reads s as a date, with or without a time of day. A value without a
// zone is read in loc (nil means UTC); a date without a time is midnight.
//
// Numeric dates whose day and month could be swapped are read day first
// ("08.12.2005", "08/12/2005": 8 December), as most of the world writes
// them, except that with slashes or dashes they are read month first
// ("12/08/2005": December 8) when loc is UTC (no better hint; the common
// convention of date software) or a zone of the United States or the
// Philippines, where people write them so. Dots are always day first.
// When the preferred reading is impossible (a month above 12) the other one
// is used. A weekday is ignored, even when it does not match the date.
func Parse(s string, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxLen {
		return time.Time{}, false
	}
	if t, ok := parseISO(s, loc); ok {
		return t, true
	}
	fields, zone, ok := normalize(s, monthFirst(loc))
	if !ok || len(fields) == 0 {
		return time.Time{}, false
	}
	if zone != nil {
		loc = zone
	}
	return parseFields(strings.Join(fields, " "), loc)
}

// monthFirst reports whether ambiguous numeric dates read month first for
// pages in this zone: UTC (no hint), the United States and the Philippines.
func monthFirst(loc *time.Location) bool {
	name := loc.String()
	if name == "UTC" || name == "" || name == "Local" || monthFirstZones[name] {
		return true
	}
	for _, prefix := range []string{"US/", "America/Indiana/", "America/Kentucky/", "America/North_Dakota/"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// parseFields tries the layout table on a normalized value.
func parseFields(v string, loc *time.Location) (time.Time, bool) {
	for _, layout := range layouts {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
