package dates_test

import (
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/dates"
)

// TestPartial: the values Parse reads as a whole year or month, which
// it keeps reading (W3C-DTF, docs/WRAPPER.md "Dates"), and which the
// suggester must not take for an item's day.
func TestPartial(t *testing.T) {
	for _, tc := range []struct {
		in      string
		partial bool
	}{
		{"2003", true}, {" 2003-12 ", true}, {"-03-12", true}, {"-0312", true}, {"3382", true},
		{"2003-12-31", false}, {"03-12-31", false}, {"031231", false}, {"2003-13", false},
		{"12 March 2003", false}, {"c2022", false}, {"[2021]", false}, {"", false},
	} {
		if got := dates.Partial(tc.in); got != tc.partial {
			t.Errorf("Partial(%q) = %v, want %v", tc.in, got, tc.partial)
		}
	}
}

// TestParseISO: the machine-readable dates of <time datetime> and
// microformats' title, with their day; nothing else.
func TestParseISO(t *testing.T) {
	paris := mustZone(t, "Europe/Paris")
	for _, tc := range []struct {
		in   string
		loc  *time.Location
		want string // RFC 3339, "" when not read
	}{
		{"2024-03-04T09:30:00+01:00", nil, "2024-03-04T09:30:00+01:00"},
		{" 2024-03-04T19:00:00 ", nil, "2024-03-04T19:00:00Z"},
		{"2024-03-04T19:00", paris, "2024-03-04T19:00:00+01:00"},
		{"2024-03-04", nil, "2024-03-04T00:00:00Z"},
		{"20240304T190000Z", nil, "2024-03-04T19:00:00Z"},
		{"2024-03-04t09:30z", nil, "2024-03-04T09:30:00Z"},
		// HTML allows one space for the T; only one, and only there.
		{"2024-06-10 11:23:00Z", nil, "2024-06-10T11:23:00Z"},
		{"2024-06-10 11:23", paris, "2024-06-10T11:23:00+02:00"},
		{"2024-06-10  11:23", nil, ""}, {"2024-06-10 T11:23", nil, ""}, {"2024-06-10 Mon", nil, ""},
		{"2024-03", nil, ""}, {"2024", nil, ""}, {"PT2H", nil, ""}, {"09:30", nil, ""},
		{"4 March 2024", nil, ""}, {"Mar 4, 2024", nil, ""}, {"2024-02-30", nil, ""},
	} {
		got := ""
		if d, ok := dates.ParseISO(tc.in, tc.loc); ok {
			got = d.Format(time.RFC3339)
		}
		if got != tc.want {
			t.Errorf("ParseISO(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMarkAgainstWord: a mark outside ASCII written against a word (a
// bullet written "&bull;" between two fields of a page) is a field of its
// own, which no date holds, as when spaces surround it; it was passed
// over with the word, and "June 27, 2024•Ref. 1000" read as 27 June 1000.
func TestMarkAgainstWord(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" when not read
	}{
		{"June 27, 2024•Ref. 1000", ""},
		{"June 27, 2024 • Ref. 1000", ""},
		{"27/06/2024·Reference", ""},
		{"June 27, 2024", "2024-06-27"},
		{"June 27, 2024 – 10:30", "2024-06-27"},
		{"8. Dezember 2005, 08:25 Uhr", "2005-12-08"},
		{"2004년 05월 28일", "2004-05-28"},
	} {
		got := ""
		if d, ok := dates.Parse(tc.in, time.UTC); ok {
			got = d.Format(time.DateOnly)
		}
		if got != tc.want {
			t.Errorf("Parse(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
