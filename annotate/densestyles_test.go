package annotate_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// The dense style pages: 10 MiB pages of 40,000–90,000 small items
// (110–250 bytes each) in the styles that hold that many: a web
// directory, a mailing list's archive in HTML 3.2 capitals, a wiki's
// recent changes table, a changelog, a news page of flat paragraphs in a
// layout table, an aggregator's two-rows-per-item table and an article
// list below a one-line pager of the same selector. Per-record work
// counts most on them (issue 19's speed aim); TestDenseStylePages checks
// every item's title and link, and BenchmarkDenseStyles measures them.
//
// `go test ./annotate -run '^TestDenseStylePages$' -args -stylepages DIR`
// writes them into DIR as dense-NAME.html, to time the command on them.

var denseStyleGens = map[string]styleGen{
	"directory":      genDenseDirectory,
	"pipermail":      genDensePipermail,
	"recent-changes": genDenseRecentChanges,
	"changelog":      genDenseChangelog,
	"flat-news":      genDenseFlatNews,
	"aggregator":     genDenseAggregator,
	"pager-articles": genDensePagerArticles,
}

var denseStyleNames = []string{"directory", "pipermail", "recent-changes", "changelog", "flat-news", "aggregator", "pager-articles"}

func denseStylePageOf(name string, size int) stylePage {
	return denseStyleGens[name](nameRand(name, 23, 37), size)
}

// shortTitle is a distinct title of two to four words and a number.
func shortTitle(r *rand.Rand, i int) string {
	n := 2 + r.IntN(3)
	w := make([]string, n)
	for k := range w {
		w[k] = words[r.IntN(len(words))]
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return fmt.Sprintf("%s %d", strings.Join(w, " "), i)
}

// genDenseDirectory: a web directory, one <div> a site: its name linking
// to it, a dash and a few words.
func genDenseDirectory(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Links: Local history</title></head><body><div class="top"><a href="/">Directory</a> &gt; <a href="/history/">History</a></div><h2>Local history sites</h2><div class="sites">` + "\n")
	tail := `</div><div class="foot"><a href="/add.html">Add a site</a> | <a href="/about.html">About</a></div></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := shortTitle(r, i)
		link := fmt.Sprintf("http://www.site%d.example.net/", i)
		s := fmt.Sprintf(`<div class="site"><a href="%s">%s</a> - %s</div>`+"\n", link, t, sentence(r.IntN, 3, 8))
		return s, styleItem{t, link}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// genDensePipermail: a mailing list's archive by date in HTML 3.2
// capitals, as Pipermail writes it: a subject link, an anchor and the
// author in <I>, the lines in <LI>s that are never closed.
func genDensePipermail(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2//EN"><HTML><HEAD><title>The Users March 2024 Archive by date</title><META NAME="robots" CONTENT="noindex,follow"></HEAD><BODY BGCOLOR="#ffffff">
<a name="start"></A><h1>March 2024 Archives by date</h1><ul><li> <b>Messages sorted by:</b> <a href="thread.html#start">[ thread ]</a> <a href="subject.html#start">[ subject ]</a> <a href="author.html#start">[ author ]</a></li>
<li><b><a href="https://lists.example.org/listinfo/users">More info on this list...</a></b></li></ul>
<p><b>Starting:</b> <i>Fri Mar  1 00:02:11 UTC 2024</i><br><b>Ending:</b> <i>Sun Mar 31 23:58:40 UTC 2024</i><br><b>Messages:</b> 80000<p>
<ul>
`)
	tail := `</ul><p><a name="end"><b>Last message date:</b></a> <i>Sun Mar 31 23:58:40 UTC 2024</i><br></BODY></HTML>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := "[Users] " + shortTitle(r, i)
		if r.IntN(3) == 0 {
			t = "[Users] Re: " + shortTitle(r, i)
		}
		path := fmt.Sprintf("%06d.html", 10000+i)
		s := fmt.Sprintf("<LI><A HREF=\"%s\">%s\n</A><A NAME=\"%d\">&nbsp;</A>\n<I>%s\n</I>\n", path, t, 10000+i, denseNames[r.IntN(len(denseNames))])
		return s, styleItem{t, "https://lists.example.org/archives/users/2024-March/" + path}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// genDenseRecentChanges: a wiki's recent changes as a table: the time,
// the page linked, diff and history links, the user and the size change.
func genDenseRecentChanges(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Recent changes - Riverwiki</title></head><body><div id="content"><h1 id="firstHeading">Recent changes</h1><p>Track the most recent changes to the wiki on this page.</p>
<table class="changes"><tr><th>Time</th><th>Page</th><th>Links</th><th>User</th><th>Size</th></tr>
`)
	tail := `</table></div><div id="footer"><a href="/wiki/Privacy">Privacy policy</a> <a href="/wiki/About">About Riverwiki</a></div></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := shortTitle(r, i)
		page := strings.ReplaceAll(t, " ", "_")
		s := fmt.Sprintf(`<tr><td class="time">%02d:%02d</td><td><a href="/wiki/%s">%s</a></td><td>(<a href="/w?diff=%d">diff</a>)</td><td>%s</td><td>+%d</td></tr>`+"\n",
			r.IntN(24), r.IntN(60), page, t, 500000+i, denseWords[r.IntN(len(denseWords))], r.IntN(900))
		return s, styleItem{t, "https://www.example.org/wiki/" + page}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// genDenseChangelog: a project's changelog, a <ul> of changes, each a
// link to its commit, a date in a <span> and who made it.
func genDenseChangelog(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Changelog - loader</title></head><body><nav><a href="/">loader</a> <a href="/docs/">Docs</a> <a href="/changelog/">Changelog</a></nav><main><h1>Changelog</h1><ul class="changes">` + "\n")
	tail := `</ul></main><footer><a href="/license/">License</a></footer></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := shortTitle(r, i)
		path := fmt.Sprintf("/commit/%08x", 0x1000000+i*7919)
		s := fmt.Sprintf(`<li><a href="%s">%s</a> <span class="date">%d-%02d-%02d</span> by %s</li>`+"\n",
			path, t, 2010+i%15, 1+r.IntN(12), 1+r.IntN(28), denseNames[r.IntN(len(denseNames))])
		return s, styleItem{t, "https://www.example.org" + path}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// genDenseFlatNews: a department's news as flat paragraphs in a layout
// table: a date, a link and a line of text in each <p>.
func genDenseFlatNews(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Department news</title></head><body><table width="760"><tr><td width="160" valign="top"><a href="/">Home</a><br><a href="/about/">About</a><br><a href="/news/">News</a></td><td valign="top"><h2>News</h2>` + "\n")
	tail := `</td></tr></table><p align="center"><font size="1">&copy; Department of Harbours</font></p></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := shortTitle(r, i)
		path := fmt.Sprintf("/news/%d.html", 30000+i)
		s := fmt.Sprintf(`<p>%d/%02d/%d - <a href="%s">%s</a><br>%s</p>`+"\n",
			1+r.IntN(28), 1+r.IntN(12), 2001+i%20, path, t, sentence(r.IntN, 5, 12))
		return s, styleItem{t, "https://www.example.org" + path}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// genDenseAggregator: a link aggregator's front page: each story a row
// with its title link and site, then a row of points, user, age and a
// comments link.
func genDenseAggregator(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Riverside News</title></head><body><table id="stories" width="85%">` + "\n")
	tail := `</table><div class="foot"><a href="/newest">More</a></div></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := shortTitle(r, i)
		host := words[r.IntN(len(words))] + ".example.com"
		link := fmt.Sprintf("https://%s/%d", host, i)
		s := fmt.Sprintf(`<tr class="story"><td class="title"><a href="%s">%s</a> <span class="site">(%s)</span></td></tr><tr><td class="sub">%d points by %s | <a href="item?id=%d">%d comments</a></td></tr>`+"\n",
			link, t, host, r.IntN(500), denseWords[r.IntN(len(denseWords))], 900000+i, r.IntN(300))
		return s, styleItem{t, link}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// genDensePagerArticles: an article list below a one-item pager of the
// same selector (a <ul> of one <li>), each article a heading link and a
// date.
func genDensePagerArticles(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Articles</title></head><body><div class="wrap"><ul class="list"><li><a href="/articles/?page=2">Next page</a></li></ul>` + "\n<ul class=\"list\">\n")
	tail := `</ul></div><p class="footer"><a href="/contact/">Contact</a></p></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := shortTitle(r, i)
		path := fmt.Sprintf("/articles/%d/", i)
		s := fmt.Sprintf(`<li><h4><a href="%s">%s</a></h4><small>%s %d, %d</small><p>%s</p></li>`+"\n",
			path, t, months[r.IntN(12)][:3], 1+r.IntN(28), 2000+i%25, sentence(r.IntN, 4, 10))
		return s, styleItem{t, "https://www.example.org" + path}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// TestDenseStylePages checks every item's title and link on each dense
// style page, read back by the wrapper from the annotated page, and that
// the annotated page holds the page's own bytes outside the comments.
// At 10 MiB unless -short.
func TestDenseStylePages(t *testing.T) {
	size := 10 << 20
	if testing.Short() && *stylePagesDir == "" {
		size = 256 << 10
	}
	if *stylePagesDir != "" {
		// The mailing list archive of BenchmarkDense, to time it too.
		if err := os.WriteFile(filepath.Join(*stylePagesDir, "dense-archive.html"), denseArchive(10<<20), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range denseStyleNames {
		sp := denseStylePageOf(name, size)
		writeStylePage(t, "dense-"+name+".html", sp.page)
		base := styleBase
		if name == "pipermail" {
			base = "https://lists.example.org/archives/users/2024-March/"
		}
		checkEveryItem(t, name, sp, base)
	}
}

// checkEveryItem suggests the annotations of a generated page and checks
// every item's title and link, read back by the wrapper from the
// annotated page, and that the annotated page holds the page's own bytes
// outside the comments.
func checkEveryItem(t *testing.T, name string, sp stylePage, base string) {
	t.Helper()
	res, err := annotate.Suggest(sp.page, annotate.Options{URL: base, MaxBytes: 20 << 20})
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if back := annotate.RemoveInserted(res.Page, res.Inserted); string(back) != string(sp.page) {
		t.Errorf("%s: removing the inserted comments does not give the page back", name)
	}
	got := res.Wrapped().Resource.Items
	if len(got) != len(sp.items) {
		t.Errorf("%s: %d items, want %d (list %s)", name, len(got), len(sp.items), res.List.Path)
	}
	bad := wrongItems(t, name+" ", got, sp.items)
	t.Logf("%s: %d bytes, %d items (%d bytes each), list %s, %d wrong", name, len(sp.page), len(got), len(sp.page)/max(1, len(sp.items)), res.List.Path, bad)
}

// BenchmarkDenseStyles measures the suggester beside the wrapper on the
// 10 MiB dense style pages.
func BenchmarkDenseStyles(b *testing.B) {
	for _, name := range denseStyleNames {
		benchSuggestBesideWrap(b, "dense/"+name, denseStylePageOf(name, 10<<20).page)
	}
}
