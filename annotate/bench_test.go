package annotate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/internal/cputime"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// benchPages are the pages the suggester and the wrapper are measured on,
// by name: the corpus, one page at a time; a long list page of 1 MiB and
// one of the wrapper's 10 MiB limit; and the eight speed pages
// (speedpages_test.go) as "speed/NAME".
func benchPages(b *testing.B, name string) [][]byte {
	switch name {
	case "corpus":
		files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
		var corpus [][]byte
		for _, f := range files {
			p, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			corpus = append(corpus, p)
		}
		return corpus
	case "list1MiB":
		return [][]byte{longList(1 << 20)}
	case "list10MiB":
		return [][]byte{longList(10 << 20)}
	}
	return [][]byte{speedPageOf(strings.TrimPrefix(name, "speed/"), 10<<20).page}
}

// longList is a blog's archive page of about size bytes: a post per
// article, with a heading link, a date, an excerpt and a footer of links,
// beside a sidebar.
func longList(size int) []byte {
	var sb strings.Builder
	sb.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Archive</title></head><body><header><nav><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li></ul></nav></header><main id="content">`)
	for i := 0; sb.Len() < size-400; i++ {
		fmt.Fprintf(&sb, `<article class="post post-%d"><h2 class="entry-title"><a href="/%d/%02d/post-%d/">Post number %d about the allotment</a></h2>`+
			`<div class="entry-meta">Posted on <span class="date">March %d, 2024</span> by Ann</div>`+
			`<div class="entry-summary"><p>The beans are up, the slugs are back, and the water butt is full again after a week of rain. Post %d.</p></div>`+
			`<footer><a href="/category/news/">News</a> | <a href="/%d/#comments">%d comments</a></footer></article>`+"\n",
			i, 2024, 1+i%12, i, i, 1+i%28, i, i, i%7)
	}
	sb.WriteString(`</main><aside class="sidebar"><ul><li><a href="/tag/a">A</a></li><li><a href="/tag/b">B</a></li></ul></aside></body></html>`)
	return []byte(sb.String())
}

// BenchmarkSuggest measures the suggester beside the wrapper on the same
// pages: the wrapper reads the annotated page, as it would once the
// webmaster deploys it. Bytes are those of the page given. The speed
// pages are suggested as `dynamo annotate` does, within
// dynamo.MaxAnnotatedPageBytes (three of them are written compactly, with
// fields left out, to fit).
func BenchmarkSuggest(b *testing.B) {
	names := []string{"corpus", "list1MiB", "list10MiB"}
	for _, n := range speedNames() {
		names = append(names, "speed/"+n)
	}
	for _, name := range names {
		pages := benchPages(b, name)
		opts := annotate.Options{URL: "https://www.example.com/"}
		if strings.HasPrefix(name, "speed/") {
			opts.MaxBytes = dynamo.MaxAnnotatedPageBytes
		}
		size := 0
		var annotated [][]byte
		for _, p := range pages {
			size += len(p)
			res, err := annotate.Suggest(p, opts)
			if err != nil {
				b.Fatal(err)
			}
			annotated = append(annotated, res.Page)
		}
		b.Run(name+"/suggest", func(b *testing.B) {
			b.SetBytes(int64(size))
			cpu, _ := cputime.Process()
			for i := 0; i < b.N; i++ {
				for _, p := range pages {
					if _, err := annotate.Suggest(p, opts); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportCPU(b, cpu)
		})
		b.Run(name+"/wrap", func(b *testing.B) {
			b.SetBytes(int64(size))
			cpu, _ := cputime.Process()
			for i := 0; i < b.N; i++ {
				for _, p := range annotated {
					wrapper.Wrap(p, wrapper.Options{URL: "https://www.example.com/"})
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// reportCPU reports the CPU time an iteration took since from (the
// process's, garbage collection included), where it is known.
func reportCPU(b *testing.B, from time.Duration) {
	if to, ok := cputime.Process(); ok && from > 0 {
		b.ReportMetric(float64(to-from)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
