package annotate_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
)

// A legacy list of lines: one item a line, inline siblings in one <p> or
// <td> separated by <br>, the date before the link or after it. Each
// item must get the date of its own line, through the annotations and
// through the selectors (runs cut from link to link gave each item the
// next line's date).

// lineVariant is one page of lines.
type lineVariant struct {
	container string // p, td, td-font, div
	sep       string // what ends a line
	date      string // before, before-b, after, none
	format    string // a layout of time.Format the dates package reads
	joiner    string // between the date and the link
	leadIn    string // before the first line: "", a sentence and a <br> (br), a heading in <b> and a <br> (bold), or a sentence on the first line (inline)
	trailer   bool   // a line of text after the last
	items     int
}

func (v lineVariant) name() string {
	return fmt.Sprintf("%s,sep=%q,date=%s,format=%q,joiner=%q,lead=%s,trailer=%v,n=%d",
		v.container, v.sep, v.date, v.format, v.joiner, v.leadIn, v.trailer, v.items)
}

// lineItem is what an item of a generated page must be read as.
type lineItem struct {
	title, link string
	date        time.Time // zero: none
	anyDate     bool      // the date is not checked
}

var lineTitles = []string{
	"Harbour works begin on the north quay", "New opening hours for the town library",
	"Results of the spring regatta", "Council approves the cycling plan",
	"Water supply interrupted in the old town", "Volunteers wanted for the summer festival",
	"School holidays: the sports centre programme", "Road closure on the coast road",
}

func (v lineVariant) page() ([]byte, []lineItem) {
	var b strings.Builder
	var items []lineItem
	b.WriteString("<html><head><title>Press releases</title></head><body>\n<h1>Town hall</h1>\n")
	open, end := "<p>", "</p>"
	switch v.container {
	case "td":
		open, end = "<table><tr><td valign=top>", "</td></tr></table>"
	case "td-font":
		open, end = "<table><tr><td><font face=\"Arial\" size=\"2\">", "</font></td></tr></table>"
	case "div":
		open, end = "<div class=\"news\">", "</div>"
	}
	b.WriteString(open + "\n")
	switch v.leadIn {
	case "br":
		b.WriteString("Our press releases, the latest first:" + v.sep + "\n")
	case "bold":
		b.WriteString("<b>Press releases</b>" + v.sep + "\n")
	case "inline":
		b.WriteString("Latest: ")
	}
	day := time.Date(2014, 3, 28, 0, 0, 0, 0, time.UTC)
	for i := 0; i < v.items; i++ {
		// Days from 13 on: no date reads as day/month and month/day both.
		d := day.AddDate(0, -i, -(i%7)*2)
		it := lineItem{
			title: fmt.Sprintf("%s (%d)", lineTitles[i%len(lineTitles)], i+1),
			link:  fmt.Sprintf("https://www.example.org/press/pr%d.html", i),
		}
		link := fmt.Sprintf(`<a href="press/pr%d.html">%s</a>`, i, it.title)
		ds := d.Format(v.format)
		switch v.date {
		case "before":
			b.WriteString(ds + v.joiner + link)
			it.date = d
		case "before-b":
			b.WriteString("<b>" + ds + "</b>" + v.joiner + link)
			it.date = d
		case "after":
			b.WriteString(link + " (" + ds + ")")
			it.date = d
		default:
			b.WriteString(link)
		}
		b.WriteString(v.sep + "\n")
		items = append(items, it)
	}
	if v.trailer {
		b.WriteString("Older releases are kept at the town hall.\n")
	}
	b.WriteString(end + "\n<p>Town hall, 1 Quay Street</p>\n</body></html>\n")
	return []byte(b.String()), items
}

// lineVariants are the variants of a half, drawn from its seeds: the
// development half (seeds 1-48) was tuned on, the held-out half
// (101-148) run once at the end.
func lineVariants(half string) []lineVariant {
	containers := []string{"p", "td", "td-font", "div"}
	seps := []string{"<br>", "<br/>", "<BR>", "<br />", "<br>\n<br>"}
	dates := []string{"before", "before", "before-b", "after", "none"}
	formats := []string{"02.01.2006", "2 January 2006", "January 2, 2006", "2006-01-02", "02/01/2006", "Jan 2, 2006"}
	joiners := []string{" - ", ": ", " | ", " &ndash; ", "&nbsp;&nbsp;", " "}
	var out []lineVariant
	for _, r := range halfRands(half, 48) {
		out = append(out, lineVariant{
			container: containers[r.Intn(len(containers))],
			sep:       seps[r.Intn(len(seps))],
			date:      dates[r.Intn(len(dates))],
			format:    formats[r.Intn(len(formats))],
			joiner:    joiners[r.Intn(len(joiners))],
			leadIn:    []string{"", "br", "bold", "inline"}[r.Intn(4)],
			trailer:   r.Intn(3) == 0,
			items:     3 + r.Intn(30),
		})
	}
	return out
}

// checkLineItems compares the items read with those of the page.
func checkLineItems(got []dynamo.Item, want []lineItem) []string {
	var wrong []string
	if len(got) != len(want) {
		return []string{fmt.Sprintf("%d items, want %d", len(got), len(want))}
	}
	for i, it := range got {
		w := want[i]
		d, ok := it.Date()
		switch {
		case it.Title != w.title || it.Link != w.link:
			wrong = append(wrong, fmt.Sprintf("item %d: %q %s, want %q %s", i+1, it.Title, it.Link, w.title, w.link))
		case w.anyDate:
		case w.date.IsZero() && ok:
			wrong = append(wrong, fmt.Sprintf("item %d: date %s, want none", i+1, d.Format("2006-01-02")))
		case !w.date.IsZero() && (!ok || d.Format("2006-01-02") != w.date.Format("2006-01-02")):
			wrong = append(wrong, fmt.Sprintf("item %d: date %v (%v), want %s", i+1, d.Format("2006-01-02"), ok, w.date.Format("2006-01-02")))
		}
	}
	return wrong
}

// halfRands are the generators of a half's n variants: the development
// half's seeds from 1, the held-out half's from 101.
func halfRands(half string, n int) []*rand.Rand {
	first := 1
	if half == "heldout" {
		first = 101
	}
	out := make([]*rand.Rand, n)
	for i := range out {
		out[i] = rand.New(rand.NewSource(int64(first + i)))
	}
	return out
}

// followSuggested applies the selectors offered for a suggestion to its
// page: the items they give, the selectors and their note.
func followSuggested(t *testing.T, res *annotate.Result, page []byte, opts annotate.Options) ([]dynamo.Item, annotate.Selectors, string) {
	t.Helper()
	sel, note, err := res.Selectors()
	if err != nil {
		t.Fatalf("selectors: %v", err)
	}
	c, err := sel.Compile()
	if err != nil {
		t.Fatal(err)
	}
	f, err := annotate.Follow(page, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f.Wrapped.Resource.Items, sel, note
}

// checkItems checks one page's items through the annotations and
// through the selectors, and says which were right.
func checkItems(t *testing.T, page []byte, want []lineItem, opts annotate.Options) (annotated, selected bool) {
	t.Helper()
	res, err := annotate.Suggest(page, opts)
	if err != nil {
		t.Fatal(err)
	}
	wrong := checkLineItems(res.Wrapped().Resource.Items, want)
	if len(wrong) > 0 {
		t.Errorf("annotations (list %s): %s", res.List.Path, strings.Join(wrong[:min(len(wrong), 3)], "; "))
	}
	items, sel, note := followSuggested(t, res, page, opts)
	wrongSel := checkLineItems(items, want)
	if len(wrongSel) > 0 {
		t.Errorf("selectors %+v (note %q): %s", sel, note, strings.Join(wrongSel[:min(len(wrongSel), 3)], "; "))
	}
	return len(wrong) == 0, len(wrongSel) == 0
}

// dateLines is a page of dated lines whose every item's title, link and
// date are known: lineVariant here, preVariant for lines in a <pre>.
type dateLines interface {
	name() string
	page() ([]byte, []lineItem)
}

// runDateLines checks every variant of one half through the annotations
// and the selectors (checkItems), each read against pageURL, and logs how
// many were right each way.
func runDateLines[V dateLines](t *testing.T, half string, vs []V, pageURL string) {
	annotated, selected := 0, 0
	for _, v := range vs {
		t.Run(v.name(), func(t *testing.T) {
			page, want := v.page()
			a, s := checkItems(t, page, want, annotate.Options{URL: pageURL})
			annotated, selected = annotated+b2i(a), selected+b2i(s)
		})
	}
	t.Logf("%s half: every item's title, link and date right on %d of %d variants through the annotations, %d through the selectors", half, annotated, len(vs), selected)
}

func TestLineDatesDev(t *testing.T) {
	runDateLines(t, "dev", lineVariants("dev"), "https://www.example.org/press.html")
}

func TestLineDatesHeldOut(t *testing.T) {
	runDateLines(t, "heldout", lineVariants("heldout"), "https://www.example.org/press.html")
}
