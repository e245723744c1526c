package annotate_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/annotate"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden.txt with what the suggester gives now")

// goldenPages are the pages whose whole output TestGolden pins: the
// corpus, the fuzz regressions, and long generated pages of each kind of
// structure, up to the wrapper's 10 MiB limit (skipped with -short).
func goldenPages(t *testing.T) map[string][]byte {
	pages := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages["corpus/"+filepath.Base(f)] = b
	}
	files, _ = filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzSuggest", "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, line, _ := strings.Cut(string(b), "\n")
		line = strings.TrimSpace(line)
		lit, ok := strings.CutPrefix(line, "[]byte(")
		if !ok {
			t.Fatalf("%s: not a fuzz input of one []byte", f)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pages["fuzz/"+filepath.Base(f)] = []byte(s)
	}
	pages["long/list1MiB"] = longList(1 << 20)
	pages["long/table300KiB"] = longTable(300 << 10)
	pages["long/runs300KiB"] = longRuns(300 << 10)
	pages["long/dl300KiB"] = longDL(300 << 10)
	if !testing.Short() {
		pages["long/list10MiB"] = longList(10 << 20)
	}
	return pages
}

// longTable is a legacy listing of about size bytes: a table row per
// document, with a numbered cell, a linked title in <font>, a date and a
// size, under a header row.
func longTable(size int) []byte {
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Documents</title></head><body><table width="100%"><tr><td><a href="/">Home</a> | <a href="/docs">Documents</a></td></tr></table>` +
		`<table border="0" cellpadding="2"><tr><th>No.</th><th>Document</th><th>Date</th><th>Size</th></tr>` + "\n")
	for i := 0; sb.Len() < size-300; i++ {
		fmt.Fprintf(&sb, `<tr bgcolor="#%s"><td>%d</td><td><font face="Arial"><a href="/docs/%d.pdf">Minutes of the meeting of the board, number %d</a></font></td><td>%02d/%02d/2023</td><td>%d KB</td></tr>`+"\n",
			[]string{"ffffff", "eeeeee"}[i%2], i+1, i, i, 1+i%28, 1+i%12, 10+i%90)
	}
	sb.WriteString(`</table><p>Contact the clerk.</p></body></html>`)
	return []byte(sb.String())
}

// longRuns is a flat page of about size bytes: each item a heading and
// the paragraphs after it, siblings of one another.
func longRuns(size int) []byte {
	var sb strings.Builder
	sb.WriteString(`<html><head><title>News</title></head><body><div id="nav"><a href="/">Home</a> <a href="/news">News</a></div><div class="content"><h1>News</h1>` + "\n")
	for i := 0; sb.Len() < size-300; i++ {
		fmt.Fprintf(&sb, `<h3><a href="news-%d.html">The parish council meets on the green, part %d</a></h3>`+"\n"+
			`<p><i>%d June 2022</i></p>`+"\n"+`<p>Residents are invited to bring their questions about the footpaths and the hall. Item %d.</p>`+"\n",
			i, i, 1+i%28, i)
	}
	sb.WriteString(`<p><a href="archive.html">Older news</a></p></div></body></html>`)
	return []byte(sb.String())
}

// longDL is a definition list of about size bytes: a linked term and its
// definition per entry.
func longDL(size int) []byte {
	var sb strings.Builder
	sb.WriteString(`<html><head><title>Changes</title><meta name="description" content="What changed"></head><body><dl class="changes">` + "\n")
	for i := 0; sb.Len() < size-200; i++ {
		fmt.Fprintf(&sb, `<dt><a href="/release/%d">Release 1.%d of the toolkit</a></dt><dd>Fixes the parser on long pages and adds %d options. Released 2021-%02d-%02d.</dd>`+"\n",
			i, i, i%9, 1+i%12, 1+i%28)
	}
	sb.WriteString(`</dl></body></html>`)
	return []byte(sb.String())
}

// digest sums up everything the suggester gives for a page: the annotated
// page and the places of its comments, the explanation (the structure
// chosen, the fields' places, the scores and factors of every candidate,
// the notes), the items the wrapper reads back with their warnings, and
// the selectors made of the choice.
func digest(t *testing.T, page []byte) string {
	h := sha256.New()
	res, err := annotate.Suggest(page, annotate.Options{URL: "https://www.example.com/list/"})
	if err != nil {
		fmt.Fprintf(h, "error: %v\n", err)
		return hex.EncodeToString(h.Sum(nil))
	}
	h.Write(res.Page)
	fmt.Fprintf(h, "\n%v\n", res.Inserted)
	if err := res.Explain(h); err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Wrapped().Resource.Items {
		fmt.Fprintf(h, "item %d %q %q %q %q %+v %v\n", it.Index, it.ID, it.Title, it.Link, it.Description, it.Extensions, it.Updated)
	}
	for _, w := range res.Wrapped().Warnings {
		fmt.Fprintf(h, "warning %s\n", w)
	}
	sel, note, err := res.Selectors()
	fmt.Fprintf(h, "selectors %+v %q %v\n", sel, note, err)
	return hex.EncodeToString(h.Sum(nil))
}

// TestGolden checks that the suggester's whole output is what it was when
// testdata/golden.txt was written, on every page of goldenPages: a change
// made for speed must change no suggestion. A change meant to change
// suggestions rewrites the file with -update-golden, and says why in its
// commit.
func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden.txt")
	want := map[string]string{}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if name, sum, ok := strings.Cut(sc.Text(), " "); ok {
				want[name] = sum
			}
		}
		f.Close()
	} else if !*updateGolden {
		t.Fatal(err)
	}
	pages := goldenPages(t)
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	var out strings.Builder
	for _, name := range names {
		got := digest(t, pages[name])
		fmt.Fprintf(&out, "%s %s\n", name, got)
		if *updateGolden {
			continue
		}
		switch w, ok := want[name]; {
		case !ok:
			t.Errorf("%s: not in %s (run with -update-golden)", name, path)
		case w != got:
			var sb strings.Builder
			if res, err := annotate.Suggest(pages[name], annotate.Options{URL: "https://www.example.com/list/"}); err == nil {
				_ = res.Explain(&sb)
			}
			t.Errorf("%s: the suggester's output changed\n%s", name, sb.String())
		}
	}
	if *updateGolden {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
