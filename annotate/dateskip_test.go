package annotate

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// datedList is a list of items items, each a title linking to its page,
// a date and a description, laid out as style says: "apart", the date in
// an element of its own beside the description; "inside", the date at the
// start of the description's text ("12 March 2024 · …"), which
// descriptionEmpty reads; "undated", as apart but every fifth item's date
// written "n.d."; "versioned", as apart but every fifth item's date a
// version ("v2.4": a text with a digit and no date); "table", a table row an item, the date and the
// description in cells of their own.
func datedList(style string, items int) []byte {
	months := []string{"January", "March", "May", "July", "September", "November"}
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Parish notices</title></head><body><h1>Parish notices</h1><ul class="notices">` + "\n")
	for i := 0; i < items; i++ {
		date := fmt.Sprintf("%d %s %d", 1+i%28, months[i%len(months)], 2000+i%25)
		desc := fmt.Sprintf("Notice %d of the harbour board, read at the meeting of the council.", i)
		switch {
		case style == "inside":
			fmt.Fprintf(&sb, `<li><a href="/n/%d.html">Harbour notice %d</a> <p>%s · %s</p></li>`+"\n", i, i, date, desc)
		case style == "table":
			fmt.Fprintf(&sb, `<tr><td><a href="/n/%d.html">Harbour notice %d</a></td><td class="d">%s</td><td>%s</td></tr>`+"\n", i, i, date, desc)
		case style == "undated" && i%5 == 4:
			date = "n.d."
			fallthrough
		case style == "versioned" && i%5 == 4:
			if style == "versioned" {
				date = fmt.Sprintf("v%d.%d", i%7, i%10)
			}
			fallthrough
		default:
			fmt.Fprintf(&sb, `<li><a href="/n/%d.html">Harbour notice %d</a> <span class="when">%s</span> <p>%s</p></li>`+"\n", i, i, date, desc)
		}
	}
	sb.WriteString("</ul></body></html>\n")
	return []byte(sb.String())
}

var dateSkipDir = flag.String("dateskippages", "", "write TestDateSkip's styles as 10 MiB pages into this directory, to time the command on them")

// dateSkipHalves are the styles as 10 MiB pages: the first two were
// looked at while the skip was written, the last two are held out.
var dateSkipHalves = [][]string{{"apart", "inside"}, {"undated", "table"}}

// TestWriteDateSkipPages writes, with -dateskippages DIR, each style as
// a page of 10 MiB: dateskip-STYLE.html.
func TestWriteDateSkipPages(t *testing.T) {
	if *dateSkipDir == "" {
		t.Skip("no -dateskippages")
	}
	for _, half := range dateSkipHalves {
		for _, style := range half {
			// About 160 bytes an item: as many as fill 10 MiB.
			raw := datedList(style, 64000)
			for len(raw) > 10<<20 {
				raw = datedList(style, 64000*(10<<20)/len(raw)-10)
			}
			if err := os.WriteFile(filepath.Join(*dateSkipDir, "dateskip-"+style+".html"), raw, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// suggestDates is Suggest with the dates past those known to be left out
// skipped or not.
func suggestDates(t *testing.T, raw []byte, maxBytes int, skip bool) *Result {
	t.Helper()
	defer func(was bool) { skipUnfitDates = was }(skipUnfitDates)
	skipUnfitDates = skip
	res, err := Suggest(raw, Options{URL: "https://example.org/notices", MaxBytes: maxBytes})
	if err != nil {
		t.Fatalf("MaxBytes %d: %v", maxBytes, err)
	}
	return res
}

// datesLeftOut reports whether fit left the items' dates out.
func datesLeftOut(res *Result) bool {
	for _, n := range res.Notes {
		if strings.HasPrefix(n, "the items' dates were left out") {
			return true
		}
	}
	return false
}

// TestDateSkip checks, on pages around the limits at which fit leaves
// the dates out and then the descriptions, that the dates are skipped
// only when fit leaves them out, that they are all skipped (past the
// records they are voted on) once the page without them does not fit,
// and that the result is the one reading every date gives: the annotated
// page, the comments' places, the list, the others and the notes. None
// is skipped where the description holds the date, nor where a text
// with a digit at the date's place is no date (the notes would count it).
func TestDateSkip(t *testing.T) {
	const items = 1500
	for _, style := range []string{"apart", "inside", "undated", "versioned"} {
		t.Run(style, func(t *testing.T) {
			raw := datedList(style, items)
			full := suggestDates(t, raw, 0, false)
			// noDates: the smallest limit at which fit keeps the dates
			// (the page with every comment, compact or not, fits);
			// noDescs: the smallest at which it keeps the descriptions.
			noDates := boundary(t, raw, len(full.Page), datesLeftOut)
			noDescs := boundary(t, raw, noDates, func(res *Result) bool {
				return strings.Contains(strings.Join(res.Notes, "\n"), "descriptions were left out")
			})
			// Without the dates, and the channel's comments the bound
			// leaves out, the page fits below this.
			atDates := suggestDates(t, raw, noDates-1, false)
			withoutDates := len(atDates.Page) - channelBytes(atDates)
			// With the titles and links alone, the page has titlesOnly
			// bytes.
			titlesOnly := len(suggestDates(t, raw, noDescs-1, false).Page)
			limits := []int{0, titlesOnly, (titlesOnly + noDescs) / 2, noDescs - 1, noDescs, noDescs + 1, (noDescs + withoutDates) / 2, withoutDates - 1, withoutDates, withoutDates + 1,
				(withoutDates + noDates) / 2, noDates - 2, noDates - 1, noDates, noDates + 1, len(full.Page)}
			for _, limit := range limits {
				want := suggestDates(t, raw, limit, false)
				got := suggestDates(t, raw, limit, true)
				same(t, limit, got, want)
				unread := got.best.fields.datesUnread
				switch {
				case unread > 0 && !datesLeftOut(want):
					t.Errorf("limit %d: %d dates skipped, but fit keeps the dates", limit, unread)
				case (style == "apart" || style == "undated") && limit > 0 && limit < withoutDates && unread != items-voteSample:
					t.Errorf("limit %d (the page without dates has %d bytes): %d dates skipped, want %d", limit, withoutDates, unread, items-voteSample)
				case (style == "inside" || style == "versioned") && unread != 0:
					t.Errorf("limit %d: %d dates skipped, of descriptions holding them or counted wrongly", limit, unread)
				}
				t.Logf("limit %d: dates left out %v, %d skipped", limit, datesLeftOut(want), unread)
			}
		})
	}
}

// boundary returns the smallest limit up to hi at which leftOut(Suggest)
// is false, by bisection: the fields are left out below it.
func boundary(t *testing.T, raw []byte, hi int, leftOut func(*Result) bool) int {
	t.Helper()
	lo := len(raw) // left out at lo, kept at hi
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if res, err := Suggest(raw, Options{URL: "https://example.org/notices", MaxBytes: mid}); err == nil && !leftOut(res) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// channelBytes is what the channel's comments add to the annotated page.
func channelBytes(res *Result) int {
	n := 0
	for _, r := range res.Inserted {
		if c := res.Page[r.Start:r.End]; bytes.Contains(c, []byte("channel:")) {
			n += len(c)
		}
	}
	return n
}

// same checks that the dates skipped change nothing the suggestion says.
func same(t *testing.T, limit int, got, want *Result) {
	t.Helper()
	if !bytes.Equal(got.Page, want.Page) {
		t.Errorf("limit %d: the annotated page differs from the one reading every date", limit)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"Inserted", got.Inserted, want.Inserted},
		{"List", got.List, want.List},
		{"Others", got.Others, want.Others},
		{"Channel", got.Channel, want.Channel},
		{"Notes", got.Notes, want.Notes},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("limit %d: %s differ:\n got %v\nwant %v", limit, c.name, c.got, c.want)
		}
	}
}
