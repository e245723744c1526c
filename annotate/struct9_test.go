package annotate_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// The structures a ninth held-out batch found read wrong (issue 19),
// written again in the manner of the sites they came from: a link that
// wraps the block holding the heading (a Medium-like archive), dated lines
// under month headings (a webcomic's archive), a grid of cards in table
// cells (a Drupal 7 views grid), and featured items in other markup before
// the list (a newspaper's section front, a recipe site, a TYPO3 news list).
// Each class has variants drawn from seeds: the development half (seeds
// from 1) was fixed on, the held-out half (from 101) run only at the end.

// s9Classes are the classes' generators: a page of about size bytes drawn
// from r, and its items in page order.
//
// known says why a class is still read wrong: its pages' errors are
// logged, not failed, and the test fails if they are all read right (the
// reason is then out of date).
var s9Classes = []struct {
	name  string
	gen   func(r *rand.Rand, size int) ([]byte, []lineItem)
	known string
}{
	{"link-wraps-heading", genWrappedHeading, ""},
	{"month-lines", genMonthLines, ""},
	{"grid-cells", genGridCells, ""},
	{"featured-first", genFeatured, ""},
}

// s9KnownPages are the pages of other classes still read wrong, found on
// the held-out half's one run and not fixed there, with why; like a
// known class's, their errors are logged, and each must still fail.
var s9KnownPages = map[string]string{
	"month-lines-heldout-1-14k": "the month in a <b> in the month's <p>: each <p> is taken as an item, beating the lines",
	"month-lines-heldout-1-50k": "the month in a <b> in the month's <p>",
	"month-lines-heldout-2-14k": "the month in a <b> in the month's <p>",
	"month-lines-heldout-2-50k": "the month in a <b> in the month's <p>",
	"month-lines-heldout-4-50k": "each month's <p> is taken as an item, scoring 974 against the lines' 972",
	"month-lines-heldout-6-14k": "the lines are taken, but 22 of 174 are not among them",
	"month-lines-heldout-6-50k": "the lines are taken, but some are not among them",
}

// s9Sizes are the page sizes the held-out batch read the classes at.
var s9Sizes = []int{14 << 10, 50 << 10}

const s9Variants = 8

// s9Page is a variant's page: class, seed and size name it.
type s9Page struct {
	name string
	page []byte
	want []lineItem
}

// s9Pages are the pages of one half of one class: s9Variants seeds, each
// at every size.
func s9Pages(class int, half string) []s9Page {
	var out []s9Page
	for i, r := range halfRands(half, s9Variants) {
		seed := r.Int63()
		for _, size := range s9Sizes {
			page, want := s9Classes[class].gen(rand.New(rand.NewSource(seed)), size)
			out = append(out, s9Page{fmt.Sprintf("%s-%s-%d-%dk", s9Classes[class].name, half, i+1, size>>10), page, want})
		}
	}
	return out
}

// runStruct9 checks every page of one half of every class through the
// annotations, and logs per class how many pages had every item right and
// how many items were found of those expected.
func runStruct9(t *testing.T, half string) {
	for c, class := range s9Classes {
		right, pages, found, want := 0, 0, 0, 0
		for _, p := range s9Pages(c, half) {
			t.Run(p.name, func(t *testing.T) {
				fail := t.Errorf
				knownPage := s9KnownPages[p.name]
				if class.known != "" || knownPage != "" {
					fail = t.Logf
				}
				if knownPage != "" {
					defer func(wasRight int) {
						if right > wasRight {
							t.Errorf("read right, though listed as known to fail (%s)", knownPage)
						}
					}(right)
				}
				res, err := annotate.Suggest(p.page, annotate.Options{URL: s9Base})
				pages++
				want += len(p.want)
				if err != nil {
					fail("%v", err)
					return
				}
				got := res.Wrapped().Resource.Items
				found += min(len(got), len(p.want))
				if wrong := checkLineItems(got, p.want); len(wrong) > 0 {
					fail("list %s: %s", res.List.Path, strings.Join(wrong[:min(len(wrong), 3)], "; "))
					return
				}
				// The selectors give the annotations' items (the
				// featured items too: no records of the list).
				if _, note, err := res.Selectors(); class.name == "featured-first" && (err != nil || note != "") {
					fail("selectors: %v %s", err, note)
					return
				}
				right++
			})
		}
		t.Logf("%s, %s half: every item right on %d of %d pages; %d items of %d found", class.name, half, right, pages, found, want)
		if class.known != "" && right == pages {
			t.Errorf("%s: every page right, though listed as known to fail (%s)", class.name, class.known)
		}
	}
}

func TestStruct9Dev(t *testing.T)     { runStruct9(t, "dev") }
func TestStruct9HeldOut(t *testing.T) { runStruct9(t, "heldout") }

const s9Base = "https://www.example.org/section/"

// s9Abs is the absolute URL of a root-relative path.
func s9Abs(path string) string { return "https://www.example.org" + path }

// genClass is a short class name as CSS-in-JS tools generate them.
func genClass(r *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	n := 2 + r.Intn(2)
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[r.Intn(len(letters))]
	}
	return string(b)
}

func genClasses(r *rand.Rand, n int) string {
	c := make([]string, n)
	for i := range c {
		c[i] = genClass(r)
	}
	return strings.Join(c, " ")
}

// pick is one of choices.
func pick(r *rand.Rand, choices ...string) string { return choices[r.Intn(len(choices))] }

// genWrappedHeading: a Medium-like publication archive. Each story is an
// <article>: an author row (an avatar link, a name link), the story's link
// wrapping a <div> that holds its <h2> (and, in some variants, an <h3>
// subtitle, which is not the title), then its date and reading time.
func genWrappedHeading(r *rand.Rand, size int) ([]byte, []lineItem) {
	cls := map[string]string{}
	c := func(k string) string {
		if _, ok := cls[k]; !ok {
			cls[k] = genClasses(r, 1+r.Intn(4))
		}
		return cls[k]
	}
	subtitle := r.Intn(3)   // 0 none, 1 in the heading's <div>, 2 in a <div> of its own
	thumb := r.Intn(2) == 0 // a thumbnail link to the story after the text
	dateIn := r.Intn(2)     // 0 loose spans beside the link's <div>, 1 in a <div>
	// The heading's generated classes differ between stories in some
	// variants (a longer title clamped otherwise, a story with a
	// picture): its place is then not one path in every record.
	h2Classes := []string{c("h2"), c("h2") + " " + genClasses(r, 1)}
	if r.Intn(2) == 0 {
		h2Classes = h2Classes[:1]
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Archive - The Engineering Log - Medium</title><meta name="viewport" content="width=device-width,minimum-scale=1,initial-scale=1"><style>.%s{display:flex}.%s{font-size:20px}</style></head><body><div id="root"><div class="%s"><div class="%s"><div class="%s"><a href="/?source=post_page-----" aria-label="Homepage"><svg viewBox="0 0 1043.63 592.71" class="%s"><path d="M588.67 296.36c0 163.67-131.78 296.35-294.33 296.35S0 460 0 296.36 131.78 0 294.34 0s294.33 132.69 294.33 296.36"></path></svg></a></div><div class="%s"><a href="/m/signin?operation=login" rel="noopener follow">Sign in</a></div></div></div>`,
		genClass(r), genClass(r), c("top"), c("bar"), c("logo"), c("svg"), c("sign"))
	fmt.Fprintf(&b, "\n"+`<div class="%s"><div class="%s"><h1 class="%s">The Engineering Log</h1><p class="%s">Stories from the team that builds the platform.</p><div class="%s"><a href="/archive/2024">2024</a><a href="/archive/2023">2023</a><a href="/archive/2022">2022</a></div></div><div class="%s">`+"\n",
		c("main"), c("head"), c("h1"), c("tag"), c("years"), c("list"))
	tail := fmt.Sprintf(`</div></div><div class="%s"><a href="https://help.example.org/" rel="noopener follow">Help</a><a href="/about">About</a><a href="/jobs">Careers</a><a href="/privacy">Privacy</a></div></div></body></html>`+"\n", c("foot"))
	var items []lineItem
	day := time.Date(2024, 6, 27, 0, 0, 0, 0, time.UTC)
	for i := 0; ; i++ {
		d := day.AddDate(0, 0, -i*(1+r.Intn(9)))
		slug := fmt.Sprintf("%s-%012x", strings.ToLower(strings.ReplaceAll(lineTitles[i%len(lineTitles)], " ", "-")), r.Int63n(1<<48))
		t := fmt.Sprintf("%s, part %d", lineTitles[i%len(lineTitles)], i+1)
		src := fmt.Sprintf("?source=collection_archive---------%d-----------------------", i)
		author := fmt.Sprintf("/@%s%d", words[r.Intn(len(words))], r.Intn(90))
		var s strings.Builder
		fmt.Fprintf(&s, `<article class="%s"><div class="%s"><div class="%s"><div class="%s"><a href="%s%s" rel="noopener follow"><div class="%s"><img alt="Author %d" class="%s" src="https://miro.example.org/1*%d.png" width="20" height="20" loading="lazy"></div></a></div><div class="%s"><a href="%s%s" rel="noopener follow"><p class="%s">Author %d</p></a></div></div>`,
			c("art"), c("in"), c("row"), c("av"), author, src, c("avw"), i, c("img"), i, c("nm"), author, src, c("p"), i)
		fmt.Fprintf(&s, `<div class="%s"><a href="/%s%s" rel="noopener follow"><div class="%s"><h2 class="%s">%s</h2>`, c("go"), slug, src, c("bf"), h2Classes[r.Intn(len(h2Classes))], t)
		sub := fmt.Sprintf(`<h3 class="%s">How we %s the %s, and what we learnt</h3>`, c("h3"), words[r.Intn(len(words))], words[r.Intn(len(words))])
		switch subtitle {
		case 1:
			s.WriteString(sub + `</div>`)
		case 2:
			fmt.Fprintf(&s, `</div><div class="%s">%s</div>`, c("sub"), sub)
		default:
			s.WriteString(`</div>`)
		}
		s.WriteString(`</a></div>`)
		date := fmt.Sprintf(`<span><span>%s</span></span>· <span>%d min read</span>`, d.Format("Jan 2, 2006"), 2+r.Intn(20))
		if dateIn == 1 {
			date = fmt.Sprintf(`<div class="%s">%s</div>`, c("meta"), date)
		}
		s.WriteString(date)
		if thumb {
			fmt.Fprintf(&s, `<div class="%s"><a href="/%s%s" rel="noopener follow"><img alt="" class="%s" src="https://miro.example.org/resize:fill:160:106/1*%d.jpeg" width="80" height="53" loading="lazy"></a></div>`, c("th"), slug, src, c("thimg"), i)
		}
		s.WriteString("</div></article>\n")
		if b.Len()+s.Len()+len(tail) > size {
			break
		}
		b.WriteString(s.String())
		items = append(items, lineItem{title: t, link: s9Abs("/" + slug + src), date: d})
	}
	b.WriteString(tail)
	return []byte(b.String()), items
}

// genMonthLines: a webcomic's archive, a heading for each month and under
// it a <p> of lines, each a date, a dash and the comic's link, separated
// by <br>s.
func genMonthLines(r *rand.Rand, size int) ([]byte, []lineItem) {
	heading := pick(r, "h3", "h2", "h4", "b")
	sep := pick(r, "<br />", "<br>", "<br/>")
	dash := pick(r, " &mdash; ", " &ndash; ", " - ", " — ")
	format := pick(r, "2006-01-02", "2006-01-02", "2006-1-2")
	// Days between comics: daily, weekly, or a few a month, whose months
	// hold a line or two.
	gap := []int{2, 7, 16, 30, 40}[r.Intn(5)]
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Archive - Quayside Comics</title><link rel="stylesheet" href="/s/style.css"></head><body><div id="topContainer"><div id="topLeft"><ul><li><a href="/archive/">Archive</a></li><li><a href="/about/">About</a></li><li><a href="/store/">Store</a></li></ul></div><div id="masthead"><a href="/"><img src="/s/logo.png" alt="Quayside Comics"></a></div></div>
<div id="middleContainer" class="box"><h1>Archive</h1><p>Every comic so far, the newest first. <a href="/random/">Random comic</a></p>
`)
	tail := `</div><div id="bottom" class="box"><a href="/feed/">Feed</a> | <a href="/license/">License</a><br />Comics licensed for reuse with credit.</div></body></html>` + "\n"
	var items []lineItem
	day := time.Date(2024, 6, 27, 0, 0, 0, 0, time.UTC)
	num := 199999
	for {
		month := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
		var s strings.Builder
		fmt.Fprintf(&s, "<%s>%s</%s>\n<p>", heading, month.Format("January 2006"), heading)
		if heading == "b" {
			s.Reset()
			fmt.Fprintf(&s, "<p><b>%s</b>%s\n", month.Format("January 2006"), sep)
		}
		var monthItems []lineItem
		for first := true; day.After(month) || day.Equal(month); first = false {
			if !first {
				s.WriteString(sep + "\n")
			}
			t := fmt.Sprintf("#%d: %s", num, strings.ToUpper(words[r.Intn(len(words))][:1])+words[r.Intn(len(words))][1:])
			link := fmt.Sprintf("/comic/%d/", num)
			fmt.Fprintf(&s, `%s%s<a href="%s">%s</a>`, day.Format(format), dash, link, t)
			monthItems = append(monthItems, lineItem{title: t, link: s9Abs(link), date: day})
			num--
			day = day.AddDate(0, 0, -1-r.Intn(gap))
		}
		s.WriteString("</p>\n")
		if b.Len()+s.Len()+len(tail) > size {
			break
		}
		b.WriteString(s.String())
		items = append(items, monthItems...)
	}
	b.WriteString(tail)
	return []byte(b.String()), items
}

// genGridCells: a Drupal 7 views grid, cards in the cells of a table, row
// by row; the last row's missing cards are empty cells. A pager and a
// menu block in a sidebar.
func genGridCells(r *rand.Rand, size int) ([]byte, []lineItem) {
	cols := 3 + r.Intn(2)
	image := r.Intn(3) != 0
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML+RDFa 1.0//EN" "http://www.w3.org/MarkUp/DTD/xhtml-rdfa-1.dtd"><html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en"><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8" /><title>Events | Harbour Arts Centre</title><style type="text/css" media="all">@import url("/sites/all/themes/harbour/css/style.css?p9x2k1");</style></head><body class="html not-front not-logged-in one-sidebar sidebar-first page-events">
<div id="page-wrapper"><div id="page"><div id="header"><div class="section clearfix"><a href="/" title="Home" rel="home" id="logo"><img src="/sites/default/files/logo.png" alt="Home" /></a><div id="name-and-slogan"><div id="site-name"><strong><a href="/" title="Home" rel="home"><span>Harbour Arts Centre</span></a></strong></div></div></div></div>
<div id="main-wrapper" class="clearfix"><div id="main" class="clearfix"><div id="content" class="column"><div class="section"><h1 class="title" id="page-title">Events</h1><div class="region region-content"><div id="block-system-main" class="block block-system"><div class="content"><div class="view view-events view-id-events view-display-id-page view-dom-id-4f1c0e"><div class="view-content">
<table class="views-view-grid cols-` + fmt.Sprint(cols) + `"><tbody>
`)
	tail := `</tbody></table></div><h2 class="element-invisible">Pages</h2><div class="item-list"><ul class="pager"><li class="pager-current first">1</li><li class="pager-item"><a title="Go to page 2" href="/events?page=1">2</a></li><li class="pager-item"><a title="Go to page 3" href="/events?page=2">3</a></li><li class="pager-next"><a title="Go to next page" href="/events?page=1">next ›</a></li><li class="pager-last last"><a title="Go to last page" href="/events?page=2">last »</a></li></ul></div></div></div></div></div></div></div>
<div id="sidebar-first" class="column sidebar"><div class="section"><div class="region region-sidebar-first"><div id="block-menu-menu-whats-on" class="block block-menu"><h2>What's on</h2><div class="content"><ul class="menu"><li class="first leaf"><a href="/events/music">Music</a></li><li class="leaf"><a href="/events/theatre">Theatre</a></li><li class="leaf"><a href="/events/film">Film</a></li><li class="leaf"><a href="/events/family">Family</a></li><li class="last leaf"><a href="/events/workshops">Workshops</a></li></ul></div></div></div></div></div></div></div>
<div id="footer"><div class="section"><div class="region region-footer"><p>Harbour Arts Centre, Quay Street. <a href="/contact">Contact us</a></p></div></div></div></div></div></body></html>
`
	var items []lineItem
	day := time.Date(2024, 3, 5, 14, 0, 0, 0, time.UTC)
	cell := func(i int) (string, lineItem) {
		t := fmt.Sprintf("%s at the %s hall", strings.ToUpper(words[r.Intn(len(words))][:1])+words[r.Intn(len(words))][1:]+fmt.Sprint(" ", i+1), words[r.Intn(len(words))])
		path := fmt.Sprintf("/events/%s-%d", strings.ReplaceAll(strings.ToLower(t), " ", "-"), i+1)
		d := day.AddDate(0, 0, 3*i)
		var s strings.Builder
		if image {
			fmt.Fprintf(&s, `<div class="views-field views-field-field-image"><div class="field-content"><a href="%s"><img typeof="foaf:Image" src="/sites/default/files/styles/medium/public/events/ev%d.jpg?itok=Xk2%d" width="220" height="147" alt="" /></a></div></div>`, path, i, i)
		}
		fmt.Fprintf(&s, `<div class="views-field views-field-title"><span class="field-content"><a href="%s">%s</a></span></div><div class="views-field views-field-field-date"><div class="field-content"><span class="date-display-single" property="dc:date" datatype="xsd:dateTime" content="%s">%s</span></div></div><div class="views-field views-field-body"><div class="field-content"><p>%s</p></div></div>`,
			path, t, d.Format("2006-01-02T15:04:05-07:00"), d.Format("Mon, 01/02/2006 - 15:04"), sentence(r.Intn, 10, 25))
		return s.String(), lineItem{title: t, link: s9Abs(path), anyDate: true}
	}
	// The cards that fit, laid out row by row, the last row's missing
	// cards empty cells.
	var cells []string
	for used := b.Len() + len(tail); ; {
		cs, it := cell(len(cells))
		used += len(cs) + 40
		if used+(cols-1)*40 > size {
			break
		}
		cells = append(cells, cs)
		items = append(items, it)
	}
	for row := 0; row*cols < len(cells); row++ {
		rowClass := fmt.Sprintf("row-%d", row+1)
		if row == 0 {
			rowClass += " row-first"
		}
		if (row+1)*cols >= len(cells) {
			rowClass += " row-last"
		}
		fmt.Fprintf(&b, `<tr class="%s">`, rowClass)
		for col := 0; col < cols; col++ {
			colClass := fmt.Sprintf("col-%d", col+1)
			if col == 0 {
				colClass += " col-first"
			}
			if col == cols-1 {
				colClass += " col-last"
			}
			content := ""
			if k := row*cols + col; k < len(cells) {
				content = cells[k]
			}
			fmt.Fprintf(&b, "\n"+`<td class="%s">%s</td>`, colClass, content)
		}
		b.WriteString(" </tr>\n")
	}
	b.WriteString(tail)
	return []byte(b.String()), items
}

// genFeatured: featured items in other markup before the list, in one of
// three sites' manners: a newspaper's section front (a lead story, four
// secondary stories, the river, and a "Most popular" aside that is no
// item), a recipe site (a featured recipe, then the grid of cards), a
// TYPO3 news list (two top stories, then the list). The featured items
// come first, in page order.
func genFeatured(r *rand.Rand, size int) ([]byte, []lineItem) {
	switch r.Intn(3) {
	case 0:
		return genSectionFront(r, size)
	case 1:
		return genRecipes(r, size)
	}
	return genTypo3(r, size)
}

func genSectionFront(r *rand.Rand, size int) ([]byte, []lineItem) {
	var items []lineItem
	n := 0
	story := func() (string, string, time.Time) {
		n++
		t := fmt.Sprintf("%s: %s", strings.ToUpper(words[r.Intn(len(words))][:1])+words[r.Intn(len(words))][1:], strings.TrimSuffix(sentence(r.Intn, 5, 9), "."))
		path := fmt.Sprintf("/news/2024/jun/%02d/%s-%d", 1+n%28, strings.ReplaceAll(strings.ToLower(t[:strings.Index(t, ":")]), " ", "-"), 1000+n)
		return t, path, time.Date(2024, 6, 28-n%27, 9+n%12, n%60, 0, 0, time.UTC)
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en-GB"><head><meta charset="utf-8"><title>Local news | The Harbour Gazette</title><meta name="description" content="The latest local news from the Harbour Gazette"></head><body><header class="site-header"><a class="site-logo" href="/">The Harbour Gazette</a><nav class="primary-nav"><ul><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li><li><a href="/opinion">Opinion</a></li><li><a href="/culture">Culture</a></li></ul></nav></header>
<main id="maincontent" class="section-front"><h1 class="section-title">Local news</h1>
`)
	t, p, d := story()
	fmt.Fprintf(&b, `<section class="lead-story"><article class="story story--lead"><a class="story__media" href="%s"><img src="/img/lead-%d.jpg" alt="" width="940" height="528"></a><h2 class="story__headline story__headline--xl"><a href="%s">%s</a></h2><p class="story__standfirst">%s</p><time class="story__time" datetime="%s">%s</time></article></section>`+"\n",
		p, n, p, t, sentence(r.Intn, 12, 24), d.Format(time.RFC3339), d.Format("Mon 2 Jan 2006 15.04 MST"))
	items = append(items, lineItem{title: t, link: s9Abs(p), anyDate: true})
	b.WriteString(`<section class="secondary-stories"><ul class="story-grid">`)
	for k := 0; k < 4; k++ {
		t, p, d := story()
		fmt.Fprintf(&b, `<li class="story-grid__item"><article class="story story--secondary"><a class="story__media" href="%s"><img src="/img/s-%d.jpg" alt="" width="300" height="169"></a><h3 class="story__headline"><a href="%s">%s</a></h3><time class="story__time" datetime="%s">%s</time></article></li>`,
			p, n, p, t, d.Format(time.RFC3339), d.Format("Mon 2 Jan 2006 15.04 MST"))
		items = append(items, lineItem{title: t, link: s9Abs(p), anyDate: true})
	}
	b.WriteString("</ul></section>\n<div class=\"columns\"><section class=\"river\"><h2 class=\"river__title\">Latest</h2><ol class=\"river__list\">\n")
	var popular strings.Builder
	popular.WriteString(`<aside class="most-popular"><h2>Most popular</h2><ol class="most-popular__list">`)
	for k := 0; k < 10; k++ {
		t, p, _ := story()
		fmt.Fprintf(&popular, `<li><a href="%s"><span class="rank">%d</span>%s</a></li>`, p, k+1, t)
	}
	popular.WriteString("</ol></aside>")
	tail := "</ol></section>" + popular.String() + `</div></main><footer class="site-footer"><ul><li><a href="/about">About us</a></li><li><a href="/contact">Contact</a></li><li><a href="/terms">Terms</a></li><li><a href="/privacy">Privacy</a></li></ul><p>© 2024 The Harbour Gazette</p></footer></body></html>` + "\n"
	for {
		t, p, d := story()
		var s strings.Builder
		s.WriteString(`<li class="river__item"><article class="story story--river">`)
		if r.Intn(2) == 0 {
			fmt.Fprintf(&s, `<a class="story__thumb" href="%s"><img src="/img/t-%d.jpg" alt="" width="140" height="79"></a>`, p, n)
		}
		fmt.Fprintf(&s, `<h4 class="story__headline"><a href="%s">%s</a></h4><p class="story__standfirst">%s</p><time class="story__time" datetime="%s">%s</time></article></li>`+"\n",
			p, t, sentence(r.Intn, 10, 20), d.Format(time.RFC3339), d.Format("Mon 2 Jan 2006 15.04 MST"))
		if b.Len()+s.Len()+len(tail) > size {
			break
		}
		b.WriteString(s.String())
		items = append(items, lineItem{title: t, link: s9Abs(p), anyDate: true})
	}
	b.WriteString(tail)
	return []byte(b.String()), items
}

func genRecipes(r *rand.Rand, size int) ([]byte, []lineItem) {
	var items []lineItem
	n := 0
	recipe := func() (string, string) {
		n++
		t := fmt.Sprintf("%s %s with %s", strings.ToUpper(pick(r, "roast", "grilled", "slow-cooked", "spiced", "baked")[:1])+pick(r, "oast", "rilled", "low-cooked", "piced", "aked"), pick(r, "chicken", "salmon", "aubergine", "lamb", "squash", "tofu"), pick(r, "lemon", "herbs", "chickpeas", "rice", "greens", "yoghurt"))
		t = fmt.Sprintf("%s (%d)", t, n)
		return t, fmt.Sprintf("/recipes/%s-%d/", strings.ReplaceAll(strings.ToLower(t[:strings.Index(t, " (")]), " ", "-"), n)
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Weeknight dinners - Kitchen Table</title></head><body class="archive category"><header class="site-header"><div class="wrap"><p class="site-title"><a href="/">Kitchen Table</a></p><nav class="nav-primary"><ul id="menu-main" class="menu"><li class="menu-item"><a href="/recipes/">Recipes</a></li><li class="menu-item"><a href="/about/">About</a></li><li class="menu-item"><a href="/shop/">Shop</a></li></ul></nav></div></header>
<div class="site-inner"><main class="content"><header class="archive-description"><h1 class="archive-title">Weeknight dinners</h1><p>Quick suppers for busy evenings.</p></header>
`)
	t, p := recipe()
	fmt.Fprintf(&b, `<section class="featured-recipe"><h2 class="section-label">Featured recipe</h2><div class="hero-card"><a class="hero-card__image" href="%s"><img src="/wp-content/uploads/hero-%d.jpg" alt="" width="1200" height="675"></a><div class="hero-card__body"><h3 class="hero-card__title"><a href="%s">%s</a></h3><p class="hero-card__excerpt">%s</p><a class="button" href="%s">Get the recipe</a></div></div></section>`+"\n",
		p, n, p, t, sentence(r.Intn, 12, 22), p)
	items = append(items, lineItem{title: t, link: s9Abs(p), anyDate: true})
	b.WriteString(`<section class="recipe-grid"><h2 class="section-label">All weeknight dinners</h2><div class="grid">` + "\n")
	tail := `</div><nav class="archive-pagination"><ul><li class="active"><a href="/recipes/weeknight/">1</a></li><li><a href="/recipes/weeknight/page/2/">2</a></li><li class="pagination-next"><a href="/recipes/weeknight/page/2/">Next Page »</a></li></ul></nav></section></main><aside class="sidebar"><section class="widget"><h3 class="widgettitle">Categories</h3><ul><li><a href="/recipes/baking/">Baking</a></li><li><a href="/recipes/vegetarian/">Vegetarian</a></li><li><a href="/recipes/weeknight/">Weeknight dinners</a></li></ul></section></aside></div><footer class="site-footer"><p>Copyright © 2024 Kitchen Table · <a href="/privacy/">Privacy</a></p></footer></body></html>` + "\n"
	for {
		t, p := recipe()
		s := fmt.Sprintf(`<article class="recipe-card"><a class="recipe-card__image" href="%s"><img src="/wp-content/uploads/r-%d-400x300.jpg" alt="" width="400" height="300"></a><h3 class="recipe-card__title"><a href="%s">%s</a></h3><p class="recipe-card__meta"><span class="time">%d mins</span> · <span class="rating">%d reviews</span></p></article>`+"\n",
			p, n, p, t, 15+5*r.Intn(12), r.Intn(300))
		if b.Len()+len(s)+len(tail) > size {
			break
		}
		b.WriteString(s)
		items = append(items, lineItem{title: t, link: s9Abs(p), anyDate: true})
	}
	b.WriteString(tail)
	return []byte(b.String()), items
}

func genTypo3(r *rand.Rand, size int) ([]byte, []lineItem) {
	var items []lineItem
	n := 0
	themen := strings.Fields("Hafen Bibliothek Schule Markt Brücke Rathaus Museum Radweg Spielplatz Feuerwehr Bürgerbüro Stadtpark")
	news := func() (string, string, time.Time) {
		n++
		t := fmt.Sprintf("%s: %s wird %s (%d)", themen[r.Intn(len(themen))], pick(r, "Neubau", "Sanierung", "Umbau", "Eröffnung"), pick(r, "verschoben", "beschlossen", "gefeiert", "vorgestellt"), n)
		return t, fmt.Sprintf("/aktuelles/detail/news-%d/", 4000-n), time.Date(2024, 6, 28-n%27, 0, 0, 0, 0, time.UTC)
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="de-DE"><head><meta charset="utf-8"><!--
	This website is powered by TYPO3 - inspiring people to share!
	--><title>Aktuelles: Stadt Hafenau</title></head><body id="p12"><div class="page"><header class="header"><a class="logo" href="/"><img src="/typo3conf/ext/site/Resources/Public/Images/logo.svg" alt="Stadt Hafenau"></a><nav class="mainnav"><ul><li><a href="/rathaus/">Rathaus</a></li><li class="active"><a href="/aktuelles/">Aktuelles</a></li><li><a href="/leben/">Leben</a></li></ul></nav></header>
<main class="main"><div id="c101" class="frame frame-default frame-type-header"><header><h1>Aktuelles</h1></header></div>
`)
	b.WriteString(`<div id="c102" class="frame frame-default frame-type-list"><div class="news news-top"><h2>Top-Meldungen</h2>`)
	for k := 0; k < 2; k++ {
		t, p, d := news()
		fmt.Fprintf(&b, `<div class="article articletype-0 topnews" itemscope="itemscope" itemtype="http://schema.org/Article"><div class="news-img-wrap"><a href="%s" title="%s"><img src="/fileadmin/_processed_/top%d.jpg" width="400" height="250" alt="" /></a></div><div class="header"><h3><a title="%s" href="%s"><span itemprop="headline">%s</span></a></h3></div><div class="footer"><p><span class="news-list-date"><time itemprop="datePublished" datetime="%s">%s</time></span></p></div><div class="teaser-text" itemprop="description"><p>%s</p></div></div>`,
			p, t, k, t, p, t, d.Format("2006-01-02"), d.Format("02.01.2006"), sentence(r.Intn, 10, 20))
		items = append(items, lineItem{title: t, link: s9Abs(p), date: d})
	}
	b.WriteString("</div></div>\n" + `<div id="c103" class="frame frame-default frame-type-list"><div class="news"><div class="news-list-view" id="news-container-103">` + "\n")
	tail := `<div class="page-navigation"><p>Seite 1 von 7.</p><ul class="f3-widget-paginator"><li class="current">1</li><li><a href="/aktuelles/page-2/">2</a></li><li><a href="/aktuelles/page-3/">3</a></li><li class="next"><a href="/aktuelles/page-2/">nächste</a></li></ul></div></div></div></div></main><footer class="footer"><ul><li><a href="/impressum/">Impressum</a></li><li><a href="/datenschutz/">Datenschutz</a></li><li><a href="/barrierefreiheit/">Barrierefreiheit</a></li></ul></footer></div></body></html>` + "\n"
	for {
		t, p, d := news()
		var s strings.Builder
		s.WriteString(`<div class="article articletype-0" itemscope="itemscope" itemtype="http://schema.org/Article">`)
		if r.Intn(2) == 0 {
			fmt.Fprintf(&s, `<div class="news-img-wrap"><a href="%s" title="%s"><img src="/fileadmin/_processed_/n%d.jpg" width="200" height="125" alt="" /></a></div>`, p, t, n)
		}
		fmt.Fprintf(&s, `<div class="header"><h3><a title="%s" href="%s"><span itemprop="headline">%s</span></a></h3></div><div class="footer"><p><span class="news-list-date"><time itemprop="datePublished" datetime="%s">%s</time></span></p></div><div class="teaser-text" itemprop="description"><p>%s</p></div></div>`+"\n",
			t, p, t, d.Format("2006-01-02"), d.Format("02.01.2006"), sentence(r.Intn, 10, 24))
		if b.Len()+s.Len()+len(tail) > size {
			break
		}
		b.WriteString(s.String())
		items = append(items, lineItem{title: t, link: s9Abs(p), date: d})
	}
	b.WriteString(tail)
	return []byte(b.String()), items
}
