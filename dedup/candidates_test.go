package dedup

import (
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"testing"
)

// simhashOf is the 64-bit SimHash of a profile's weighted content terms:
// the alternative candidate stage that docs/DEDUP.md compares with MinHash
// bands (the multi-index SimHash index answers "within k bits" exactly, so
// its candidates are the pairs within k).
func simhashOf(p Profile, th Thresholds) uint64 {
	var votes [64]float64
	for _, t := range p.terms {
		if t&affixOnly != 0 {
			continue
		}
		h, w := mix64(uint64(t.hash())), th.weight(t)
		for i := range votes {
			if h>>i&1 == 1 {
				votes[i] += w
			} else {
				votes[i] -= w
			}
		}
	}
	var fp uint64
	for i, v := range votes {
		if v > 0 {
			fp |= 1 << i
		}
	}
	return fp
}

func shareKey(a, b []uint32) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}

// candidateStudy is what a candidate stage finds on the labelled set: the
// share of the pairs the decision takes for one story that it proposes,
// by kind, and the share of pairs of unrelated items (of different groups)
// it proposes, parts not read yet left out (unread), which is how many candidates a lookup must decide per item
// in the window. The set's stories share their fictional places, firms and
// people far more than a real window's do (its hard negatives are made
// that way), so the second share overstates what a real window costs; the
// benchmark measures it on a synthetic million.
type candidateStudy struct {
	name      string
	found     map[string][2]int // kind → proposed, decided same
	unrelated float64
}

// candidateItems is what every candidate study reads, profiled and decided
// once for all of them: the same-story pairs the decision takes, and every
// item of the parts read with its group.
type candidateItems struct {
	same  []profiled
	all   []Profile
	group []string
}

func newCandidateItems(set pairSet) candidateItems {
	var ci candidateItems
	for _, h := range halves {
		if unread[h] {
			continue
		}
		for _, p := range set.profiled(h) {
			if p.same && Compare(p.pa, p.pb).Same {
				ci.same = append(ci.same, p)
			}
		}
		learned := set.learners(h)
		for _, g := range set.Groups {
			if g.Half != h {
				continue
			}
			for _, it := range g.Items {
				ci.all = append(ci.all, NewProfile(it.Title, it.Description, set.Sources[it.Source], learned[it.Source]))
				ci.group = append(ci.group, g.ID)
			}
		}
	}
	return ci
}

func studyCandidates(ci candidateItems, name string, propose func(a, b Profile, ka, kb []uint32) bool, keys func(Profile) []uint32) candidateStudy {
	st := candidateStudy{name: name, found: map[string][2]int{}}
	for _, p := range ci.same {
		c := st.found[p.kind]
		if propose(p.pa, p.pb, keys(p.pa), keys(p.pb)) {
			c[0]++
		}
		c[1]++
		st.found[p.kind] = c
	}
	all, group := ci.all, ci.group
	ks := make([][]uint32, len(all))
	for i, p := range all {
		ks[i] = keys(p)
	}
	proposed, pairs := 0, 0
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if group[i] == group[j] {
				continue
			}
			pairs++
			if propose(all[i], all[j], ks[i], ks[j]) {
				proposed++
			}
		}
	}
	st.unrelated = float64(proposed) / float64(pairs)
	return st
}

// TestCandidateStages compares candidate stages on the labelled set: the
// multi-index SimHash at several radii and MinHash bands of several
// shapes, by the share of the decision's same-story pairs they propose
// and the share of unrelated pairs they propose. docs/DEDUP.md shows the
// table; the test checks that the chosen configuration proposes every
// copy, light edit and short copy the decision finds.
func TestCandidateStages(t *testing.T) {
	items := newCandidateItems(loadPairs(t))
	th := DefaultThresholds
	// The stages are studied side by side, each on its own goroutine: each
	// decides every pair of unrelated items, and they share only what they
	// read.
	type stage struct {
		name    string
		propose func(a, b Profile, ka, kb []uint32) bool
		keys    func(Profile) []uint32
	}
	var stages []stage
	// A SimHash sketch is the fingerprint's two halves.
	simhashSketch := func(p Profile) []uint32 {
		fp := simhashOf(p, th)
		return []uint32{uint32(fp), uint32(fp >> 32)}
	}
	for _, k := range []int{9, 12, 16, 20} {
		stages = append(stages, stage{fmt.Sprintf("SimHash, 64 bits, within %d bits", k),
			func(_, _ Profile, ka, kb []uint32) bool {
				return bits.OnesCount32(ka[0]^kb[0])+bits.OnesCount32(ka[1]^kb[1]) <= k
			}, simhashSketch})
	}
	for _, c := range []lshConfig{
		{textBands: 8, textRows: 4, factBands: 6, factRows: 2},
		{textBands: 12, textRows: 3, factBands: 6, factRows: 2},
		{textBands: 20, textRows: 3, factBands: 6, factRows: 2},
		{textBands: 12, textRows: 2, factBands: 6, factRows: 2},
		{textBands: 12, textRows: 3, factBands: 10, factRows: 3},
		{textBands: 12, textRows: 3, factBands: 16, factRows: 3},
		{textBands: 12, textRows: 3},
	} {
		name := fmt.Sprintf("MinHash, %d text bands of %d, %d fact bands of %d, headline key", c.textBands, c.textRows, c.factBands, c.factRows)
		if c == defaultLSH {
			name += " (chosen)"
		}
		stages = append(stages, stage{name,
			func(_, _ Profile, ka, kb []uint32) bool { return shareKey(ka, kb) },
			func(p Profile) []uint32 { return c.keys(p, th) }})
	}
	studies := make([]candidateStudy, len(stages))
	var wg sync.WaitGroup
	for i, s := range stages {
		wg.Go(func() { studies[i] = studyCandidates(items, s.name, s.propose, s.keys) })
	}
	wg.Wait()
	kinds := sameKinds
	var table strings.Builder
	table.WriteString("| candidate stage | " + strings.Join(kinds, " | ") + " | unrelated pairs proposed | candidates per lookup, 1 M window (estimate) |\n")
	table.WriteString("|---|" + strings.Repeat("---|", len(kinds)+2) + "\n")
	for _, st := range studies {
		table.WriteString("| " + st.name + " | ")
		for _, k := range kinds {
			c := st.found[k]
			fmt.Fprintf(&table, "%d of %d | ", c[0], c[1])
		}
		fmt.Fprintf(&table, "%.2g | %.0f |\n", st.unrelated, st.unrelated*1e6)
		if strings.HasSuffix(st.name, "(chosen)") {
			for _, k := range []string{"copy", "edit", "short"} {
				if c := st.found[k]; c[0] != c[1] {
					t.Errorf("the chosen candidate stage proposes %d of the %d %s pairs the decision finds", c[0], c[1], k)
				}
			}
		}
	}
	t.Log("\n" + table.String())
	checkDocs(t, "candidates", table.String())
}
