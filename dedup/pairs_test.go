package dedup

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pairSet is testdata/pairs.json: groups of items with the pairs among
// them that are labelled, each group in the tuning or the test half.
type pairSet struct {
	Sources map[string]string `json:"sources"` // source → its configured title prefix
	Groups  []pairGroup       `json:"groups"`
}

type pairGroup struct {
	ID    string     `json:"id"`
	Half  string     `json:"half"` // tuning or test, assigned once
	Kind  string     `json:"kind"` // the kind of every pair, unless an item says its own
	Items []pairItem `json:"items"`
	Pairs [][2]int   `json:"pairs"`
}

type pairItem struct {
	Source      string `json:"source"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Kind        string `json:"kind"` // for a story's variants: how it was made from items[0]
}

// Kinds of pairs: the first five are two copies of one story.
var (
	sameKinds      = []string{"copy", "edit", "rewrite", "short", "non-english"}
	differentKinds = []string{"template", "same-entity", "sequel", "correction", "short-different", "non-english-different"}
)

// halves are the parts of the labelled set: thresholds are tuned on the
// tuning half only. The test half and then a first held-out part were
// each read once and showed a different story taken for a copy too often;
// the rules changed after each, and a second held-out part was written
// after that change and read once. A third held-out part was written
// before the rules changed again, and measured with the rules it was
// written under (docs/DEDUP.md tells the order). A fourth held-out part was
// written before the rules changed again, and read once when they were
// final. A fifth held-out part was written before parts 2-4's wrong
// decisions were read and the rules changed on them (parts 1-4 then became
// searched data), and was read once when the rules were final. A sixth
// held-out part was written after part 5 was read and before part 5's
// wrong decisions were read and the rules changed on them (docs/DEDUP.md,
// step 14), and was read once when the rules were final. A seventh
// held-out part was written after part 6 was read, before any rule changed
// on part 6's wrong decisions (step 17), and was read once when the
// rules were final (step 19). An eighth held-out part was written after
// part 7 was read, before any of its wrong decisions was read or any rule
// changed (step 20), and was read once when the rules were final (step 22).
// A ninth held-out part was written after part 8 was read, before any of
// its wrong decisions was read or any rule changed (step 23), and was read
// once when the rules were final (step 25).
var halves = []string{"tuning", "test", "holdout", "holdout2", "holdout3", "holdout4", "holdout5", "holdout6", "holdout7", "holdout8", "holdout9"}

// unread are the held-out parts whose figures have not been read yet: the
// tests load and check their pairs and count their pairs of different
// stories, but decide none of them, so that no figure of theirs shows
// while rules are still being changed (docs/DEDUP.md, steps 8, 11, 14,
// 17, 20 and 23). A part leaves this set when it is read, once, with the
// final rules; none is unread now (part 9 was read in step 25).
var unread = map[string]bool{}

// labelledPair is one labelled pair of items.
type labelledPair struct {
	part, group, kind string
	same              bool
	a, b              pairItem
}

func loadPairs(t testing.TB) pairSet {
	t.Helper()
	data, err := os.ReadFile("testdata/pairs.json")
	if err != nil {
		t.Fatal(err)
	}
	var set pairSet
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatalf("testdata/pairs.json: %v", err)
	}
	for _, g := range set.Groups {
		if !slices.Contains(halves, g.Half) {
			t.Fatalf("group %s: half %q", g.ID, g.Half)
		}
		for _, p := range g.Pairs {
			if p[0] < 0 || p[1] >= len(g.Items) || p[0] >= p[1] {
				t.Fatalf("group %s: pair %v", g.ID, p)
			}
			if k := g.pairKind(p); !slices.Contains(sameKinds, k) && !slices.Contains(differentKinds, k) {
				t.Fatalf("group %s: kind %q", g.ID, k)
			}
		}
	}
	return set
}

func (g pairGroup) pairKind(p [2]int) string {
	if k := g.Items[p[1]].Kind; k != "" {
		return k
	}
	return g.Kind
}

// pairs returns the labelled pairs of one half.
func (set pairSet) pairs(half string) []labelledPair {
	var out []labelledPair
	for _, g := range set.Groups {
		if g.Half != half {
			continue
		}
		for _, p := range g.Pairs {
			k := g.pairKind(p)
			out = append(out, labelledPair{part: half, group: g.ID, kind: k, same: slices.Contains(sameKinds, k), a: g.Items[p[0]], b: g.Items[p[1]]})
		}
	}
	return out
}

// learners returns each source's affixes learned from the titles of one
// half's items, each distinct item once, as a detector would have learned
// them from the sources' feeds.
func (set pairSet) learners(half string) map[string]*SourceAffixes {
	out := map[string]*SourceAffixes{}
	seen := map[pairItem]bool{}
	for _, g := range set.Groups {
		if g.Half != half {
			continue
		}
		for _, it := range g.Items {
			key := pairItem{Source: it.Source, Title: it.Title, Description: it.Description}
			if seen[key] {
				continue
			}
			seen[key] = true
			if out[it.Source] == nil {
				out[it.Source] = &SourceAffixes{}
			}
			out[it.Source].Observe(it.Title)
		}
	}
	return out
}

// profiled is a labelled pair with its items' profiles.
type profiled struct {
	labelledPair
	pa, pb Profile
}

func (set pairSet) profiled(half string) []profiled {
	learned := set.learners(half)
	var out []profiled
	for _, p := range set.pairs(half) {
		out = append(out, profiled{
			labelledPair: p,
			pa:           NewProfile(p.a.Title, p.a.Description, set.Sources[p.a.Source], learned[p.a.Source]),
			pb:           NewProfile(p.b.Title, p.b.Description, set.Sources[p.b.Source], learned[p.b.Source]),
		})
	}
	return out
}

// kindScores are one kind's results.
type kindScores struct {
	pairs, matched int
}

// evaluation is a decision's results on a half, by kind.
type evaluation struct {
	byKind map[string]*kindScores
	tp, fp int
	misses []string // what went wrong, for the log
}

func evaluate(th Thresholds, ps []profiled) evaluation {
	ev := evaluation{byKind: map[string]*kindScores{}}
	for _, k := range append(slices.Clone(sameKinds), differentKinds...) {
		ev.byKind[k] = &kindScores{}
	}
	for _, p := range ps {
		d := th.Compare(p.pa, p.pb)
		ks := ev.byKind[p.kind]
		ks.pairs++
		if d.Same {
			ks.matched++
			if p.same {
				ev.tp++
			} else {
				ev.fp++
			}
		}
		if d.Same != p.same {
			ev.misses = append(ev.misses, p.describe(d))
		}
	}
	return ev
}

func (p profiled) describe(d Decision) string {
	return p.group + " (" + p.kind + "): " + string(d.Rule) + " " + formatScore(d.Score) + "\n    " + p.a.Title + "\n    " + p.b.Title
}

func (ev evaluation) precision() float64 {
	if ev.tp+ev.fp == 0 {
		return 1
	}
	return float64(ev.tp) / float64(ev.tp+ev.fp)
}

func (ev evaluation) share(kind string) float64 {
	ks := ev.byKind[kind]
	if ks.pairs == 0 {
		return 0
	}
	return float64(ks.matched) / float64(ks.pairs)
}

func formatScore(s float64) string { return strconv.FormatFloat(s, 'f', 2, 64) }

// checkDocs compares a generated block of docs/DEDUP.md, between
// <!-- begin NAME --> and <!-- end NAME -->, with want, or rewrites it with
// -update-docs.
func checkDocs(t *testing.T, name, want string) {
	t.Helper()
	data, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := "<!-- begin "+name+" -->\n", "<!-- end "+name+" -->"
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q block", docsPath, begin, end)
	}
	got := doc[i+len(begin) : j]
	if got == want {
		return
	}
	if !*updateDocs {
		t.Errorf("%s block %q is out of date: run go test ./dedup -run Labelled -update-docs\nwant:\n%s", docsPath, name, want)
		return
	}
	doc = doc[:i+len(begin)] + want + doc[j:]
	if err := os.WriteFile(docsPath, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

var updateDocs = flag.Bool("update-docs", false, "rewrite the measured tables in docs/DEDUP.md")

const docsPath = "../docs/DEDUP.md"

// Aims (issue 16), judged on every part but the tuning half: no different
// story hidden, every light edit found; rewrites are reported, not held to
// an aim. Where a part's precision fell short of the aim when it was last
// read, the test holds it to what it read (precisionFloor), so that the
// figures cannot fall further unseen; docs/DEDUP.md says plainly which
// aims are met where.
const (
	aimPrecision     = 0.99
	aimEditRecall    = 0.95
	aimTestNegatives = 150
)

// precisionFloor is, for a part read once after the thresholds were
// searched, the precision it read where that is below aimPrecision, so
// that it cannot fall further unseen. Held-out parts 1-4 had floors at
// what they read (0.989, 0.976, 0.947, 0.961) until they became searched
// data (docs/DEDUP.md, step 12); they now read 1.000 in-sample and are
// held to the aim. Held-out part 6, read once with the rules of step 15,
// took 1 of its 174 different stories for one story: precision 87/88
// (docs/DEDUP.md, step 16), and had a floor of 0.988 until it became
// searched data (step 18); it is held to the aim now. Held-out part 7,
// read once with the rules of step 18, took 5 of its 179 different
// stories for one story: precision 91/96 (docs/DEDUP.md, step 19). As
// searched data (step 21) it still takes one, an edition of a weekly
// bathing-water rating with the same verdict, days and words as the week
// before, which no rule of a bag of words tells from a light edit:
// precision 91/92, and the floor is what it reads in-sample. Held-out
// part 8, read once with the rules of step 21, took 7 of its 189
// different stories for one story: precision 98/105 (docs/DEDUP.md,
// step 22). As searched data (step 23), with the facts rule off, part 7
// takes the same bathing-water pair and finds fewer rewrites (precision
// 77/78), and part 8 takes one, a recycling round whose areas trade days
// under one unchanged title with the same words (precision 87/88): each
// is held to what it reads in-sample.
var precisionFloor = map[string]float64{"holdout7": 0.987, "holdout8": 0.988}

// editRecallFloor is, likewise, the light-edit recall of a part read below
// aimEditRecall. Held-out part 5, read once with the rules of step 12,
// found 41 of its 45 light edits (docs/DEDUP.md, step 13), and had a floor
// of 0.911 until it became searched data (step 15); it is held to the aim
// now.
var editRecallFloor = map[string]float64{}

// TestLabelledPairs decides every labelled pair of both halves with
// DefaultThresholds, writes the table of results by kind that
// docs/DEDUP.md shows, and fails when the test half falls below the aims.
func TestLabelledPairs(t *testing.T) {
	set := loadPairs(t)
	evs := map[string]evaluation{}
	for _, h := range halves {
		if !unread[h] {
			evs[h] = evaluate(DefaultThresholds, set.profiled(h))
		}
	}
	var table strings.Builder
	table.WriteString("| kind of pair | tuning half | test half | held-out part 1 | held-out part 2 | held-out part 3 | held-out part 4 | held-out part 5 | held-out part 6 | held-out part 7 | held-out part 8 | held-out part 9 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(label string, cell func(evaluation) string) {
		fmt.Fprintf(&table, "| %s |", label)
		for _, h := range halves {
			if unread[h] {
				table.WriteString(" not read yet |")
				continue
			}
			fmt.Fprintf(&table, " %s |", cell(evs[h]))
		}
		table.WriteString("\n")
	}
	for _, k := range sameKinds {
		row(k+" (same story)", func(ev evaluation) string {
			ks := ev.byKind[k]
			return fmt.Sprintf("%d of %d (recall %.2f)", ks.matched, ks.pairs, ev.share(k))
		})
	}
	for _, k := range differentKinds {
		row(k+" (different stories)", func(ev evaluation) string {
			ks := ev.byKind[k]
			return fmt.Sprintf("%d of %d taken for one story", ks.matched, ks.pairs)
		})
	}
	row("**all same-story pairs**", func(ev evaluation) string {
		n := 0
		for _, k := range sameKinds {
			n += ev.byKind[k].pairs
		}
		return fmt.Sprintf("%d of %d (recall %.3f)", ev.tp, n, float64(ev.tp)/float64(n))
	})
	row("**all different-story pairs**", func(ev evaluation) string {
		n := 0
		for _, k := range differentKinds {
			n += ev.byKind[k].pairs
		}
		return fmt.Sprintf("%d of %d taken for one story (precision %.3f)", ev.fp, n, ev.precision())
	})
	// The misses of the parts the search reads are logged; those of the
	// held-out parts it does not read are not, so that no one tunes on
	// them by reading a test log.
	for _, h := range searchedParts {
		t.Logf("%s, pairs decided wrongly:\n  %s", h, strings.Join(evs[h].misses, "\n  "))
	}
	t.Log("\n" + table.String())
	for _, h := range halves[1:] {
		negatives := 0
		for _, p := range set.pairs(h) {
			if !p.same {
				negatives++
			}
		}
		// Every part but the tuning half needs its different stories,
		// read or not; an unread part is counted, not judged.
		if negatives < aimTestNegatives {
			t.Errorf("%s: %d pairs of different stories, the aim needs %d", h, negatives, aimTestNegatives)
		}
		if unread[h] {
			t.Logf("%s: not read yet, %d pairs of different stories", h, negatives)
			continue
		}
		ev := evs[h]
		floor := aimPrecision
		if f, ok := precisionFloor[h]; ok {
			floor = f
			t.Logf("%s: precision %.3f, below the aim of %.2f (floor %.3f)", h, ev.precision(), aimPrecision, f)
		}
		if p := ev.precision(); p < floor {
			t.Errorf("%s: precision %.3f, want at least %.3f", h, p, floor)
		}
		editFloor := aimEditRecall
		if f, ok := editRecallFloor[h]; ok {
			editFloor = f
			t.Logf("%s: light edits found %.3f, below the aim of %.2f (floor %.3f)", h, ev.share("edit"), aimEditRecall, f)
		}
		if r := ev.share("edit"); r < editFloor {
			t.Errorf("%s: light edits found %.3f, want at least %.3f", h, r, editFloor)
		}
	}
	checkDocs(t, "pairs", table.String())
	th := DefaultThresholds
	checkDocs(t, "thresholds", fmt.Sprintf("| NumberWeight | NameWeight | ShortTerms | Text | Facts | FactsWeight | TextOfFacts |\n|---|---|---|---|---|---|---|\n| %d | %d | %d | %g | %g | %g | %g |\n",
		th.NumberWeight, th.NameWeight, th.ShortTerms, th.Text, th.Facts, th.FactsWeight, th.TextOfFacts))
}
