package annotate_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// The sampled pages: dense list pages of 60,000 records and more at
// 10 MiB, in styles no earlier pass was written for, whose candidates'
// statistics are read on a spread sample of their records (manyRecords
// in lists.go). The first two were looked at while the sample was made,
// the last two held out, as sampledHalves says. TestSampledPages checks
// every item's title and link; TestSampledAsWhole that the suggestion
// made on samples is the one made reading every record.

var sampledHalves = []struct {
	half  string
	names []string
}{
	{"dev", []string{"pkg-index", "line-notes"}},
	{"heldout", []string{"stamp-rows", "mixed-shapes"}},
}

var sampledGens = map[string]styleGen{
	"pkg-index":    genSampledPkgIndex,
	"line-notes":   genSampledLineNotes,
	"stamp-rows":   genSampledStampRows,
	"mixed-shapes": genSampledMixedShapes,
}

func sampledPageOf(name string, size int) stylePage {
	return sampledGens[name](nameRand(name, 47, 53), size)
}

// genSampledPkgIndex: a package index, a table row a package: its name
// linked, its version, a line of text.
func genSampledPkgIndex(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html><head><title>Package index</title></head><body><p><a href="/">Index</a> | <a href="/upload/">Upload</a></p><table class="pkgs">` + "\n")
	tail := `</table><p><a href="/simple/">Simple index</a></p></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		name := fmt.Sprintf("%s-%s-%d", words[r.IntN(len(words))], denseWords[r.IntN(len(denseWords))], i)
		path := "/pkg/" + name + "/"
		s := fmt.Sprintf(`<tr><td><a href="%s">%s</a></td><td>%d.%d.%d</td><td>%s</td></tr>`+"\n",
			path, name, r.IntN(5), r.IntN(20), r.IntN(30), sentence(r.IntN, 2, 5))
		return s, styleItem{name, "https://www.example.org" + path}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// genSampledLineNotes: a paragraph a note, its title linked, a line
// break and the date in <small>.
func genSampledLineNotes(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Notes</title></head><body><div id="menu"><a href="/">Home</a> <a href="/notes/">Notes</a></div><div id="notes">` + "\n")
	tail := `</div><div id="foot"><a href="/notes/2/">Older notes</a></div></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := shortTitle(r, i)
		path := fmt.Sprintf("/n/%d", 40000+i)
		s := fmt.Sprintf(`<p class="note"><a href="%s">%s</a><br><small>%d-%02d-%02d</small></p>`+"\n",
			path, t, 2001+i%23, 1+r.IntN(12), 1+r.IntN(28))
		return s, styleItem{t, "https://www.example.org" + path}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// genSampledStampRows: a <div> a record, a date stamp in a span, the
// title linked, a count of comments linking to the same page.
func genSampledStampRows(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Log</title></head><body><nav><a href="/">Log</a> · <a href="/tags/">Tags</a></nav><section class="log">` + "\n")
	tail := `</section><footer><a href="/log/page/2/">Earlier</a></footer></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := shortTitle(r, i)
		path := fmt.Sprintf("/log/%d.html", 7000+i)
		s := fmt.Sprintf(`<div class="r"><span class="d">%02d.%02d.%d</span> <a href="%s">%s</a> <a class="c" href="%s#c">(%d)</a></div>`+"\n",
			1+r.IntN(28), 1+r.IntN(12), 2010+i%14, path, t, path, r.IntN(40))
		return s, styleItem{t, "https://www.example.org" + path}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// genSampledMixedShapes: an ordered list whose items differ in shape:
// every third has a thumbnail before its link, every fifth a "new"
// mark after it; each ends with a date and who uploaded it.
func genSampledMixedShapes(r *rand.Rand, size int) stylePage {
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Latest uploads</title></head><body><h1>Latest uploads</h1><ul class="nav"><li><a href="/">Home</a></li><li><a href="/browse/">Browse</a></li></ul><ol class="uploads">` + "\n")
	tail := `</ol><p><a href="/uploads/?page=2">More uploads</a></p></body></html>` + "\n"
	items := fill(&sb, size, tail, func(i int) (string, styleItem, bool) {
		t := shortTitle(r, i)
		path := fmt.Sprintf("/u/%d", 90000+i)
		var b strings.Builder
		b.WriteString("<li>")
		if i%3 == 0 {
			fmt.Fprintf(&b, `<img src="/t/%d.png" alt=""> `, 90000+i)
		}
		fmt.Fprintf(&b, `<a href="%s">%s</a>`, path, t)
		if i%5 == 0 {
			b.WriteString(` <em>new</em>`)
		}
		fmt.Fprintf(&b, ` %d %s %d, by %s</li>`+"\n", 1+r.IntN(28), months[r.IntN(12)][:3], 2015+i%10, denseNames[r.IntN(len(denseNames))])
		return b.String(), styleItem{t, "https://www.example.org" + path}, true
	})
	return stylePage{[]byte(sb.String()), items}
}

// TestSampledPages checks every item's title and link on each sampled
// page, at 10 MiB unless -short (1 MiB then, of 6,000 records and more).
//
// `go test ./annotate -run '^TestSampledPages$' -args -stylepages DIR`
// writes the 10 MiB pages into DIR as sampled-HALF-NAME.html.
func TestSampledPages(t *testing.T) {
	size := 10 << 20
	if testing.Short() && *stylePagesDir == "" {
		size = 1 << 20
	}
	for _, h := range sampledHalves {
		for _, name := range h.names {
			sp := sampledPageOf(name, size)
			writeStylePage(t, "sampled-"+h.half+"-"+name+".html", sp.page)
			checkEveryItem(t, h.half+"/"+name, sp, styleBase)
		}
	}
}

// TestSampledAsWhole checks that reading the candidates' statistics on
// samples changes no suggestion: on the sampled pages and the speed
// pages (1 MiB with -short, of 8,000 records and more; 10 MiB without),
// the annotated page is the one made reading every record.
func TestSampledAsWhole(t *testing.T) {
	size := 10 << 20
	if testing.Short() {
		size = 1 << 20
	}
	pages := map[string][]byte{}
	for name := range sampledGens {
		pages["sampled/"+name] = sampledPageOf(name, size).page
	}
	for _, name := range speedNames() {
		pages["speed/"+name] = speedPageOf(name, size).page
	}
	for name, page := range pages {
		sampled, err := annotate.Suggest(page, annotate.Options{URL: styleBase, MaxBytes: 20 << 20})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		restore := annotate.ReadEveryRecord()
		whole, err := annotate.Suggest(page, annotate.Options{URL: styleBase, MaxBytes: 20 << 20})
		restore()
		if err != nil {
			t.Errorf("%s, reading every record: %v", name, err)
			continue
		}
		if string(sampled.Page) != string(whole.Page) || sampled.List.Path != whole.List.Path {
			t.Errorf("%s: the suggestion made on samples (%s) differs from the one made reading every record (%s)", name, sampled.List.Path, whole.List.Path)
		}
	}
}
