package annotate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// A "what's new" page of lines in a <pre>: "DATE  <a>title</a>" and a
// newline, no <br>. A newline in preformatted text ends a line as a <br>
// does elsewhere; each item must get the date of its own line, through
// the annotations and through the selectors (runs cut from link to link
// gave each item the next line's date, the last none).

// preVariant is one page of preformatted lines.
type preVariant struct {
	container string // pre, div-pre (a <pre> in a <div>), listing
	date      string // before, before-b (in <b>), after, after-paren, none
	format    string // a layout of time.Format the dates package reads
	joiner    string // between the date and the link
	header    bool   // a header line and a blank line before the first line
	blanks    int    // a blank line after every blanks lines; 0: none
	second    bool   // a second link on each line, after the title
	crlf      bool   // lines end with \r\n
	items     int
}

func (v preVariant) name() string {
	return fmt.Sprintf("%s,date=%s,format=%q,joiner=%q,header=%v,blanks=%d,second=%v,crlf=%v,n=%d",
		v.container, v.date, v.format, v.joiner, v.header, v.blanks, v.second, v.crlf, v.items)
}

func (v preVariant) page() ([]byte, []lineItem) {
	var b strings.Builder
	var items []lineItem
	nl := "\n"
	if v.crlf {
		nl = "\r\n"
	}
	b.WriteString("<html><head><title>What's new</title></head><body>\n<h1>What's new on this site</h1>\n")
	open, end := "<pre>", "</pre>"
	switch v.container {
	case "div-pre":
		open, end = `<div class="changes"><pre class="log">`, "</pre></div>"
	case "listing":
		open, end = "<listing>", "</listing>"
	}
	b.WriteString(open + nl)
	if v.header {
		b.WriteString("Changes to this site, the latest first:" + nl + nl)
	}
	day := time.Date(2024, 3, 28, 0, 0, 0, 0, time.UTC)
	for i := 0; i < v.items; i++ {
		// Days from 13 on: no date reads as day/month and month/day both.
		d := day.AddDate(0, 0, -3*i)
		for d.Day() < 13 {
			d = d.AddDate(0, 0, -1)
		}
		it := lineItem{
			title: fmt.Sprintf("%s (%d)", lineTitles[i%len(lineTitles)], i+1),
			link:  fmt.Sprintf("https://www.example.org/new/n%d.html", i),
		}
		link := fmt.Sprintf(`<a href="new/n%d.html">%s</a>`, i, it.title)
		if v.second {
			link += fmt.Sprintf(` [<a href="new/n%d.zip">zip</a>]`, i)
		}
		ds := d.Format(v.format)
		switch v.date {
		case "before":
			b.WriteString(ds + v.joiner + link)
			it.date = d
		case "before-b":
			b.WriteString("<b>" + ds + "</b>" + v.joiner + link)
			it.date = d
		case "after":
			b.WriteString(link + v.joiner + ds)
			it.date = d
		case "after-paren":
			b.WriteString(link + v.joiner + "(" + ds + ")")
			it.date = d
		default:
			b.WriteString(link)
		}
		b.WriteString(nl)
		if v.blanks > 0 && (i+1)%v.blanks == 0 && i+1 < v.items {
			b.WriteString(nl)
		}
		items = append(items, it)
	}
	b.WriteString(end + "\n<p>Webmaster: <a href=\"mailto:web@example.org\">web@example.org</a></p>\n</body></html>\n")
	return []byte(b.String()), items
}

// preVariants are the variants of a half, drawn from its seeds (see
// halfRands): the development half was tuned on, the held-out half run
// once at the end.
func preVariants(half string) []preVariant {
	containers := []string{"pre", "pre", "div-pre", "listing"}
	dates := []string{"before", "before", "before", "before-b", "after", "after-paren", "none"}
	formats := []string{"2006-01-02", "02.01.2006", "2 January 2006", "January 2, 2006", "02/01/2006", "Jan 2, 2006", "2 Jan 2006", "2006/01/02"}
	joiners := []string{"  ", "    ", "\t", " - ", "\t\t", " : "}
	var out []preVariant
	for _, r := range halfRands(half, 48) {
		v := preVariant{
			container: containers[r.Intn(len(containers))],
			date:      dates[r.Intn(len(dates))],
			format:    formats[r.Intn(len(formats))],
			joiner:    joiners[r.Intn(len(joiners))],
			header:    r.Intn(2) == 0,
			second:    r.Intn(4) == 0,
			crlf:      r.Intn(5) == 0,
			items:     10 + r.Intn(491),
		}
		if r.Intn(3) == 0 {
			v.blanks = 3 + r.Intn(10)
		}
		out = append(out, v)
	}
	return out
}

func TestPreLinesDev(t *testing.T) {
	runDateLines(t, "dev", preVariants("dev"), "https://www.example.org/new.html")
}

func TestPreLinesHeldOut(t *testing.T) {
	runDateLines(t, "heldout", preVariants("heldout"), "https://www.example.org/new.html")
}

// TestPreLinesLarge checks the dates of a <pre> of lines of 1 MiB and of
// 10 MiB, the largest page annotated: the development half's page has
// its dates before the links, the held-out half's after them, each with
// a header line and blank lines.
func TestPreLinesLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("pages of up to 10 MiB")
	}
	for _, c := range []struct {
		half  string
		bytes int
		v     preVariant
	}{
		{"dev", 1 << 20, preVariant{container: "pre", date: "before", format: "2006-01-02", joiner: "  ", header: true, blanks: 7}},
		{"dev", 10 << 20, preVariant{container: "div-pre", date: "before", format: "02.01.2006", joiner: "\t", header: true}},
		{"heldout", 1 << 20, preVariant{container: "pre", date: "before-b", format: "2 Jan 2006", joiner: " - ", header: true, blanks: 5}},
		{"heldout", 10 << 20, preVariant{container: "pre", date: "before", format: "January 2, 2006", joiner: "    ", header: true, blanks: 11}},
	} {
		v := c.v
		// Lines of about 90 bytes; the page just under its size.
		v.items = c.bytes / 95
		t.Run(fmt.Sprintf("%s,%dKiB", c.half, c.bytes>>10), func(t *testing.T) {
			page, want := v.page()
			if len(page) > c.bytes {
				t.Fatalf("page of %d bytes, over %d", len(page), c.bytes)
			}
			checkItems(t, page, want, annotate.Options{URL: "https://www.example.org/new.html"})
		})
	}
}

// TestPreLinesEdges checks two <pre> lists of the development half that
// the variants do not make: numbered lines with the date after the link
// (" - 2024-03-28\n2. " stays with the line before it: a date ends it),
// and a size after each link, in the text that starts the next line.
func TestPreLinesEdges(t *testing.T) {
	days := []time.Time{
		time.Date(2024, 3, 28, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 24, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 1, 20, 0, 0, 0, 0, time.UTC), time.Date(2023, 12, 16, 0, 0, 0, 0, time.UTC),
	}
	for name, line := range map[string]func(i int, link string, d time.Time) string{
		"numbered-after": func(i int, link string, d time.Time) string {
			return fmt.Sprintf("%d. %s - %s", i+1, link, d.Format("2006-01-02"))
		},
		"before-size-after": func(i int, link string, d time.Time) string {
			return fmt.Sprintf("%s  %s (%d KB)", d.Format("2 Jan 2006"), link, 3*i+2)
		},
	} {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			var want []lineItem
			b.WriteString("<html><head><title>What's new</title></head><body>\n<pre>\n")
			for i, d := range days {
				it := lineItem{title: lineTitles[i], link: fmt.Sprintf("https://www.example.org/n%d.html", i), date: d}
				b.WriteString(line(i, fmt.Sprintf(`<a href="n%d.html">%s</a>`, i, it.title), d) + "\n")
				want = append(want, it)
			}
			b.WriteString("</pre>\n</body></html>\n")
			checkItems(t, []byte(b.String()), want, annotate.Options{URL: "https://www.example.org/new.html"})
		})
	}
}
