package wrapper_test

import (
	"testing"
)

// TestMachineDates: a date annotation whose content is or holds an element
// with a machine-readable date (<time datetime>, hCalendar's <abbr
// title>, microdata's content) is read from the attribute when its text
// is no whole date, or the same day; a whole date shown that is another
// day wins, with a warning (docs/WRAPPER.md "Dates").
func TestMachineDates(t *testing.T) {
	for _, tc := range []struct {
		name, value, zone, want string
		warn                    string // a part of the one warning expected, "" for none
	}{
		{"time, month and day", `<time datetime="2024-03-04T09:30:00+01:00">Mar 4</time>`, "", "2024-03-04T09:30:00+01:00", ""},
		{"time, hour only", `Updated <time datetime="2024-03-04T09:30:00Z">09:30</time>`, "", "2024-03-04T09:30:00Z", ""},
		{"time, no zone, page zone", `<time datetime="2024-03-04T09:30">09:30</time>`, "Europe/Paris", "2024-03-04T09:30:00+01:00", ""},
		{"time, date only", `<time datetime="2024-03-04">yesterday</time>`, "", "2024-03-04T00:00:00Z", ""},
		{"hCalendar abbr", `<abbr class="dtstart" title="2024-03-04T19:00:00"><span>Mar</span> <span>4</span></abbr>`, "", "2024-03-04T19:00:00Z", ""},
		{"abbr, basic format", `<abbr class="dtstart" title="20240304T190000Z">Mar 4, 7pm</abbr>`, "", "2024-03-04T19:00:00Z", ""},
		{"abbr title, a space for the T (as HTML allows)", `<abbr class="published" title="2024-06-10 11:23:00Z">hace 2 días</abbr>`, "", "2024-06-10T11:23:00Z", ""},
		{"a custom element's datetime (GitHub's relative-time)", `<relative-time datetime="2024-03-04T09:30:00Z" class="no-wrap">Mar 4</relative-time>`, "", "2024-03-04T09:30:00Z", ""},
		{"local-time", `<local-time datetime="2024-03-04T09:30:00+01:00" month="short" day="numeric">4 Mar</local-time>`, "", "2024-03-04T09:30:00+01:00", ""},
		{"a custom element's title is no date", `<x-date title="2024-03-04">Mar 4</x-date>`, "", "", "not a date"},
		{"span title, relative", `<span class="date" title="2024-03-04">3 days ago</span>`, "", "2024-03-04T00:00:00Z", ""},
		{"span content, microdata", `<span itemprop="datePublished" content="2024-03-04">4 Mar</span>`, "", "2024-03-04T00:00:00Z", ""},
		{"upper-case tag", `<TIME DATETIME="2024-03-04T09:30:00Z">Mar 4</TIME>`, "", "2024-03-04T09:30:00Z", ""},
		{"a year shown", `<time datetime="2024-03-04">2024</time>`, "", "2024-03-04T00:00:00Z", ""},
		{"whole date, same day: the attribute's time", `<time datetime="2024-03-04T09:30:00+01:00">4 March 2024</time>`, "", "2024-03-04T09:30:00+01:00", ""},
		{"ambiguous numeric date, same day either order", `<time datetime="2024-03-05T08:00:00Z">05/03/2024</time>`, "", "2024-03-05T08:00:00Z", ""},
		{"whole date, another day: the text", `<time datetime="2024-03-01">4 March 2024</time>`, "", "2024-03-04T00:00:00Z", "different days"},
		{"the first of two (dtstart before dtend)", `<abbr class="dtstart" title="2024-03-04T19:00">Mar 4</abbr>–<abbr class="dtend" title="2024-03-06T19:00">6</abbr>`, "", "2024-03-04T19:00:00Z", ""},
		{"a month in datetime is no date", `<time datetime="2024-03">March</time>`, "", "", "not a date"},
		{"a duration is no date", `<time datetime="PT2H">2 hours</time>`, "", "", "not a date"},
		{"title on another element", `<b title="2024-03-04">Mar 4</b>`, "", "", "not a date"},
		{"a title that is no ISO date", `<abbr title="4 March 2024">Mar 4</abbr>`, "", "", "not a date"},
		{"plain text as before", `4 March 2024`, "", "2024-03-04T00:00:00Z", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := listPage("", "", tc.value)
			r := wrapIn(t, page, tc.zone)
			if len(r.Resource.Items) != 1 {
				t.Fatalf("%d items", len(r.Resource.Items))
			}
			if got := itemDate(r.Resource.Items[0]); got != tc.want {
				t.Errorf("date %q, want %q", got, tc.want)
			}
			var warns []wantWarning
			if tc.warn != "" {
				warns = append(warns, wantWarning{2, tc.warn})
			}
			checkWarnings(t, r.Warnings, warns)
		})
	}
}
