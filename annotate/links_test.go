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
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := newPage(raw, "")
		if err != nil {
			return
		}
		for _, c := range findCandidates(p.tree(nil, false)) {
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
	})
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
