package annotate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzPrunedLinks checks, on any input, that longLinks and firstLink,
// which pass over the subtrees whose counts say they hold no link they
// look for, give what a walk of every node gives, for every record of
// every candidate; and that the sums findCandidates keeps for prescore are
// those of the candidate's records.
func FuzzPrunedLinks(f *testing.F) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("<ul><li><a href=p><b>A long title here</b></a> <a href=q>short</a><li><a href='#x'>A long anchor link</a><script><a href=s>A long hidden link</a></script><a href=t>Another long title</a></ul>"))
	f.Fuzz(checkPrunedLinks)
}

// checkPrunedLinks is FuzzPrunedLinks's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkPrunedLinks(t *testing.T, raw []byte) {
	p, err := newPage(raw, "")
	if err != nil {
		return
	}
	tree := p.tree(nil, false)
	checkSlabs(t, tree)
	for _, c := range findCandidates(tree) {
		if want := sumsOf(c.records); c.sums != want {
			t.Fatalf("%s: sums kept %+v; of its records %+v", c.describe(), c.sums, want)
		}
		for _, r := range c.records {
			first, n := longLinks(r)
			wantFirst, wantN := allLongLinks(r)
			if first != wantFirst || n != wantN {
				t.Fatalf("%s: longLinks gives %q, %d; a walk of every node %q, %d", c.describe(), first, n, wantFirst, wantN)
			}
			if got, want := firstLink(r), allFirstLink(r); got != want {
				t.Fatalf("%s: firstLink gives %q; a walk of every node %q", c.describe(), got, want)
			}
		}
	}
}

// checkSlabs checks what node.tables' pointer arithmetic relies on: every
// node of the tree, the root, its children and their parents included,
// lies in a slab of the tree's tables at its own index.
func checkSlabs(t *testing.T, b *treeBuilder) {
	t.Helper()
	check := func(n *node) {
		if n.tables() != b.t || b.t.node(n.idx) != n {
			t.Fatalf("node %d (%s) is not in its tree's slab at its index", n.idx, n.tag())
		}
	}
	check(b.root)
	var walk func(n *node)
	walk = func(n *node) {
		for _, c := range n.children() {
			check(c)
			if c.parent() != n {
				t.Fatalf("node %d (%s): parent is not the node it is a child of", c.idx, c.tag())
			}
			walk(c)
		}
	}
	walk(b.root)
	for n := range b.all {
		check(n)
	}
}

// allLongLinks is longLinks walking every node.
func allLongLinks(r record) (string, int) {
	var found [3]string
	n := 0
	walkUntil(r, func(m *node) (bool, bool) {
		if m.tag() == "a" && m.href() != "" && m.textBytes >= 12 && !strings.HasPrefix(strings.TrimSpace(m.href()), "#") {
			if h := strings.TrimSpace(m.href()); !slices.Contains(found[:n], h) {
				found[n] = h
				n++
			}
			return false, n == len(found)
		}
		return true, false
	})
	return found[0], n
}

// allFirstLink is firstLink walking every node.
func allFirstLink(r record) string {
	found := ""
	walkUntil(r, func(n *node) (bool, bool) {
		if n.tag() == "a" && n.usableLink() {
			found = strings.TrimSpace(n.href())
			return false, true
		}
		return true, false
	})
	return found
}
