package annotate

import (
	"hash/maphash"
	"os"
	"path/filepath"
	"testing"

	nethtml "golang.org/x/net/html"
)

// TestCursorReachesEveryNode moves the cursor to every node of corpus
// pages, in page order and back again, and checks that each navigator is
// on the node and rooted at the document, as one walked down from the
// root is.
func TestCursorReachesEveryNode(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	if len(files) > 6 {
		files = files[:6]
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := newPage(raw, "")
		if err != nil {
			t.Fatal(err)
		}
		doc := domOf(p, buildTree(p.text, maphash.MakeSeed(), nil, true)).doc
		var nodes []*nethtml.Node
		var visit func(n *nethtml.Node)
		visit = func(n *nethtml.Node) {
			nodes = append(nodes, n)
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				visit(c)
			}
		}
		visit(doc)
		c := &cursor{doc: doc}
		order := append([]*nethtml.Node(nil), nodes...)
		for i := len(nodes) - 1; i >= 0; i -= 3 { // and some back again
			order = append(order, nodes[i])
		}
		for i, n := range order {
			nav := c.navigatorAt(n)
			if nav.Current() != n {
				t.Fatalf("%s: the cursor is not on node %d asked for", f, i)
			}
			nav.MoveToRoot()
			if nav.Current() != doc {
				t.Fatalf("%s: the navigator's root is not the document", f)
			}
		}
	}
}

// TestTakenReportsTheEarliestClash checks the spans a field's matches
// take: a span overlapping or equal to one taken clashes, with the
// earliest taken of those it clashes with; touching ones do not.
func TestTakenReportsTheEarliestClash(t *testing.T) {
	f := &follower{}
	for _, c := range []struct {
		start, end int
		clash      bool
		with       int
	}{
		{10, 20, false, 0},
		{30, 40, false, 0},
		{20, 30, false, 0}, // touches both
		{5, 5, false, 0},   // empty, before
		{5, 5, true, 5},    // the same empty span
		{15, 35, true, 10}, // overlaps three: the earliest taken
		{25, 26, true, 20},
		{40, 40, false, 0},
		{0, 100, true, 10},
	} {
		with, clash := f.taken("title", c.start, c.end)
		if clash != c.clash || clash && with != c.with {
			t.Errorf("taken(%d, %d) = %d, %v; want %d, %v", c.start, c.end, with, clash, c.with, c.clash)
		}
	}
}
