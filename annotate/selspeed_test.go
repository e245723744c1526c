package annotate_test

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/internal/cputime"
	"github.com/dynamo-feeds/dynamo/internal/pagetest"
)

// The selectors path (Follow, and Result.Selectors for `dynamo annotate
// --selectors`) is measured on 10 MiB pages of its own, split as every
// speed pass splits its pages: a development half tuned on, a held-out
// half read once at the end (docs/benchmarks/annotate.md, "Selectors
// path").
var selHalves = []struct {
	half  string
	names []string
}{
	{"tuning", []string{"li-links", "speed/story-rows", "speed/bug-table", "speed/podcast-dl", "speed/event-months", "blog-archive"}},
	{"heldout", []string{"li-dated", "speed/forum-cells", "speed/product-cards", "speed/font-tables", "speed/dated-changes", "notices"}},
}

var (
	selPagesDir = flag.String("selpages", "", "write the selectors path's 10 MiB pages into this directory")
	selOutDir   = flag.String("selout", "", "write what the selectors path gives on every page the tests know into this directory, to compare two builds")
	selOutBig   = flag.Bool("selbig", false, "with -selout, the generated pages at 10 MiB too")
)

// selPage generates one of the selectors path's pages of about size bytes.
func selPage(name string, size int) []byte {
	switch name {
	case "li-links", "li-dated":
		return liPage(name, size)
	case "blog-archive":
		return longList(size)
	case "notices":
		p, _ := pagetest.Notices(size)
		return p
	}
	return speedPageOf(strings.TrimPrefix(name, "speed/"), size).page
}

// liPage is a plain list of links, one <li><a> an item (about 127,000 in
// 10 MiB): li-links with the title alone, li-dated with a date and a
// line of text after the link.
func liPage(name string, size int) []byte {
	r := nameRand(name, 53, 59)
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Index</title></head><body><h1>Index</h1><ul class="index">` + "\n")
	for i := 0; sb.Len() < size-200; i++ {
		if name == "li-links" {
			fmt.Fprintf(&sb, `<li><a href="/p/%d">%s</a></li>`+"\n", i, shortTitle(r, i))
			continue
		}
		fmt.Fprintf(&sb, `<li><a href="/n/%d.html">%s</a> <span class="d">%d %s %d</span> %s</li>`+"\n",
			i, shortTitle(r, i), 1+r.IntN(28), months[r.IntN(12)], 2000+i%25, sentence(r.IntN, 2, 6))
	}
	sb.WriteString("</ul></body></html>\n")
	return []byte(sb.String())
}

// selOpts are the options `dynamo annotate --selectors` suggests with,
// at a fixed time, so that two runs' XMLData compare.
var selOpts = annotate.Options{URL: "https://www.example.org/section/", Now: time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)}

// compiledFor returns the selectors the suggester offers for page,
// compiled.
func compiledFor(tb testing.TB, page []byte) *annotate.Compiled {
	res, err := annotate.Suggest(page, selOpts)
	if err != nil {
		tb.Fatal(err)
	}
	sel, _, err := res.Selectors()
	if err != nil {
		tb.Fatal(err)
	}
	c, err := sel.Compile()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkSelectorsPath measures, on each page of selHalves, Follow with
// the selectors the suggester offers (a poll of a selectors source), the
// suggestion with those selectors (`dynamo annotate --selectors`), and
// the suggestion alone beside them (what `dynamo annotate` does, with no
// bound on the annotated page's size: li-links' annotations would pass
// dynamo.MaxAnnotatedPageBytes).
func BenchmarkSelectorsPath(b *testing.B) {
	for _, h := range selHalves {
		for _, name := range h.names {
			page := sync.OnceValue(func() []byte { return selPage(name, 10<<20) })
			b.Run(h.half+"/"+name+"/follow", func(b *testing.B) {
				c := compiledFor(b, page())
				measurePage(b, page(), func(p []byte) error {
					_, err := annotate.Follow(p, c, selOpts)
					return err
				})
			})
			b.Run(h.half+"/"+name+"/selectors", func(b *testing.B) {
				measurePage(b, page(), func(p []byte) error {
					res, err := annotate.Suggest(p, selOpts)
					if err == nil {
						_, _, err = res.Selectors()
					}
					return err
				})
			})
			b.Run(h.half+"/"+name+"/suggest", func(b *testing.B) {
				measurePage(b, page(), func(p []byte) error {
					_, err := annotate.Suggest(p, selOpts)
					return err
				})
			})
		}
	}
}

// measurePage runs read on page b.N times, reporting bytes, allocations
// and CPU (the setup before it left out).
func measurePage(b *testing.B, page []byte, read func([]byte) error) {
	b.ResetTimer()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	cpu, _ := cputime.Process()
	for i := 0; i < b.N; i++ {
		if err := read(page); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// TestSelectorsPathPages checks that the suggester's selectors read every
// page of selHalves (small, unless -selpages writes them at 10 MiB) as
// its annotations do: the same titles and links.
func TestSelectorsPathPages(t *testing.T) {
	size := 256 << 10
	if *selPagesDir != "" {
		size = 10 << 20
	}
	for _, h := range selHalves {
		for _, name := range h.names {
			page := selPage(name, size)
			if *selPagesDir != "" {
				path := filepath.Join(*selPagesDir, "sel-"+strings.ReplaceAll(name, "/", "-")+".html")
				if err := os.WriteFile(path, page, 0o644); err != nil {
					t.Fatalf("writing %s: %v", path, err)
				}
			}
			res, err := annotate.Suggest(page, selOpts)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sel, note, err := res.Selectors()
			if err != nil || note != "" {
				t.Fatalf("%s: selectors %+v: %v %s", name, sel, err, note)
			}
			c, err := sel.Compile()
			if err != nil {
				t.Fatal(err)
			}
			f, err := annotate.Follow(page, c, selOpts)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			a, fb := res.Wrapped().Resource.Items, f.Wrapped.Resource.Items
			if len(a) < 3 || len(a) != len(fb) {
				t.Fatalf("%s: %d items annotated, %d through selectors", name, len(a), len(fb))
			}
			for i := range a {
				if a[i].Title != fb[i].Title || a[i].Link != fb[i].Link {
					t.Fatalf("%s: item %d: selectors %q %s, annotations %q %s", name, i+1, fb[i].Title, fb[i].Link, a[i].Title, a[i].Link)
				}
			}
		}
	}
}

// TestSelectorsPathOutputs writes, with -selout DIR, what the selectors
// path gives on every page the annotate tests know (TestGolden's pages:
// the corpus, the fuzz regressions, its long pages; every generated
// family; TestFollow's page): the selectors and note Result.Selectors offers, and, for
// those and for fixed CSS and XPath selectors, Follow's whole result (the
// page, the ranges inserted, the XMLData, the warnings). Two builds'
// directories are compared with diff -r: a change that makes the path
// faster must leave them byte-identical.
func TestSelectorsPathOutputs(t *testing.T) {
	if *selOutDir == "" {
		t.Skip("-selout DIR not given")
	}
	pages := goldenPages(t)
	sizes := []int{64 << 10, 1 << 20}
	if *selOutBig {
		sizes = append(sizes, 10<<20)
	}
	for _, size := range sizes {
		addGeneratedPages(pages, size)
	}
	pages["follow-page"] = []byte(followPage)
	fixed := []annotate.Selectors{
		{Item: "li, div, tr, article", Title: "a, h3, b, td", Link: "a", Description: "p", Date: "time, span"},
		{Syntax: "xpath", Item: "//*[a]", Title: "normalize-space(a)", Link: "a/@href", Description: "following-sibling::*[1]", Image: ".//img/@src", Enclosure: "a/@href"},
		{Syntax: "xpath", Item: "//div | //li | //div//p", Title: ".", Description: "//p"},
		{Item: "article.dog", Title: "h2", Link: "h2 a", Description: "p.text", Date: "p.meta", Author: ".who", Image: "img", Enclosure: "a.audio"},
	}
	var fixedC []*annotate.Compiled
	for _, s := range fixed {
		c, err := s.Compile()
		if err != nil {
			t.Fatal(err)
		}
		fixedC = append(fixedC, c)
	}
	for name, page := range pages {
		var out strings.Builder
		cs := fixedC
		res, err := annotate.Suggest(page, selOpts)
		fmt.Fprintf(&out, "suggest: %v\n", err)
		if err == nil {
			sel, note, err := res.Selectors()
			fmt.Fprintf(&out, "selectors: %+v\nnote: %s\nerr: %v\n", sel, note, err)
			if err == nil {
				if c, err := sel.Compile(); err == nil {
					cs = append([]*annotate.Compiled{c}, cs...)
				}
			}
		}
		for i, c := range cs {
			f, err := annotate.Follow(page, c, selOpts)
			fmt.Fprintf(&out, "follow %d: %v\n", i, err)
			if err != nil {
				continue
			}
			fmt.Fprintf(&out, "page %x\ninserted %v\nxml %x\n", sha256.Sum256(f.Page), f.Inserted, sha256.Sum256(f.Wrapped.Resource.XML()))
			for _, w := range f.Warnings {
				fmt.Fprintf(&out, "warning %s\n", w)
			}
			for _, w := range f.SelectorWarnings {
				fmt.Fprintf(&out, "selector warning %s\n", w)
			}
		}
		if err := os.WriteFile(filepath.Join(*selOutDir, strings.ReplaceAll(name, "/", "-")+".txt"), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d pages written", len(pages))
}
