package wrapper_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/dates"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// listPage is a page that lists one item a line, from line 2 on (the
// channel's date, when given, is on line 1): a date in a span, then a
// link, as news lists and archives write them. Each date is an item's
// dc:date (or, with field set, another date extension).
func listPage(channelDate string, field string, itemDates ...string) []byte {
	if field == "" {
		field = `uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="date"`
	}
	var b strings.Builder
	b.WriteString("<title>News</title>")
	if channelDate != "" {
		fmt.Fprintf(&b, `<!-- <channel:extension %s> -->%s<!-- </channel:extension> -->`, field, channelDate)
	}
	b.WriteString("<ul>\n")
	for i, d := range itemDates {
		fmt.Fprintf(&b, `<li><span class="date"><!-- <item:extension index="%d" %s> -->%s<!-- </item:extension> --></span> <!-- <item:link index="%[1]d"> --><a href="/news/%[1]d.html"><!-- <item:title index="%[1]d"> -->Story %[1]d<!-- </item:title> --></a><!-- </item:link> --></li>`+"\n", i+1, field, d)
	}
	b.WriteString("</ul>\n")
	return []byte(b.String())
}

// wrapIn wraps a page read in a time zone ("" for UTC).
func wrapIn(t *testing.T, page []byte, zone string) *wrapper.Result {
	t.Helper()
	var loc *time.Location
	if zone != "" {
		var err error
		if loc, err = time.LoadLocation(zone); err != nil {
			t.Fatal(err)
		}
	}
	return wrapper.Wrap(page, wrapper.Options{URL: pageURL, RSSID: "test", Location: loc, Now: testNow})
}

// checkDates fails unless the items' dates (RFC 3339, in order) are want,
// in the items and in the annotations the playground shows.
func checkDates(t *testing.T, r *wrapper.Result, want ...string) {
	t.Helper()
	var got []string
	for _, it := range r.Resource.Items {
		got = append(got, itemDate(it))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("item dates\n got %v\nwant %v", got, want)
	}
	var shown []string
	for _, a := range r.Annotations {
		if a.Name == "item:extension" {
			shown = append(shown, a.Value)
		}
	}
	if strings.Join(shown, " ") != strings.Join(want, " ") {
		t.Errorf("annotations' values\n got %v\nwant %v", shown, want)
	}
}

// One page is read in one order: its ambiguous numeric dates in the order
// its other values show.
func TestDateOrderPages(t *testing.T) {
	tests := []struct {
		name     string
		zone     string
		page     []byte
		want     []string
		warnings []wantWarning
	}{
		{
			name: "day-first page in UTC: 25/03 says day first, so 05/03 is 5 March",
			page: listPage("", "", "25/03/2024", "05/03/2024", "12/02/2024", "01/02/2024 18:30"),
			want: []string{"2024-03-25T00:00:00Z", "2024-03-05T00:00:00Z", "2024-02-12T00:00:00Z", "2024-02-01T18:30:00Z"},
		},
		{
			name: "day-first page whose telling value comes last",
			page: listPage("", "", "05/03/2024", "04/03/2024", "29/02/2024"),
			want: []string{"2024-03-05T00:00:00Z", "2024-03-04T00:00:00Z", "2024-02-29T00:00:00Z"},
		},
		{
			name: "month-first page in London: 03/25 says month first, so 05/03 is May 3",
			zone: "Europe/London",
			page: listPage("", "", "03/25/2024", "05/03/2024", "12-02-2024"),
			want: []string{"2024-03-25T00:00:00Z", "2024-05-03T00:00:00+01:00", "2024-12-02T00:00:00Z"},
		},
		{
			name:     "mixed page: each value by the zone's rule, and a warning",
			page:     listPage("", "", "25/03/2024", "03/26/2024", "05/03/2024", "06/03/2024"),
			want:     []string{"2024-03-25T00:00:00Z", "2024-03-26T00:00:00Z", "2024-05-03T00:00:00Z", "2024-06-03T00:00:00Z"},
			warnings: []wantWarning{{4, `<item:extension> dc:date: numeric dates are written both day first ("25/03/2024", line 2) and month first ("03/26/2024", line 3), so the 2 that read either way ("05/03/2024" the first) are read month first by the time zone's rule: check them`}},
		},
		{
			name: "both kinds but nothing ambiguous: nothing to guess, no warning",
			page: listPage("", "", "25/03/2024", "03/26/2024", "05/05/2024"),
			want: []string{"2024-03-25T00:00:00Z", "2024-03-26T00:00:00Z", "2024-05-05T00:00:00Z"},
		},
		{
			name: "only ambiguous values in London: the zone's rule, day first",
			zone: "Europe/London",
			page: listPage("", "", "05/03/2024", "01/02/2024"),
			want: []string{"2024-03-05T00:00:00Z", "2024-02-01T00:00:00Z"},
		},
		{
			name: "only ambiguous values in UTC: the zone's rule, month first",
			page: listPage("", "", "05/03/2024", "01/02/2024"),
			want: []string{"2024-05-03T00:00:00Z", "2024-01-02T00:00:00Z"},
		},
		{
			name: "only ambiguous values in New York: month first",
			zone: "America/New_York",
			page: listPage("", "", "05/03/2024", "01/02/2024"),
			want: []string{"2024-05-03T00:00:00-04:00", "2024-01-02T00:00:00-05:00"},
		},
		{
			name: "dotted dates are day first and no evidence",
			page: listPage("", "", "25.03.2024", "05.03.2024", "05.13.2024"),
			want: []string{"2024-03-25T00:00:00Z", "2024-03-05T00:00:00Z", "2024-05-13T00:00:00Z"},
		},
		{
			name: "dots stay day first on a month-first page",
			zone: "Europe/London",
			page: listPage("", "", "03/25/2024", "05.03.2024", "05/03/2024"),
			want: []string{"2024-03-25T00:00:00Z", "2024-03-05T00:00:00Z", "2024-05-03T00:00:00+01:00"},
		},
		{
			name: "two-digit years keep RFC 2822's rule",
			page: listPage("", "", "25/03/99", "05/03/49", "05/03/50"),
			want: []string{"1999-03-25T00:00:00Z", "2049-03-05T00:00:00Z", "1950-03-05T00:00:00Z"},
		},
		{
			name: "dashes with a two-digit year are ISO 8601:2000, not day or month first",
			page: listPage("", "", "25/03/2024", "05-03-24"),
			want: []string{"2024-03-25T00:00:00Z", "2005-03-24T00:00:00Z"},
		},
		{
			name: "values among words and with times",
			zone: "Europe/Paris",
			page: listPage("", "", "Posted 13/01/2024 at 09:15", "posted 02/01/2024 @ 8:05 PM"),
			want: []string{"2024-01-13T09:15:00+01:00", "2024-01-02T20:05:00+01:00"},
		},
		{
			name: "month names are no evidence",
			page: listPage("", "", "25 March 2024", "05/03/2024"),
			want: []string{"2024-03-25T00:00:00Z", "2024-05-03T00:00:00Z"},
		},
		{
			name: "another date field has an order of its own",
			page: listPage("", `uri="http://www.w3.org/2005/Atom" prefix="atom" localName="updated"`, "25/03/2024", "05/03/2024"),
			want: []string{"2024-03-25T00:00:00Z", "2024-03-05T00:00:00Z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := wrapIn(t, tt.page, tt.zone)
			checkWarnings(t, r.Warnings, tt.warnings)
			checkDates(t, r, tt.want...)
		})
	}
}

// The channel's date is in the same field as the items': read in their
// order.
func TestDateOrderChannel(t *testing.T) {
	r := wrapIn(t, listPage("05/03/2024", "", "25/03/2024", "04/03/2024"), "")
	checkWarnings(t, r.Warnings, nil)
	if d, ok := r.Resource.Channel.Date(); !ok || d.Format(time.RFC3339) != "2024-03-05T00:00:00Z" {
		t.Errorf("channel date %v, %v; want 5 March", d, ok)
	}
	checkDates(t, r, "2024-03-25T00:00:00Z", "2024-03-04T00:00:00Z")
}

// Two fields of one page are decided apart: dc:date day first by its
// 25/03, atom:updated month first by its 03/26.
func TestDateOrderPerField(t *testing.T) {
	dc := `uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="date"`
	atom := `uri="http://www.w3.org/2005/Atom" prefix="atom" localName="updated"`
	var b strings.Builder
	b.WriteString("<title>News</title>\n")
	for i, d := range [][2]string{{"25/03/2024", "03/26/2024"}, {"05/03/2024", "05/03/2024"}} {
		fmt.Fprintf(&b, `<!-- <item:title index="%d"> -->Story %[1]d<!-- </item:title> --><!-- <item:extension index="%[1]d" %[2]s> -->%[3]s<!-- </item:extension> --><!-- <item:extension index="%[1]d" %[4]s> -->%[5]s<!-- </item:extension> -->`+"\n", i+1, dc, d[0], atom, d[1])
	}
	r := wrapIn(t, []byte(b.String()), "")
	checkWarnings(t, r.Warnings, nil)
	it := r.Resource.Items[1]
	if got := extensionValue(it.Extensions, "dc", "date"); got != "2024-03-05T00:00:00Z" {
		t.Errorf("dc:date %s, want 5 March", got)
	}
	if got := extensionValue(it.Extensions, "atom", "updated"); got != "2024-05-03T00:00:00Z" {
		t.Errorf("atom:updated %s, want May 3", got)
	}
}

// The memo keeps a value's readings in each order apart: the same
// ambiguous value, read by the zone's rule on one page and day first on
// another, gives each page its own date, in any order of polls.
func TestDateOrderMemo(t *testing.T) {
	alone := listPage("", "", "07/03/2031")
	dayFirst := listPage("", "", "07/03/2031", "25/03/2031")
	for range 2 {
		checkDates(t, wrapIn(t, alone, ""), "2031-07-03T00:00:00Z")
		checkDates(t, wrapIn(t, dayFirst, ""), "2031-03-07T00:00:00Z", "2031-03-25T00:00:00Z")
	}
}

// How many items get their right date, page by page, on generated lists
// written by one writer in one order (day first or month first, slashes
// or dashes, two- or four-digit years) read in a zone that may or may not
// match it: per value (dates.Parse, the rule before) and as the wrapper
// reads them now. Every page with a value that shows its order must be
// read right; a page of only ambiguous values is read by the zone's rule,
// as before. The development half was used while writing the rule; the
// held-out half was run once, at the end (docs/WRAPPER.md "Dates").
func TestDateOrderGenerated(t *testing.T) {
	for _, half := range []struct {
		name        string
		first, last uint64
	}{{"development", 1, 200}, {"held-out", 201, 400}} {
		t.Run(half.name, func(t *testing.T) {
			var items, rightBefore, rightNow, pages, pagesRight, told, toldRight int
			for seed := half.first; seed <= half.last; seed++ {
				g := generateList(seed)
				loc, err := time.LoadLocation(g.zone)
				if err != nil {
					t.Fatal(err)
				}
				r := wrapper.Wrap(listPage("", "", g.written...), wrapper.Options{URL: pageURL, Location: loc, Now: testNow})
				if len(r.Resource.Items) != len(g.truth) {
					t.Fatalf("seed %d: %d items, want %d", seed, len(r.Resource.Items), len(g.truth))
				}
				pageRight := true
				for i, truth := range g.truth {
					items++
					if before, ok := dates.Parse(g.written[i], loc); ok && before.Format("2006-01-02") == truth {
						rightBefore++
					}
					if d, ok := r.Resource.Items[i].Date(); ok && d.Format("2006-01-02") == truth {
						rightNow++
					} else {
						pageRight = false
					}
				}
				pages++
				if pageRight {
					pagesRight++
				}
				if g.tells {
					told++
					if pageRight {
						toldRight++
					} else {
						t.Errorf("seed %d (%s, %s): a page that shows its order is read wrong: %v", seed, g.zone, g.order, g.written)
					}
				}
			}
			if rightNow < rightBefore {
				t.Errorf("%d items right now, %d before", rightNow, rightBefore)
			}
			t.Logf("%s: %d pages (%d show their order), %d items: right per value before %d (%.1f %%), now %d (%.1f %%); pages all right now %d, of those showing their order %d of %d",
				half.name, pages, told, items, rightBefore, 100*float64(rightBefore)/float64(items), rightNow, 100*float64(rightNow)/float64(items), pagesRight, toldRight, told)
		})
	}
}

// generatedList is one generated list: its dates as written, their true
// days (YYYY-MM-DD), the zone it is read in, and whether some value shows
// the order it is written in.
type generatedList struct {
	written, truth []string
	zone, order    string
	tells          bool
}

func generateList(seed uint64) generatedList {
	rng := rand.New(rand.NewPCG(seed, 0x0da7e))
	zones := []string{"UTC", "Europe/London", "Europe/Paris", "America/New_York", "Asia/Manila", "Australia/Sydney"}
	g := generatedList{zone: zones[rng.IntN(len(zones))], order: "day first"}
	monthFirst := rng.IntN(2) == 0
	if monthFirst {
		g.order = "month first"
	}
	sep := "/"
	if rng.IntN(3) == 0 {
		sep = "-"
	}
	twoDigit := sep == "/" && rng.IntN(3) == 0 // dashes with two digits are ISO 8601:2000
	// A list of recent posts: n days going back from a start, a few days
	// apart, or a spread over some years (an archive).
	n := 2 + rng.IntN(20)
	day := time.Date(2000+rng.IntN(30), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, time.UTC)
	step := 1 + rng.IntN(10)
	if rng.IntN(4) == 0 {
		step = 30 + rng.IntN(200)
	}
	for range n {
		d, m := fmt.Sprintf("%02d", day.Day()), fmt.Sprintf("%02d", int(day.Month()))
		if rng.IntN(3) == 0 {
			d, m = fmt.Sprint(day.Day()), fmt.Sprint(int(day.Month()))
		}
		y := fmt.Sprint(day.Year())
		if twoDigit {
			y = y[2:]
		}
		first, second := d, m
		if monthFirst {
			first, second = m, d
		}
		g.written = append(g.written, first+sep+second+sep+y)
		g.truth = append(g.truth, day.Format("2006-01-02"))
		if day.Day() > 12 {
			g.tells = true
		}
		day = day.AddDate(0, 0, -step)
	}
	return g
}
