package annotate

import "testing"

// FuzzMayLinkTo checks mayLinkTo against the first links it answers for:
// when it says that no link in a candidate's stretch of the page has one
// of a set of targets, no record of the candidate has one as its first
// link.
func FuzzMayLinkTo(f *testing.F) {
	for _, s := range []string{
		`<div id="nav"><a href="/">Home</a> <a href="/venues/">Venues</a></div><ul><li><a href="/e/1">One event</a></li><li><a href="/e/2">Two events</a></li></ul>`,
		`<p><a href="/">Home</a></p><ul><li><a href=" / ">Home again</a> x</li><li><a href="/">Home</a> y</li></ul>`,
		`<p><a href="/a">A</a><a href="/b">B</a></p><table><tr><td><a href="&#47;a">A row</a></td></tr><tr><td><a href="/b">B row</a></td></tr></table>`,
		`<ul><li><a href="#top">top</a><a href="/x">The x story</a></li><li><a href="/y">The y story</a></li></ul><ul><li><a href="/x">x</a></li><li><a href="/z">z</a></li></ul>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) { checkMayLinkTo(t, []byte(page)) })
}

// checkMayLinkTo is FuzzMayLinkTo's check of one input, shared with
// TestMutatedPages, which runs it on mutated corpus pages.
func checkMayLinkTo(t *testing.T, raw []byte) {
	page := string(raw)
	p, err := newPage([]byte(page), "")
	if err != nil {
		return
	}
	cands := findCandidates(p.tree(func(string) []existingTag { return nil }, false))
	cands = cands[:min(len(cands), 24)]
	for _, b := range cands {
		set := map[string]bool{}
		for _, r := range b.records {
			if h := firstLink(r); h != "" && len(set) < smallLinkSet {
				set[h] = true
			}
		}
		if len(set) == 0 {
			continue
		}
		for _, a := range cands {
			if mayLinkTo(a, set) {
				continue
			}
			for _, r := range a.records {
				if h := firstLink(r); set[h] {
					t.Fatalf("mayLinkTo says no link of %s has one of %v, but a record's first link is %q", a.describe(), set, h)
				}
			}
		}
	}
}
