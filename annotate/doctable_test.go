package annotate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// Titles that repeat. A council's table of documents has a few kinds of
// document ("Regular Council Meeting Minutes") over hundreds of rows,
// each row its own document and date: the rows are the items, with
// their repeated titles. A list whose titles repeat because they are
// calls to action ("Leave a reply to this post" under every post) is
// not: there the posts are.

// docVariant is one table of documents.
type docVariant struct {
	rows      int
	kinds     int    // distinct titles
	dateFirst bool   // the date column before the document's
	format    string // the dates' layout
	size      bool   // a size column ("PDF, 874 KB")
	classed   bool   // <table class="documents">
	header    bool   // a row of th cells
}

func (v docVariant) name() string {
	return fmt.Sprintf("rows=%d,kinds=%d,dateFirst=%v,format=%q,size=%v,classed=%v,header=%v",
		v.rows, v.kinds, v.dateFirst, v.format, v.size, v.classed, v.header)
}

var docKinds = []string{
	"Regular Council Meeting Minutes", "Regular Council Meeting Agenda", "Special Council Meeting Minutes",
	"Planning Commission Agenda Packet", "Budget Workshop Presentation", "Parks and Recreation Board Minutes",
}

func (v docVariant) page() ([]byte, []lineItem) {
	var b strings.Builder
	b.WriteString("<html><head><title>Agendas and minutes - City of Riverton</title></head><body>\n")
	b.WriteString("<div id=\"nav\"><a href=\"/\">Home</a> | <a href=\"/council\">Council</a> | <a href=\"/contact\">Contact</a></div>\n")
	b.WriteString("<h1>Agendas and minutes</h1>\n")
	if v.classed {
		b.WriteString("<table class=\"documents\">\n")
	} else {
		b.WriteString("<table border=\"1\">\n")
	}
	cell := func(date, doc, size string) string {
		s := "<tr>"
		if v.dateFirst {
			s += date + doc
		} else {
			s += doc + date
		}
		if v.size {
			s += size
		}
		return s + "</tr>\n"
	}
	if v.header {
		b.WriteString(cell("<th>Meeting date</th>", "<th>Document</th>", "<th>Size</th>"))
	}
	var items []lineItem
	day := time.Date(2015, 6, 20, 0, 0, 0, 0, time.UTC)
	for i := 0; i < v.rows; i++ {
		d := day.AddDate(0, 0, -3*i)
		it := lineItem{
			title: docKinds[i%v.kinds],
			link:  fmt.Sprintf("https://www.example.gov/documents/%s-%d.pdf", d.Format("2006-01-02"), i%v.kinds),
			date:  d,
		}
		items = append(items, it)
		b.WriteString(cell("<td>"+d.Format(v.format)+"</td>",
			fmt.Sprintf(`<td><a href="/documents/%s-%d.pdf">%s</a></td>`, d.Format("2006-01-02"), i%v.kinds, it.title),
			fmt.Sprintf("<td>PDF, %d KB</td>", 90+(i*37)%900)))
	}
	b.WriteString("</table>\n<p>Older documents are available from the City Clerk.</p>\n</body></html>\n")
	return []byte(b.String()), items
}

// docVariants are a half's tables: development seeds 1-24, held-out
// 101-124.
func docVariants(half string) []docVariant {
	formats := []string{"January 2, 2006", "01/02/2006", "2006-01-02", "2 Jan 2006"}
	var out []docVariant
	for _, r := range halfRands(half, 24) {
		out = append(out, docVariant{
			rows:      []int{40, 120, 300, 600, 1500}[r.Intn(5)],
			kinds:     2 + r.Intn(len(docKinds)-1),
			dateFirst: r.Intn(3) > 0,
			format:    formats[r.Intn(len(formats))],
			size:      r.Intn(3) > 0,
			classed:   r.Intn(2) == 0,
			header:    r.Intn(4) > 0,
		})
	}
	return out
}

// ctaVariant is a list of posts each followed by links that call to
// action, alike in every post: the posts are the items.
type ctaVariant struct {
	posts   int
	ctas    int  // links under each post, each with its own text
	excerpt int  // words of the excerpt
	article bool // <article> rather than <div>
	dated   bool // the links in a line with the post's date, not a list
}

func (v ctaVariant) name() string {
	return fmt.Sprintf("posts=%d,ctas=%d,excerpt=%d,article=%v,dated=%v", v.posts, v.ctas, v.excerpt, v.article, v.dated)
}

var ctaTexts = []string{"Leave a reply to this post", "Share this story with friends", "Print this page for later", "Subscribe to these updates"}

func (v ctaVariant) page() ([]byte, []lineItem) {
	var b strings.Builder
	b.WriteString("<html><head><title>Parish news</title></head><body>\n<h1>Parish news</h1>\n")
	var items []lineItem
	for i := 0; i < v.posts; i++ {
		it := lineItem{
			title: fmt.Sprintf("%s (%d)", lineTitles[i%len(lineTitles)], i+1),
			link:  fmt.Sprintf("https://www.example.org/news/%d.html", i),
		}
		excerpt := sentenceOf(i, v.excerpt)
		var ctas strings.Builder
		// The post's date is not checked: with a short excerpt the
		// headings win over the posts, on main too.
		it.anyDate = true
		if v.dated {
			date := time.Date(2024, 12, 28, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -2*i)
			ctas.WriteString("<p class=\"actions\">Posted on " + date.Format("2 January 2006"))
		} else {
			ctas.WriteString("<ul class=\"actions\">")
		}
		for k := 0; k < v.ctas; k++ {
			if v.dated {
				fmt.Fprintf(&ctas, ` | <a href="/news/%d/%d">%s</a>`, i, k, ctaTexts[k])
			} else {
				fmt.Fprintf(&ctas, `<li><a href="/news/%d/%d">%s</a></li>`, i, k, ctaTexts[k])
			}
		}
		if v.dated {
			ctas.WriteString("</p>")
		} else {
			ctas.WriteString("</ul>")
		}
		items = append(items, it)
		tag := "div"
		if v.article {
			tag = "article"
		}
		fmt.Fprintf(&b, "<%s class=\"post\"><h2><a href=\"/news/%d.html\">%s</a></h2><p>%s</p>%s</%s>\n", tag, i, it.title, excerpt, ctas.String(), tag)
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String()), items
}

func ctaVariants(half string) []ctaVariant {
	var out []ctaVariant
	for _, r := range halfRands(half, 12) {
		out = append(out, ctaVariant{posts: 4 + r.Intn(60), ctas: 1 + r.Intn(len(ctaTexts)), excerpt: 3 + r.Intn(12), article: r.Intn(3) == 0, dated: r.Intn(2) == 0})
	}
	return out
}

func runRepeatedTitles(t *testing.T, half string) {
	docs, docsSel, ctas, ctasSel := 0, 0, 0, 0
	for _, v := range docVariants(half) {
		t.Run("docs,"+v.name(), func(t *testing.T) {
			page, want := v.page()
			a, s := checkItems(t, page, want, annotate.Options{URL: "https://www.example.gov/agendas/"})
			docs, docsSel = docs+b2i(a), docsSel+b2i(s)
		})
	}
	for _, v := range ctaVariants(half) {
		t.Run("cta,"+v.name(), func(t *testing.T) {
			page, want := v.page()
			a, s := checkItems(t, page, want, annotate.Options{URL: "https://www.example.org/"})
			ctas, ctasSel = ctas+b2i(a), ctasSel+b2i(s)
		})
	}
	t.Logf("%s half: documents tables right on %d of %d (selectors %d), posts with calls to action on %d of %d (selectors %d)",
		half, docs, len(docVariants(half)), docsSel, ctas, len(ctaVariants(half)), ctasSel)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRepeatedTitlesDev(t *testing.T) { runRepeatedTitles(t, "dev") }

func TestRepeatedTitlesHeldOut(t *testing.T) { runRepeatedTitles(t, "heldout") }
