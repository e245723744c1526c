package dates_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/dates"
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestParse(t *testing.T) {
	paris := mustZone(t, "Europe/Paris")
	newYork := mustZone(t, "America/New_York")
	tests := []struct {
		in   string
		loc  *time.Location
		want string // RFC 3339; "" means not a date
	}{
		// docs/WRAPPER.md's example date, in the source's zone.
		{"December 08, 2005 @ 08:25 AM", newYork, "2005-12-08T08:25:00-05:00"},
		{"December 08, 2005 @ 08:25 PM", nil, "2005-12-08T20:25:00Z"},
		{"December 8, 2005 at 8:25pm", nil, "2005-12-08T20:25:00Z"},
		{"Dec. 8, 2005, 8:25 a.m.", nil, "2005-12-08T08:25:00Z"},
		{"December 08, 2005", paris, "2005-12-08T00:00:00+01:00"},

		// RFC 822 / 1123 / 850, named and numeric zones.
		{"Thu, 08 Dec 2005 08:25:00 GMT", paris, "2005-12-08T08:25:00Z"},
		{"Thu, 08 Dec 2005 08:25:00 +0100", nil, "2005-12-08T08:25:00+01:00"},
		{"Thu, 08 Dec 2005 08:25:00 -05:00", nil, "2005-12-08T08:25:00-05:00"},
		{"Thu, 08 Dec 2005 08:25 EST", nil, "2005-12-08T08:25:00-05:00"},
		{"Thu, 8 Dec 2005 08:25:00 PST", nil, "2005-12-08T08:25:00-08:00"},
		{"Thu, 08 Dec 05 08:25:00 EDT", nil, "2005-12-08T08:25:00-04:00"},
		{"Thursday, 08-Dec-05 08:25:00 UTC", nil, "2005-12-08T08:25:00Z"},
		{"08 Dec 2005 08:25:00 CEST", nil, "2005-12-08T08:25:00+02:00"},
		{"Thu, 08 Dec 2005 08:25:00 GMT+1", nil, "2005-12-08T08:25:00+01:00"},
		{"Thu, 08 Dec 2005 08:25:00 UTC+05:30", nil, "2005-12-08T08:25:00+05:30"},
		{"Thu, 08 Dec 2005 08:25:00 (EST)", nil, "2005-12-08T08:25:00-05:00"},
		{"Thu, 08 Dec 2005 08:25:00-0500", nil, "2005-12-08T08:25:00-05:00"},
		{"Thu, 08 Dec 2005 08:25:00 Z", nil, "2005-12-08T08:25:00Z"},

		// ISO 8601 / RFC 3339.
		{"2005-12-08T08:25:00Z", paris, "2005-12-08T08:25:00Z"},
		{"2005-12-08T08:25:00+01:00", nil, "2005-12-08T08:25:00+01:00"},
		{"2005-12-08T08:25:00+0100", nil, "2005-12-08T08:25:00+01:00"},
		{"2005-12-08T08:25:00+01", nil, "2005-12-08T08:25:00+01:00"},
		{"2005-12-08T08:25:00.123456Z", nil, "2005-12-08T08:25:00.123456Z"},
		{"2005-12-08T08:25:00,5Z", nil, "2005-12-08T08:25:00.5Z"},
		{"2005-12-08t08:25:00z", nil, "2005-12-08T08:25:00Z"},
		{"2005-12-08T08:25Z", nil, "2005-12-08T08:25:00Z"},
		{"2005-12-08T08:25:00", paris, "2005-12-08T08:25:00+01:00"},
		{"2005-12-08T08:25", paris, "2005-12-08T08:25:00+01:00"},
		{"2005-12-08", paris, "2005-12-08T00:00:00+01:00"},
		{"20051208T082500Z", nil, "2005-12-08T08:25:00Z"},
		{"2005-12-08 08:25", paris, "2005-12-08T08:25:00+01:00"},
		{"2005-12-08 08:25:00", nil, "2005-12-08T08:25:00Z"},
		{"2005-12-08 08:25:00 +0100", nil, "2005-12-08T08:25:00+01:00"},
		{"2005-12-08 08:25:00.250 -0800", nil, "2005-12-08T08:25:00.25-08:00"},
		{"2005/12/08 08:25", nil, "2005-12-08T08:25:00Z"},

		// W3C-DTF stopping before the day, ISO 8601:2000's two-digit years.
		{"2003", nil, "2003-01-01T00:00:00Z"},
		{"2003-12", paris, "2003-12-01T00:00:00+01:00"},
		{"03-12-31", nil, "2003-12-31T00:00:00Z"},
		{"031231", nil, "2003-12-31T00:00:00Z"},
		{"-03-12", nil, "2003-12-01T00:00:00Z"},
		{"-0312", nil, "2003-12-01T00:00:00Z"},
		{"2003-012-31T10:14:55+00:00", nil, "2003-12-31T10:14:55Z"},

		// North American regions: their clock, with daylight saving.
		{"Mon, 26 January 2004 16:31:00 ET", nil, "2004-01-26T16:31:00-05:00"},
		{"Mon, 26 July 2004 16:31:00 ET", nil, "2004-07-26T16:31:00-04:00"},
		{"Mon, 26 January 2004 16:31:00 PT", nil, "2004-01-26T16:31:00-08:00"},
		{"Mon, 26 January 2004 16:31:00 AT", nil, "2004-01-26T16:31:00-04:00"},
		{"Mon, 26 January 2004 16:31:00 AKST", nil, "2004-01-26T16:31:00-09:00"},
		{"Mon, 26 January 2004 16:31:00 HST", nil, "2004-01-26T16:31:00-10:00"},
		{"Wed, 19 Aug 2009 18:28:00 Etc/GMT", nil, "2009-08-19T18:28:00Z"},
		{"Posted AT 8:25 on December 8, 2005", nil, "2005-12-08T08:25:00Z"},

		// Korean and Japanese: their markers, their zone when none is given.
		{"2004-05-25 오후 11:23:17", nil, "2004-05-25T23:23:17+09:00"},
		{"2004-05-25 오전 11:23:17", nil, "2004-05-25T11:23:17+09:00"},
		{"2004년 05월 28일  01:31:15", nil, "2004-05-28T01:31:15+09:00"},
		{"2004년 05월 28일 오후 1:31", paris, "2004-05-28T13:31:00+02:00"},
		{"2004年5月28日 午後3:04", nil, "2004-05-28T15:04:00+09:00"},

		// Greek and Hungarian.
		{"Κυρ, 11 Ιούλ 2004 12:00:00 EST", nil, "2004-07-11T12:00:00-05:00"},
		{"2004-július-13T9:15-05:00", nil, "2004-07-13T09:15:00-05:00"},

		// Unix ctime and date(1).
		{"Thu Dec  8 08:25:00 2005", nil, "2005-12-08T08:25:00Z"},
		{"Thu Dec 8 08:25:00 EST 2005", nil, "2005-12-08T08:25:00-05:00"},

		// Numeric dates: slashes and dashes month first, dots day first,
		// the other reading when the preferred one is impossible.
		{"12/08/2005", nil, "2005-12-08T00:00:00Z"},
		{"08/12/2005", nil, "2005-08-12T00:00:00Z"},
		{"25/12/2005", nil, "2005-12-25T00:00:00Z"},
		{"12/25/2005 8:25 PM", nil, "2005-12-25T20:25:00Z"},
		{"12/08/05", nil, "2005-12-08T00:00:00Z"},
		{"12-08-2005", nil, "2005-12-08T00:00:00Z"},
		{"08.12.2005", nil, "2005-12-08T00:00:00Z"},
		{"8.12.2005 08:25", paris, "2005-12-08T08:25:00+01:00"},
		{"12.25.2005", nil, "2005-12-25T00:00:00Z"},
		{"08.12.05", nil, "2005-12-08T00:00:00Z"},
		{"1/2/70", nil, "1970-01-02T00:00:00Z"},
		{"1/2/68", nil, "1968-01-02T00:00:00Z"}, // RFC 2822 §4.3: 50–99 are 19xx
		{"1/2/49", nil, "2049-01-02T00:00:00Z"},
		{"Thu, 08 Dec 55 08:25:00 GMT", nil, "1955-12-08T08:25:00Z"},

		// European forms and languages.
		{"8 Dec 2005", nil, "2005-12-08T00:00:00Z"},
		{"8 December 2005 08:25", nil, "2005-12-08T08:25:00Z"},
		{"08-Dec-2005", nil, "2005-12-08T00:00:00Z"},
		{"8. Dezember 2005, 08:25 Uhr", nil, "2005-12-08T08:25:00Z"},
		{"Donnerstag, 8. Dezember 2005 um 08:25", nil, "2005-12-08T08:25:00Z"},
		{"am 8. Dez. 2005", nil, "2005-12-08T00:00:00Z"},
		{"jeudi 8 décembre 2005 à 08h25", paris, "2005-12-08T08:25:00+01:00"},
		{"1er août 2005", nil, "2005-08-01T00:00:00Z"},
		{"8 de diciembre de 2005", nil, "2005-12-08T00:00:00Z"},
		{"8 dicembre 2005", nil, "2005-12-08T00:00:00Z"},
		{"8 maart 2005", nil, "2005-03-08T00:00:00Z"},
		{"8 März 2005", nil, "2005-03-08T00:00:00Z"},

		// Ordinals, weekdays, extra whitespace, words around the date.
		{"Dec 8th, 2005", nil, "2005-12-08T00:00:00Z"},
		{"December 1st 2005", nil, "2005-12-01T00:00:00Z"},
		{"December 22nd, 2005 3:04 PM", nil, "2005-12-22T15:04:00Z"},
		{"Sept 23rd 2005", nil, "2005-09-23T00:00:00Z"},
		{"Thursday, December 08, 2005", nil, "2005-12-08T00:00:00Z"},
		{"Mon, 08 Dec 2005", nil, "2005-12-08T00:00:00Z"}, // wrong weekday: ignored
		{"  December \n 08 ,\t2005   @  08:25  AM  ", nil, "2005-12-08T08:25:00Z"},
		{"Posted on December 8, 2005", nil, "2005-12-08T00:00:00Z"},
		{"2005 Dec 08", nil, "2005-12-08T00:00:00Z"},
		{"8:25 PM December 8, 2005", nil, "2005-12-08T20:25:00Z"},
		{"December 8, 2005 8 PM", nil, "2005-12-08T20:00:00Z"},
		{"December 8, 2005 8pm", nil, "2005-12-08T20:00:00Z"},
		{"DECEMBER 8, 2005", nil, "2005-12-08T00:00:00Z"},
		{"December\u00a08,\u00a02005", nil, "2005-12-08T00:00:00Z"},

		// Not dates, or not whole ones: no guess.
		{"", nil, ""},
		{"   ", nil, ""},
		{"yesterday", nil, ""},
		{"December 2005", nil, ""},
		{"2005-13", nil, ""},
		{"22013", nil, ""},
		{"13/13/2005", nil, ""},
		{"February 30, 2005", nil, ""},
		{"2005-02-30", nil, ""},
		{"December 08, 2005 25:00", nil, ""},
		{"December 08, 2005 13:00 PM", nil, ""},
		{"December 08, 2005 08:25 XYZT", nil, ""}, // unknown zone
		{"December 08, 2005 08:25 IST", nil, ""},  // ambiguous zone
		{"December 08, 2005 08:25 EST PST", nil, ""},
		{"Thu, 08 Dec 2005 08:25:00 +2500", nil, ""},
		{"12/08", nil, ""},
		{"1.2.3.4", nil, ""},
		{strings.Repeat("December 8, 2005 ", 20), nil, ""},
		{"Etc/ 12 2005", nil, ""}, // "Etc/" alone is no zone (zoneOf read past its end)
		{"12 March 2005 · Harbour news", nil, ""},
		{"12 March 2005 • 10:30", nil, ""},
	}
	for _, tt := range tests {
		got, ok := dates.Parse(tt.in, tt.loc)
		if tt.want == "" {
			if ok {
				t.Errorf("Parse(%q) = %s, want no date", tt.in, got.Format(time.RFC3339Nano))
			}
			continue
		}
		if !ok {
			t.Errorf("Parse(%q) failed, want %s", tt.in, tt.want)
			continue
		}
		if s := got.Format(time.RFC3339Nano); s != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.in, s, tt.want)
		}
	}
}

// A zone-less date is read in the given location, including its daylight
// saving time: the same wall clock gives different offsets in winter and
// summer.
func TestParseUsesLocationRules(t *testing.T) {
	paris := mustZone(t, "Europe/Paris")
	for in, want := range map[string]string{
		"January 15, 2024 10:00": "2024-01-15T10:00:00+01:00",
		"July 15, 2024 10:00":    "2024-07-15T10:00:00+02:00",
	} {
		got, ok := dates.Parse(in, paris)
		if !ok || got.Format(time.RFC3339) != want {
			t.Errorf("Parse(%q, Paris) = %v, %v; want %s", in, got, ok, want)
		}
	}
}

// Ambiguous numeric dates follow the conventions of the page's zone.
func TestParseDayMonthOrder(t *testing.T) {
	tests := []struct {
		in, zone, want string
	}{
		{"08/12/2005", "UTC", "2005-08-12"},
		{"08/12/2005", "America/New_York", "2005-08-12"},
		{"08/12/2005", "America/Indiana/Knox", "2005-08-12"},
		{"08/12/2005", "US/Pacific", "2005-08-12"},
		{"08/12/2005", "Asia/Manila", "2005-08-12"},
		{"08/12/2005", "Europe/Paris", "2005-12-08"},
		{"08/12/2005", "America/Sao_Paulo", "2005-12-08"},
		{"08/12/2005", "Asia/Tokyo", "2005-12-08"},
		{"08-12-2005", "Europe/Berlin", "2005-12-08"},
		{"08-12-2005", "America/Chicago", "2005-08-12"},
		{"12/25/2005", "Europe/Paris", "2005-12-25"},   // day first impossible
		{"25/12/2005", "America/Denver", "2005-12-25"}, // month first impossible
		{"08.12.2005", "America/New_York", "2005-12-08"},
		{"2005/08/12", "Europe/Paris", "2005-08-12"}, // year first is never ambiguous
	}
	for _, tt := range tests {
		got, ok := dates.Parse(tt.in, mustZone(t, tt.zone))
		if !ok || got.Format("2006-01-02") != tt.want {
			t.Errorf("Parse(%q, %s) = %v, %v; want %s", tt.in, tt.zone, got, ok, tt.want)
		}
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{
		"December 08, 2005 @ 08:25 AM", "Thu, 08 Dec 2005 08:25:00 GMT", "2005-12-08T08:25:00.5+01:00",
		"12/08/05", "08.12.2005", "Thu Dec  8 08:25:00 2005", "8. Dezember 2005 um 08h25", "1er août",
		"GMT+", "+", "-", "a.m.", "8pm", "Z", "h", "00:00:00-", "2005-12-08 08:25:00 +99", "1/2/3/4",
		"Etc/", "etc/GMT+1", "12 March 2005 · Harbour news", "Wednesday, 12 March 2005 · 10:30 CET",
		"05/03/2024", "25/03/24 8 PM", "3-25-2024", "05.13.2024", "05/05/2024", "2004-05-25 오후 05/03/2024",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := dates.Parse(s, time.UTC)
		checkOrders(t, s, got, ok)
		if !ok {
			return
		}
		// What Parse returns must survive the trip through XMLData, where
		// dates are stored as RFC 3339 and read back by Item.Date.
		text := got.Format(time.RFC3339Nano)
		back, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			t.Fatalf("Parse(%q) = %s, which does not read back: %v", s, text, err)
		}
		if !back.Equal(got) {
			t.Fatalf("Parse(%q) = %s, reads back as %s", s, text, back)
		}
	})
}

func ExampleParse() {
	newYork, _ := time.LoadLocation("America/New_York")
	for _, s := range []string{
		"December 08, 2005 @ 08:25 AM",
		"Thu, 08 Dec 2005 08:25:00 GMT",
		"08.12.2005 08:25",
		"12/08/2005",
		"last Tuesday",
	} {
		t, ok := dates.Parse(s, newYork)
		if !ok {
			fmt.Printf("%-30q not a date\n", s)
			continue
		}
		fmt.Printf("%-30q %s\n", s, t.Format(time.RFC3339))
	}
	// Output:
	// "December 08, 2005 @ 08:25 AM" 2005-12-08T08:25:00-05:00
	// "Thu, 08 Dec 2005 08:25:00 GMT" 2005-12-08T08:25:00Z
	// "08.12.2005 08:25"             2005-12-08T08:25:00-05:00
	// "12/08/2005"                   2005-12-08T00:00:00-05:00
	// "last Tuesday"                 not a date
}

// checkOrders checks ParseOrder against Parse's answer for s in UTC: in
// every order the same values are dates; one whose Reading is not
// ambiguous is the same date, and an ambiguous one is Parse's date exactly
// in the order it was read in (its two readings differ).
func checkOrders(t *testing.T, s string, parsed time.Time, parsedOK bool) {
	t.Helper()
	zone, r, ok := dates.ParseOrder(s, time.UTC, dates.ZoneOrder)
	if ok != parsedOK || !zone.Equal(parsed) {
		t.Fatalf("ParseOrder(%q) in ZoneOrder = %v, %v; Parse %v, %v", s, zone, ok, parsed, parsedOK)
	}
	for _, o := range []dates.Order{dates.DayFirst, dates.MonthFirst} {
		got, r2, ok2 := dates.ParseOrder(s, time.UTC, o)
		if ok2 != ok {
			t.Fatalf("ParseOrder(%q, %s) ok %v, in ZoneOrder %v", s, o, ok2, ok)
		}
		if !ok {
			continue
		}
		if !r.Ambiguous() {
			if r2 != r || !got.Equal(zone) {
				t.Fatalf("ParseOrder(%q, %s) = %v (reading %d); in ZoneOrder %v (reading %d)", s, o, got, r2, zone, r)
			}
			continue
		}
		if !r2.Ambiguous() || !r2.ReadIn(o) || got.Equal(zone) != r.ReadIn(o) {
			t.Fatalf("ParseOrder(%q, %s) = %v (reading %d); in ZoneOrder %v (reading %d)", s, o, got, r2, zone, r)
		}
	}
}
