package wrapper_test

import (
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/wrapper"
)

// The bench page is what the benchmark says it is: about 200 KB, 50 items
// with their four fields, and mostly unannotated markup.
func TestBenchPage(t *testing.T) {
	page := wrapper.BenchPage()
	if n := len(page); n < 180_000 || n > 230_000 {
		t.Errorf("bench page is %d bytes, want about 200 KB", n)
	}
	r := wrapper.Wrap(page, wrapper.Options{URL: "http://gazette.example.com/index.html", Now: testNow})
	checkWarnings(t, r.Warnings, nil)
	if len(r.Resource.Items) != 50 {
		t.Fatalf("%d items", len(r.Resource.Items))
	}
	annotated := 0
	for _, a := range r.Annotations {
		annotated += a.End - a.Start
	}
	if annotated*4 > len(page) {
		t.Errorf("annotations cover %d of %d bytes: the page is not mostly unannotated markup", annotated, len(page))
	}
	it := r.Resource.Items[49]
	if it.Title != "Story number 50: the council, the bridge & the budget" || it.Link != "http://gazette.example.com/news/2005/12/23/story-50.html" ||
		!strings.Contains(it.Description, `<a href="http://gazette.example.com/library/">library</a>`) || itemDate(it) != "2005-12-23T08:50:00Z" {
		t.Errorf("item 50 = %q %q %s %q", it.Title, it.Link, itemDate(it), it.Description)
	}
}
