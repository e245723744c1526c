package annotate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// TestNavListNotMerged runs the pages of testdata/navmerge: a list of
// items split over several lists of one selector (by month, by year) or
// kept in one, after a short list of the same selector that holds one
// line of another shape ("Messages sorted by: [thread] [subject]
// [author]", "Show: everything · posts · recipes", "Jump to year: 2024 |
// 2023"). The lists of items are merged; the line is no item (issue 19).
func TestNavListNotMerged(t *testing.T) {
	wants, _ := filepath.Glob(filepath.Join("testdata", "navmerge", "*.want"))
	if len(wants) < 3 {
		t.Fatalf("%d pages in testdata/navmerge, want at least 3", len(wants))
	}
	for _, w := range wants {
		name := strings.TrimSuffix(filepath.Base(w), ".want")
		cp := &corpusPage{Name: name}
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, cp); err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		if cp.page, err = os.ReadFile(strings.TrimSuffix(w, ".want") + ".html"); err != nil {
			t.Fatal(err)
		}
		if o := runCorpusPage(t, cp); !o.ok {
			t.Errorf("%s: %s", name, o.problem)
		}
		// The selectors made of the choice leave the line out too.
		res, err := annotate.Suggest(cp.page, annotate.Options{URL: cp.Base})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, note, err := res.Selectors(); err != nil || note != "" {
			t.Errorf("%s: selectors: %v %s", name, err, note)
		}
	}
}
