package annotate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	f.Fuzz(checkDescAtPlace)
}

// checkDescAtPlace is FuzzDescAtPlace's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkDescAtPlace(t *testing.T, raw []byte) {
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
			d := pick(ch.descCandidates(nil, it, at), fc.descKey)
			if d != nil && (d.n != only || atPlace(ch.find(it.rec, descAt), it) != only) {
				t.Fatalf("record %d of %s: picked %p at %s, atPlace gives another", k, c.describe(), d.n, fc.descKey)
			}
		}
	}
}

// TestNoDescriptionInTheTitlesElement checks the rule descCandidates and
// atPlace share: when the title's place is a link around a block that
// holds the heading and a paragraph (the title narrowed to the heading),
// the paragraph lies in the title's element, whose text the selectors
// take as the title, and is no description. FuzzDescAtPlace found records
// where descCandidates took it and atPlace did not.
func TestNoDescriptionInTheTitlesElement(t *testing.T) {
	var raw []byte
	for i := 1; i <= 4; i++ {
		raw = append(raw, fmt.Sprintf(`<li><a href="/p/%d"><div><h3>Story %d</h3><p>Body text of item %d, long enough to be a description.</p></div></a><p>Posted by the desk of the newsroom for item %d.</p></li>`, i, i, i, i)...)
	}
	p, err := newPage([]byte("<ul>"+string(raw)+"</ul>"), "")
	if err != nil {
		t.Fatal(err)
	}
	ch := &chooser{p: p, loc: time.UTC}
	var recs []record
	for _, c := range findCandidates(p.tree(nil, false)) {
		if len(c.records) == 4 && c.records[0].nodes[0].tag() == "li" {
			recs = c.records
		}
	}
	if recs == nil {
		t.Fatal("no candidate of the four <li>")
	}
	for k, r := range recs {
		found := map[string]*node{}
		walkUntil(r, func(n *node) (bool, bool) {
			if tag := n.tag(); found[tag] == nil {
				found[tag] = n
			}
			return true, false
		})
		link := found["a"]
		it := itemChoice{rec: r, title: found["h3"], titleAt: link, link: link}
		cands := ch.descCandidates(nil, &it, nil)
		if len(cands) == 0 {
			t.Errorf("record %d: no description candidate, want the line after the link", k)
		}
		for _, d := range cands {
			if text := p.textOf(d.n); isAncestor(link, d.n) || !strings.HasPrefix(text, "Posted by") {
				t.Errorf("record %d: description candidate %q, want only the line after the link (the element <p> or its text)", k, text)
			}
		}
	}
}
