package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/wrapper"
)

// annotatedPage is a page with n annotated items.
func annotatedPage(n int) []byte {
	var b strings.Builder
	b.WriteString("<html><head><title>Bench</title></head><body>\n<!-- <channel:title> -->Bench news<!-- </channel:title> -->\n<ul>\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "<li><!-- <item:link index=\"%d\"> --><a href=\"/s/%d.html\"><!-- </item:link> --><!-- <item:title index=\"%d\"> -->Story %d<!-- </item:title> --></a>\n", i, i, i, i)
		fmt.Fprintf(&b, "<!-- <item:description index=\"%d\"> --><p>About story %d, told <b>at length</b>.</p><!-- </item:description> --></li>\n", i, i)
	}
	b.WriteString("</ul></body></html>\n")
	return []byte(b.String())
}

// BenchmarkPlay measures the playground's work on a page (wrap, highlight,
// render every format) at two sizes: the time per item should stay flat.
func BenchmarkPlay(b *testing.B) {
	for _, n := range []int{100, 1000} {
		page := annotatedPage(n)
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				play(page, wrapper.Options{URL: "https://x.example/"}, "bench")
			}
		})
	}
}
