package annotate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzDescAtPlace checks what choose relies on to leave out the
// description's candidates past the records voted on: where one node is
// at the place chosen, the candidate picked there, if any, is the node
// atPlace gives.
func FuzzDescAtPlace(f *testing.F) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.html"))
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("<div><h3><a href=p>Heading one</a></h3><p>Body text of the first item, long enough.</p><h3><a href=q>Heading two</a></h3><p>Body text of the second item, long enough.</p></div>"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := newPage(raw, "")
		if err != nil {
			return
		}
		tb := p.tree(nil, false)
		ch := &chooser{p: p, loc: time.UTC}
		for i, c := range findCandidates(tb) {
			if i == 8 {
				break
			}
			fc := ch.choose(c, 0)
			if fc.descKey == "" {
				continue
			}
			descAt := parsePlace(fc.descKey)
			for k := range fc.items {
				it := &fc.items[k]
				at := ch.find(it.rec, descAt)
				if len(at.nodes) != 1 {
					continue
				}
				only := at.nodes[0]
				d := pick(ch.descCandidates(nil, it.rec, it.title, it.link, at), fc.descKey)
				if d != nil && (d.n != only || atPlace(ch.find(it.rec, descAt), it) != only) {
					t.Fatalf("record %d of %s: picked %p at %s, atPlace gives another", k, c.describe(), d.n, fc.descKey)
				}
			}
		}
	})
}
