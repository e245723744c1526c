package annotate

import (
	"hash/maphash"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/net/html/atom"
)

// FuzzOpenCounts checks the builder's counts of open elements: every
// element the tree builder opens it closes, counted under the same key
// (its atom, or its name for a tag the atom table does not know), so
// every count is back to 0 once the tree is built; and the atoms kept
// are each in one slot. A start counted under one key and its end under
// another leaves one count above 0 and another below.
func FuzzOpenCounts(f *testing.F) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{
		"<ul><li>a<li>b</ul><p>x<p>y<my-el><my-el>z</my-el></my-el></P><table><tr><td>1<td>2<tr><th>3</table>",
		"<dl><dt>a<dd>b<dt>c</dl><a href=x>1<a href=y>2</a><svg><circle/></svg><math></math><h1>x<h2>y",
		"<select><option>a<option>b</select><x-Y>t</x-y><Custom-Tag></custom-tag></p></li></td>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) { checkOpenCounts(t, []byte(page)) })
}

// checkOpenCounts is FuzzOpenCounts's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkOpenCounts(t *testing.T, raw []byte) {
	page := string(raw)
	for _, keep := range []bool{false, true} {
		b := buildTree(page, maphash.MakeSeed(), nil, keep)
		seen := map[atom.Atom]bool{}
		for _, s := range b.open.slots {
			if s.a == 0 {
				continue
			}
			if seen[s.a] {
				t.Fatalf("atom %v in two slots", s.a)
			}
			seen[s.a] = true
			if s.n != 0 {
				t.Fatalf("keep %v: %d <%v> left open once the tree is built", keep, s.n, s.a)
			}
		}
		for name, n := range b.open.names {
			if atom.Lookup([]byte(name)) != 0 {
				t.Fatalf("<%s>, which the atom table knows, counted by name", name)
			}
			if n != 0 {
				t.Fatalf("keep %v: %d <%s> left open once the tree is built", keep, n, name)
			}
		}
	}
}
