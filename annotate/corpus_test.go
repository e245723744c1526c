package annotate_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dynamo-feeds/dynamo/annotate"
)

// corpusPage is one page of testdata/corpus and the items it should give.
type corpusPage struct {
	Name  string
	Half  string // "tuning" or "heldout", from split.txt
	Style string `yaml:"style"`
	Base  string `yaml:"base"`
	Items []struct {
		Title string `yaml:"title"`
		Link  string `yaml:"link"`
	} `yaml:"items"`
	page []byte
}

// loadCorpus reads the corpus and its split.
func loadCorpus(t testing.TB) []*corpusPage {
	t.Helper()
	dir := filepath.Join("testdata", "corpus")
	f, err := os.Open(filepath.Join(dir, "split.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pages []*corpusPage
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, half, _ := strings.Cut(line, " ")
		cp := &corpusPage{Name: name, Half: half}
		want, err := os.ReadFile(filepath.Join(dir, name+".want"))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(want, cp); err != nil {
			t.Fatalf("%s.want: %v", name, err)
		}
		if cp.page, err = os.ReadFile(filepath.Join(dir, name+".html")); err != nil {
			t.Fatal(err)
		}
		if len(cp.Items) < 2 || cp.Base == "" || cp.Style == "" {
			t.Fatalf("%s.want: needs a style, a base and at least two items", name)
		}
		pages = append(pages, cp)
	}
	if len(pages) < 30 {
		t.Fatalf("the corpus has %d pages, fewer than 30", len(pages))
	}
	return pages
}

// outcome is how one page came out.
type outcome struct {
	ok      bool
	problem string
}

// runCorpusPage annotates a page, checks the invariants that must hold on
// every page (the page is unchanged outside the inserted comments, and
// reading the result back gives the items the suggester chose), and
// compares the items with the expected ones.
func runCorpusPage(t *testing.T, cp *corpusPage) outcome {
	t.Helper()
	res, err := annotate.Suggest(cp.page, annotate.Options{URL: cp.Base})
	if err != nil {
		return outcome{problem: err.Error()}
	}
	if back := annotate.RemoveInserted(res.Page, res.Inserted); !bytes.Equal(back, cp.page) {
		t.Errorf("%s: removing the inserted comments does not give the page back", cp.Name)
	}
	for _, w := range res.Wrapped().Warnings {
		t.Errorf("%s: the annotated page gives a warning: %s", cp.Name, w)
	}
	got := res.Wrapped().Resource.Items
	var diffs []string
	if len(got) != len(cp.Items) {
		diffs = append(diffs, fmt.Sprintf("%d items, want %d", len(got), len(cp.Items)))
	}
	for i := 0; i < len(got) && i < len(cp.Items); i++ {
		w := cp.Items[i]
		if got[i].Title != w.Title || got[i].Link != w.Link {
			diffs = append(diffs, fmt.Sprintf("item %d: %q %s, want %q %s", i+1, got[i].Title, got[i].Link, w.Title, w.Link))
		}
	}
	if len(diffs) > 0 {
		if len(diffs) > 3 {
			diffs = append(diffs[:3], "…")
		}
		return outcome{problem: strings.Join(diffs, "; ") + "\n    list: " + res.List.Path}
	}
	return outcome{ok: true}
}

// TestCorpus runs the suggester over the corpus and reports, per half and
// per style, the share of pages whose every item comes out right; below
// 90 % on a half fails, that being the aim.
// DYNAMO_CORPUS_HALF=tuning limits it to the tuning half.
func TestCorpus(t *testing.T) {
	only := os.Getenv("DYNAMO_CORPUS_HALF")
	type tally struct{ ok, n int }
	byHalfStyle := map[string]map[string]*tally{}
	var failures []string
	for _, cp := range loadCorpus(t) {
		if only != "" && cp.Half != only {
			continue
		}
		o := runCorpusPage(t, cp)
		if byHalfStyle[cp.Half] == nil {
			byHalfStyle[cp.Half] = map[string]*tally{}
		}
		ts := byHalfStyle[cp.Half][cp.Style]
		if ts == nil {
			ts = &tally{}
			byHalfStyle[cp.Half][cp.Style] = ts
		}
		ts.n++
		if o.ok {
			ts.ok++
		} else {
			failures = append(failures, fmt.Sprintf("%s (%s): %s", cp.Name, cp.Half, o.problem))
		}
	}
	for _, half := range []string{"tuning", "heldout"} {
		styles := byHalfStyle[half]
		if styles == nil {
			continue
		}
		var names []string
		total := tally{}
		for s, ts := range styles {
			names = append(names, s)
			total.ok += ts.ok
			total.n += ts.n
		}
		sort.Strings(names)
		var parts []string
		for _, s := range names {
			parts = append(parts, fmt.Sprintf("%s %d/%d", s, styles[s].ok, styles[s].n))
		}
		share := float64(total.ok) / float64(total.n)
		t.Logf("%s: %d/%d pages with every item right (%.0f%%): %s", half, total.ok, total.n, 100*share, strings.Join(parts, ", "))
		// The aim of issue 19, measured on the held-out half (docs/ANNOTATE.md).
		if share < 0.9 {
			t.Errorf("%s: %.0f%% of the pages right, below the aim of 90%%", half, 100*share)
		}
	}
	for _, f := range failures {
		t.Log("wrong: " + f)
	}
}
