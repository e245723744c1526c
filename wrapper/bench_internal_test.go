package wrapper

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/internal/cputime"
	"golang.org/x/net/html"
)

// BenchPage is benchPage for the package's external tests.
var BenchPage = benchPage

var benchNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// benchPage builds a page of about 200 KB shaped like a legacy newspaper
// front page: a head with scripts and styles, navigation, sidebars of links
// and tables, ads, and 50 annotated items (title, link, description and
// date), most of its bytes unannotated markup.
func benchPage() []byte {
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">
<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>The Valley Gazette - Front page</title>
<link rel="stylesheet" href="/css/site.css"><style type="text/css">
body { font-family: Verdana, sans-serif } td.nav a { color: #036 } .ad { border: 1px solid #ccc }
</style>
<script type="text/javascript"><!--
function swap(i, s) { if (document.images) { document.images[i].src = s; } }
var tracker = { id: "UA-000000", pages: ["front", "news", "sports"] };
//--></script></head>
<body bgcolor="#ffffff" leftmargin="0" topmargin="0">
<!-- <channel:title> -->The Valley Gazette<!-- </channel:title> -->
<!-- <channel:description> -->All the news from the valley.<!-- </channel:description> -->
<!-- <channel:extension uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="language">en-us</channel:extension> -->
`)
	nav := func(n int) {
		b.WriteString(`<table width="100%" border="0" cellpadding="4" cellspacing="0" bgcolor="#E0E8F0"><tr>` + "\n")
		for i := range n {
			fmt.Fprintf(&b, `  <td class="nav"><a href="/section/%d/" onmouseover="swap('n%d','/img/nav-%d-on.gif')"><img name="n%d" src="/img/nav-%d.gif" width="80" height="20" border="0" alt="Section %d"></a></td>`+"\n", i, i, i, i, i, i)
		}
		b.WriteString("</tr></table>\n")
	}
	sidebar := func(k int) {
		b.WriteString(`<td width="200" valign="top" bgcolor="#F4F4F4"><font face="Verdana" size="1">` + "\n")
		for i := range 5 {
			fmt.Fprintf(&b, `<p class="side"><a href="/archive/2005/%02d/%02d/story-%d.html" title="From the archive">Archive story %d-%d</a><br><span style="color:#666">%d comments &middot; <a href="/comments/%d-%d">discuss</a></span></p>`+"\n", k%12+1, i+1, k*100+i, k, i, i*3, k, i)
		}
		b.WriteString(`<div class="ad"><script type="text/javascript">document.write('<a href="/ads/click?id=` + fmt.Sprint(k) + `"><img src="/ads/banner.gif"></a>');</script><noscript><a href="/ads/click"><img src="/ads/banner.gif" alt="Advertisement"></a></noscript></div>` + "\n")
		b.WriteString("</font></td>\n")
	}
	nav(10)
	for i := 1; i <= 50; i++ {
		b.WriteString(`<table width="100%" border="0" cellpadding="8" cellspacing="0"><tr valign="top">` + "\n")
		sidebar(i)
		fmt.Fprintf(&b, `<td><!-- story %d -->
<h3><font face="Georgia"><!-- <item:link index="%d"> --><a href="/news/2005/12/%02d/story-%d.html"><!-- </item:link> --><!-- <item:title index="%d"> -->Story number %d: the council, the bridge &amp; the budget<!-- </item:title> --></a></font></h3>
<font size="1" color="#666666">By Staff Writer &middot; <!-- <item:extension index="%d" uri="http://purl.org/dc/elements/1.1/" prefix="dc" localName="date"> -->December %02d, 2005 @ 08:%02d AM<!-- </item:extension> --></font>
<!-- <item:description index="%d"> --><p>After four hours of debate, the town council voted 5&ndash;2 to approve a budget that keeps the
<a href="/library/">library</a> open on Saturdays and adds two firefighters. <b>Story %d</b> continues with more detail about
the bridge, the schools, the roads and the weather, as a front page teaser does. <a href="/news/2005/12/%02d/story-%d.html">Full story</a></p><!-- </item:description> -->
<table border="0" cellpadding="2"><tr><td><img src="/img/thumbs/%d.jpg" width="80" height="60" alt=""></td><td><font size="1">Related: <a href="/related/%d-a.html">one</a> | <a href="/related/%d-b.html">two</a> | <a href="/related/%d-c.html">three</a></font></td></tr></table>
</td>
`, i, i, i%28+1, i, i, i, i, i%28+1, i%60, i, i, i%28+1, i, i, i, i, i)
		sidebar(i + 50)
		b.WriteString("</tr></table>\n")
	}
	nav(10)
	b.WriteString(`<p align="center"><font size="1">Copyright 2005 The Valley Gazette. <a href="/privacy.html">Privacy</a> | <a href="/contact.html">Contact</a></font></p>
</body></html>
`)
	return b.Bytes()
}

// BenchmarkWrap measures extraction throughput on benchPage: the whole of
// Wrap on a page never seen and on a page seen before (its descriptions
// then come from the cache), and its locate phase alone (finding every
// annotation and its content), beside two baselines on the same page in the same run:
// x/net/html's tokenizer walking every token (the least any tokenizing
// extractor does) and html.Parse building the DOM. The wrapper looks
// closely only at comments, so locating runs several times faster than the
// tokenizer; docs/benchmarks/wrapper.md has the figures and the command.
func BenchmarkWrap(b *testing.B) {
	page := benchPage()
	checkBenchPage(b, page)
	b.Run("wrapper", func(b *testing.B) {
		wrapUnseen(b, page)
	})
	b.Run("wrapper-numeric-dates", func(b *testing.B) {
		// A page never seen whose dates are numeric and day first
		// ("23/12/2005 08:50"): in UTC, whose rule is month first, its
		// items of the 1st to the 12th are read again day first, the
		// order the others show (docs/WRAPPER.md "Dates").
		page := numericDates.ReplaceAll(page, []byte("$1/12/2005 08:$2"))
		checkBenchPage(b, page)
		wrapUnseen(b, page)
	})
	b.Run("wrapper-seen", func(b *testing.B) {
		// The same page again, as a poll that finds the page changed
		// elsewhere: every value comes from the memo.
		defer reportCPU(b, len(page))()
		for b.Loop() {
			Wrap(page, Options{URL: "http://gazette.example.com/index.html", RSSID: "bench", Now: benchNow})
		}
	})
	b.Run("wrapper-one-new", func(b *testing.B) {
		// A poll that finds one new item among fifty: the values of 49
		// items come from the memo, those of one are derived, its story
		// link (in its link and its description) a new one each time.
		page := benchPage() // edited in place below, between Wraps
		story := []byte("story-50.html")
		var at []int
		for i := 0; ; {
			k := bytes.Index(page[i:], story)
			if k < 0 {
				break
			}
			at = append(at, i+k)
			i += k + len(story)
		}
		if len(at) != 2 {
			b.Fatalf("item 50's story link is in the page %d times, want 2", len(at))
		}
		memos = newMemo()
		r := Wrap(page, Options{URL: "http://gazette.example.com/index.html", RSSID: "bench", Now: benchNow})
		item := memos.itemEntries(r, 50)
		defer reportCPU(b, len(page))()
		var digits [8]byte
		n := 0
		for b.Loop() {
			n++
			number := strconv.AppendInt(digits[:0], int64(n%100_000_000), 10)
			for _, i := range at {
				copy(page[i:i+len("story-50")], "00000000"[len(number):])
				copy(page[i+len("story-50")-len(number):], number)
			}
			memos.forget(item)
			Wrap(page, Options{URL: "http://gazette.example.com/index.html", RSSID: "bench", Now: benchNow})
		}
	})
	b.Run("locate", func(b *testing.B) {
		defer reportCPU(b, len(page))()
		for b.Loop() {
			locate(page)
		}
	})
	b.Run("annotations", func(b *testing.B) {
		// locate without the decoding: finding the annotations in the
		// page's text, as the tokenizer below walks the page's bytes.
		text := decode(page, "").text
		defer reportCPU(b, len(page))()
		for b.Loop() {
			findAnnotations(text)
		}
	})
	b.Run("baseline-tokenizer", func(b *testing.B) {
		defer reportCPU(b, len(page))()
		for b.Loop() {
			z := html.NewTokenizer(bytes.NewReader(page))
			for z.Next() != html.ErrorToken {
			}
		}
	})
	b.Run("baseline-parse", func(b *testing.B) {
		defer reportCPU(b, len(page))()
		for b.Loop() {
			if _, err := html.Parse(bytes.NewReader(page)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// checkBenchPage fails the benchmark unless page gives 50 items and no
// warning.
func checkBenchPage(b *testing.B, page []byte) {
	r := Wrap(page, Options{URL: "http://gazette.example.com/index.html", RSSID: "bench", Now: benchNow})
	if len(r.Resource.Items) != 50 || len(r.Warnings) != 0 {
		b.Fatalf("the bench page gives %d items and warnings %v", len(r.Resource.Items), r.Warnings)
	}
}

// wrapUnseen measures Wrap on page as a page never seen: none of its
// values is in the memo, and its links, resolved against a host of its
// own, are new to sanitize's decisions.
func wrapUnseen(b *testing.B, page []byte) {
	defer reportCPU(b, len(page))()
	n := 0
	for b.Loop() {
		memos = newMemo()
		n++
		Wrap(page, Options{URL: "http://gazette" + strconv.Itoa(n) + ".example.com/index.html", RSSID: "bench", Now: benchNow})
	}
}

// numericDates finds benchPage's dates ("December 08, 2005 @ 08:25 AM"),
// their day and minutes.
var numericDates = regexp.MustCompile(`December (\d\d), 2005 @ 08:(\d\d) AM`)

// locate is the part of Wrap that finds the annotations and their contents
// in the page: decoding, the scan from '<' to '<', pairing and the sweep;
// what remains of Wrap turns the 50 items' contents into values (sanitized
// descriptions, resolved links, parsed dates). It returns how many
// annotations it found.
func locate(page []byte) int {
	return findAnnotations(decode(page, "").text)
}

// findAnnotations is locate after the decoding: the scan, pairing and
// the sweep over the page's text.
func findAnnotations(text string) int {
	w := &warnings{}
	sc := scan(text, newLines(text), w, false)
	annots, closes := pair(sc.tags, w)
	sweep(text, sc, annots, closes, w)
	sc.release()
	return len(annots)
}

// reportCPU sets the bytes per operation and, when the returned function
// runs after the loop, reports CPU time per operation ("cpu-ns/op") and
// throughput by CPU time ("cpu-MB/s") beside Go's wall-time figures.
func reportCPU(b *testing.B, bytes int) func() {
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	start, ok := cputime.Process()
	return func() {
		end, _ := cputime.Process()
		if !ok || b.N == 0 {
			return
		}
		perOp := float64(end-start) / float64(b.N)
		b.ReportMetric(perOp, "cpu-ns/op")
		b.ReportMetric(float64(bytes)/perOp*1e3, "cpu-MB/s")
	}
}

// itemEntries returns the memo's entries for the values derived from the
// contents of item k of r, by the hash they are stored under.
func (c *memo) itemEntries(r *Result, k int) []uint64 {
	var contents []string
	for _, a := range r.Annotations {
		if a.Item == k {
			contents = append(contents, r.Text[a.ContentStart:a.ContentEnd])
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var sums []uint64
	for sum, e := range c.cur {
		for _, s := range contents {
			if e.key.in != "" && strings.Contains(s, e.key.in) {
				sums = append(sums, sum)
				break
			}
		}
	}
	return sums
}

// forget drops the entries stored under these hashes, as if their values
// had never been derived: a Wrap derives them again, under the same
// hashes. Finding them once, before the benchmark's loop, keeps the
// search through the memo out of the CPU time it reports.
func (c *memo) forget(sums []uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sum := range sums {
		if e := c.cur[sum]; e != nil {
			delete(c.cur, sum)
			c.curBytes -= e.size()
		}
	}
}
