package annotate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// joomlaItem is one article of a Joomla 3 blog layout, inside the
// element whose tag and attributes open it.
func joomlaItem(open string, n int) string {
	return fmt.Sprintf(`%s<div class="page-header"><h2 itemprop="name"><a href="/index.php/news/%d-story-%d" itemprop="url">Story number %d about the harbour</a></h2></div><dl class="article-info muted"><dt class="article-info-term">Details</dt><dd class="published"><time datetime="2024-06-%02dT10:00:00+00:00" itemprop="datePublished">Published: %02d June 2024</time></dd></dl><p>Intro text of story %d, a few words about what happened at the harbour this week.</p><p class="readmore"><a class="btn" href="/index.php/news/%d-story-%d">Read more ...</a></p></div>`,
		open, n, n, n, 30-n, 30-n, n, n, n)
}

// TestFeaturedJoomla: a Joomla 3 blog's leading article, in
// div.items-leading, before the rows of two (div.items-row) that hold the
// others: the leading article is the first item, in the annotations and
// the selectors; a "Most read" column in the records' markup after the
// blog is not taken.
func TestFeaturedJoomla(t *testing.T) {
	for _, mostRead := range []bool{false, true} {
		var b strings.Builder
		b.WriteString(`<!DOCTYPE html><html><head><title>News</title></head><body><header class="header"><a href="/">Site</a></header><div class="row"><main id="content" role="main" class="col-8"><div class="blog" itemscope itemtype="https://schema.org/Blog"><div class="items-leading clearfix">`)
		b.WriteString(joomlaItem(`<div class="leading-0 clearfix" itemprop="blogPost">`, 1))
		b.WriteString(`</div>`)
		n := 2
		for r := 0; r < 4; r++ {
			fmt.Fprintf(&b, `<div class="items-row cols-2 row-%d row-fluid clearfix">`, r)
			for c := 1; c <= 2; c++ {
				b.WriteString(`<div class="span6">` + joomlaItem(fmt.Sprintf(`<div class="item column-%d" itemprop="blogPost">`, c), n) + `</div>`)
				n++
			}
			b.WriteString(`</div>`)
		}
		b.WriteString(`<div class="pagination"><p class="counter">Page 1 of 3</p><ul><li><a href="/index.php/news?start=9">Next</a></li></ul></div></div></main>`)
		if mostRead {
			b.WriteString(`<div class="col-4"><h3>Most read</h3><div class="item column-1">` + joomlaItem(`<div>`, 40) + `</div></div>`)
		}
		b.WriteString(`</div></body></html>`)
		res, err := annotate.Suggest([]byte(b.String()), annotate.Options{URL: "https://www.example.org/"})
		if err != nil {
			t.Fatal(err)
		}
		items := res.Wrapped().Resource.Items
		if len(items) != 9 {
			t.Fatalf("most read %v: %d items, want 9", mostRead, len(items))
		}
		for i, it := range items {
			if want := fmt.Sprintf("Story number %d about the harbour", i+1); it.Title != want {
				t.Errorf("most read %v: item %d is %q, want %q", mostRead, i+1, it.Title, want)
			}
		}
		if _, note, err := res.Selectors(); err != nil || note != "" {
			t.Errorf("most read %v: selectors: %v %s", mostRead, err, note)
		}
	}
}
