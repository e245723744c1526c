package pagetest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
)

func TestListSizes(t *testing.T) {
	for _, size := range []int{4096, 1 << 20, dynamo.MaxPageBytes, dynamo.MaxPageBytes + 1} {
		if got := len(List(size)); got != size {
			t.Errorf("List(%d) has %d bytes", size, got)
		}
	}
	if got := len(Padded([]byte("<p>x</p>"), 100)); got != 100 {
		t.Errorf("Padded to 100 has %d bytes", got)
	}
}

// TestAnnotationBound checks the bound the size rule rests on (package
// dynamo, MaxAnnotatedPageBytes): the suggester inserts at most 294 bytes
// per item plus four times the digits of its index, and 110 for the
// channel, on every page of its corpus and on the generated pages.
func TestAnnotationBound(t *testing.T) {
	pages := map[string][]byte{"List(1 MiB)": List(1 << 20), "List(MaxPageBytes)": List(dynamo.MaxPageBytes)}
	files, err := filepath.Glob(filepath.Join("..", "..", "annotate", "testdata", "corpus", "*.html"))
	if err != nil || len(files) < 30 {
		t.Fatalf("the suggester's corpus: %d pages, %v", len(files), err)
	}
	for _, f := range files {
		p, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Base(f)] = p
	}
	for name, p := range pages {
		res, err := annotate.Suggest(p, annotate.Options{URL: URL})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		items := len(res.Wrapped().Resource.Items)
		bound := items*(294+4*len(strconv.Itoa(items))) + 110
		if added := len(res.Page) - len(p); added > bound || added <= 0 {
			t.Errorf("%s: %d bytes of annotations for %d items, want at most %d", name, added, items, bound)
		}
		if removed := annotate.RemoveInserted(res.Page, res.Inserted); !bytes.Equal(removed, p) {
			t.Errorf("%s: the annotated page without its annotations is not the page", name)
		}
	}
}
