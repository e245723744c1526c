package dedup

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

// labelledSet is testdata/labelled.json: items grouped into stories, with
// families of different stories that look alike.
type labelledSet struct {
	Sources  map[string]string   `json:"sources"` // source → title prefix
	Families map[string][]string `json:"families"`
	Items    []labelledItem      `json:"items"`
}

type labelledItem struct {
	Story       string `json:"story"`
	Kind        string `json:"kind"` // original, copy, edit, rewrite
	Source      string `json:"source"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

func loadLabelled(t testing.TB) labelledSet {
	t.Helper()
	data, err := os.ReadFile("testdata/labelled.json")
	if err != nil {
		t.Fatal(err)
	}
	var set labelledSet
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatalf("testdata/labelled.json: %v", err)
	}
	return set
}

// kindRank orders how far an item strays from its story's original; a
// pair is as hard as its farther item.
var kindRank = map[string]int{"original": 0, "copy": 1, "edit": 2, "rewrite": 3}

var pairKinds = []string{"copy", "edit", "rewrite"}

// labelledPair is one pair of items with what the evaluation needs.
type labelledPair struct {
	same     bool
	hard     bool   // different stories of one family
	kind     string // for duplicates: copy, edit or rewrite
	distance int
}

// hashSeeds is how many hash functions the evaluation pools: with 20 to 40
// features an item, where a pair's fingerprints land depends visibly on
// the luck of the feature hashes (one hash puts two different stories 5
// bits apart, another 15), so schemes and thresholds are judged over many
// hashes, the production one (seed 0) among them, not over one draw.
const hashSeeds = 16

// pairs returns every pair of items of the set, fingerprinted by s with
// each of hashSeeds hash functions.
func (set labelledSet) pairs(s scheme) []labelledPair {
	family := map[string]string{}
	for name, stories := range set.Families {
		for _, st := range stories {
			family[st] = name
		}
	}
	features := make([][]feature, len(set.Items))
	for i, it := range set.Items {
		features[i] = s.features(it.Title, sanitize.Text(it.Description), set.Sources[it.Source])
	}
	n := len(set.Items)
	out := make([]labelledPair, 0, n*(n-1)/2*hashSeeds)
	fps := make([]uint64, n)
	for seed := range uint64(hashSeeds) {
		for i, fs := range features {
			fps[i] = simhash(fs, seed*0x9e3779b97f4a7c15) // 0 first: the production hash
		}
		for i, a := range set.Items {
			for j := i + 1; j < len(set.Items); j++ {
				b := set.Items[j]
				p := labelledPair{same: a.Story == b.Story, distance: Distance(fps[i], fps[j])}
				if p.same {
					p.kind = a.Kind
					if kindRank[b.Kind] > kindRank[a.Kind] {
						p.kind = b.Kind
					}
				} else {
					p.hard = family[a.Story] != "" && family[a.Story] == family[b.Story]
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// scores are a threshold's results over every pair of the set.
type scores struct {
	k                 int
	tp, fp, fn        int
	hardFP, hard      int
	found, dups       map[string]int // duplicates found and in all, by kind
	precision, recall float64
}

func score(pairs []labelledPair, k int) scores {
	sc := scores{k: k, found: map[string]int{}, dups: map[string]int{}}
	for _, p := range pairs {
		within := p.distance <= k
		switch {
		case p.same:
			sc.dups[p.kind]++
			if within {
				sc.tp++
				sc.found[p.kind]++
			} else {
				sc.fn++
			}
		case within:
			sc.fp++
		}
		if p.hard {
			sc.hard++
			if within {
				sc.hardFP++
			}
		}
	}
	sc.precision = 1
	if sc.tp+sc.fp > 0 {
		sc.precision = float64(sc.tp) / float64(sc.tp+sc.fp)
	}
	sc.recall = float64(sc.tp) / float64(sc.tp+sc.fn)
	return sc
}

func (sc scores) recallOf(kind string) float64 {
	return float64(sc.found[kind]) / float64(sc.dups[kind])
}

var updateDocs = flag.Bool("update-docs", false, "rewrite the measured tables in docs/DEDUP.md")

const docsPath = "../docs/DEDUP.md"

// largestWindow is the window size (in items) that the defaults must hold
// up at: the size of the benchmarks.
const largestWindow = 1_000_000

// maxRandomMatches is how many unrelated items within k of a new item the
// default k may expect in the largest window: one false duplicate per 50
// new items.
const maxRandomMatches = 0.02

// negativeBitShare is the mean share of differing bits between
// fingerprints of different stories, from the labelled set.
func negativeBitShare(pairs []labelledPair) float64 {
	sum, n := 0, 0
	for _, p := range pairs {
		if !p.same {
			sum += p.distance
			n++
		}
	}
	return float64(sum) / float64(n) / 64
}

// randomMatches is how many of n unrelated fingerprints are expected within
// k of a new one, when each of the 64 bits differs with probability p
// independently (the labelled negatives' spread, 4.05 bits, is what this
// binomial model predicts: 4.0).
func randomMatches(n, k int, p float64) float64 {
	within := 0.0
	for i := 0; i <= k; i++ {
		within += binomial(64, i) * math.Pow(p, float64(i)) * math.Pow(1-p, float64(64-i))
	}
	return float64(n) * within
}

func binomial(n, k int) float64 {
	c := 1.0
	for i := 0; i < k; i++ {
		c = c * float64(n-i) / float64(i+1)
	}
	return c
}

// TestLabelledSetJustifiesDefaultK measures precision and recall of the
// default scheme for k = 0…16 and checks that DefaultK is the largest k
// with no false pair in the labelled set under any of the hashes and at most
// maxRandomMatches expected false matches per new item in a window of
// largestWindow items. The table in docs/DEDUP.md is this test's output
// (-update-docs).
func TestLabelledSetJustifiesDefaultK(t *testing.T) {
	set := loadLabelled(t)
	pairs := set.pairs(defaultScheme)
	production := pairs[:len(pairs)/hashSeeds]
	share := negativeBitShare(pairs)
	var table strings.Builder
	fmt.Fprintf(&table, "| k | found | false | missed | precision | recall | copy | edit | rewrite | hard negatives matched | false pairs, production hash | unrelated matches per new item, %d-item window (model) |\n", largestWindow)
	table.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	chosen := -1
	clean := -1 // the largest k without a false pair
	for k := 0; k <= 16; k++ {
		sc := score(pairs, k)
		if sc.fp == 0 {
			clean = k
		}
		random := randomMatches(largestWindow, k, share)
		fmt.Fprintf(&table, "| %d | %.1f | %.2f | %.1f | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f of %d | %d | %.2g |\n",
			k, perHash(sc.tp), perHash(sc.fp), perHash(sc.fn), sc.precision, sc.recall,
			sc.recallOf("copy"), sc.recallOf("edit"), sc.recallOf("rewrite"), perHash(sc.hardFP), sc.hard/hashSeeds,
			score(production, k).fp, random)
		if sc.fp == 0 && random <= maxRandomMatches {
			chosen = k
		}
	}
	t.Logf("mean share of differing bits between different stories: %.3f\n%s", share, table.String())
	if chosen != DefaultK {
		t.Errorf("the rule picks k = %d, DefaultK is %d", chosen, DefaultK)
	}
	sc := score(pairs, DefaultK)
	if sc.recallOf("copy") != 1 || sc.hardFP != 0 {
		t.Errorf("at DefaultK: copy recall %.2f, hard negatives matched %d; want every copy and no hard negative", sc.recallOf("copy"), sc.hardFP)
	}
	counts := fmt.Sprintf("%d items of %d stories, %d pairs of copies of one story and %d pairs of different stories (%d of them hard: different stories that look alike)",
		len(set.Items), len(set.stories()), (sc.tp+sc.fn)/hashSeeds, len(production)-(sc.tp+sc.fn)/hashSeeds, sc.hard/hashSeeds)
	table.WriteString("\nThe same rule for smaller windows (items first seen within the window, all sources):\n\n| window | largest k |\n|---|---|\n")
	for _, n := range []int{10_000, 100_000, largestWindow} {
		k := clean
		for k >= 0 && randomMatches(n, k, share) > maxRandomMatches {
			k--
		}
		fmt.Fprintf(&table, "| %d items | %d |\n", n, k)
	}
	checkDocs(t, "labelled-k", fmt.Sprintf("%s. Counts are means per hash over %d hashes; mean share of differing bits between different stories: %.3f.\n\n%s",
		counts, hashSeeds, share, table.String()))
}

// perHash turns a count pooled over the hashes into a mean per hash.
func perHash(n int) float64 { return float64(n) / hashSeeds }

func (set labelledSet) stories() map[string]bool {
	out := map[string]bool{}
	for _, it := range set.Items {
		out[it.Story] = true
	}
	return out
}

// alternativeSchemes are the feature choices docs/DEDUP.md compares: the
// default, the default without each of its choices, and other common ones.
var alternativeSchemes = []struct {
	name string
	s    scheme
}{
	{"default: words stemmed, stop words dropped, each feature once, numbers ×4, names ×3", defaultScheme},
	{"default, features counted as often as they occur", with(func(s *scheme) { s.once = false })},
	{"default without stemming", with(func(s *scheme) { s.stem = false })},
	{"default with names ×2", with(func(s *scheme) { s.nameWeight = 2 })},
	{"default without names", with(func(s *scheme) { s.nameWeight = 0 })},
	{"default with numbers ×2", with(func(s *scheme) { s.numberWeight = 2 })},
	{"default with numbers ×1", with(func(s *scheme) { s.numberWeight = 1 })},
	{"default with stop words kept", with(func(s *scheme) { s.stopWords = false })},
	{"default with title words ×2", with(func(s *scheme) { s.titleWeight = 2 })},
	{"default with the description's first 30 words only", with(func(s *scheme) { s.bodyWords = 30 })},
	{"default with character 4-grams of words instead of words", with(func(s *scheme) { s.shingle = 4 })},
	{"default with word bigrams added", with(func(s *scheme) { s.bigrams = true })},
	{"plain words, stop words dropped, numbers ×2 (no stemming, no names, repeats counted)", scheme{titleWeight: 1, numberWeight: 2, stopWords: true, bodyWords: 100}},
	{"plain words, stop words kept", scheme{titleWeight: 1, numberWeight: 1, bodyWords: 100}},
}

// with returns defaultScheme changed by change.
func with(change func(*scheme)) scheme {
	s := defaultScheme
	change(&s)
	return s
}

// half returns the items of every other story (h = 0 or 1, in order of
// first appearance), to see whether a ranking of schemes holds on two
// disjoint sets rather than only on their union.
func (set labelledSet) half(h int) labelledSet {
	order := map[string]int{}
	out := set
	out.Items = nil
	for _, it := range set.Items {
		if _, ok := order[it.Story]; !ok {
			order[it.Story] = len(order)
		}
		if order[it.Story]%2 == h {
			out.Items = append(out.Items, it)
		}
	}
	return out
}

// TestLabelledSetRanksDefaultSchemeFirst compares feature choices at the
// same k: different stories' fingerprints differ by about the same binomial
// spread under every scheme, so the rate of false matches at scale depends
// on k alone, and schemes are ranked by what they find at DefaultK without
// a false pair, on the whole set and on each half of its stories.
func TestLabelledSetRanksDefaultSchemeFirst(t *testing.T) {
	set := loadLabelled(t)
	halves := [2]labelledSet{set.half(0), set.half(1)}
	var table strings.Builder
	fmt.Fprintf(&table, "| features | recall k=8 | recall k=10 | recall k=12 | recall k=%d, halves A / B | false pairs k=10 | false pairs k=12 | nearest different stories, least lucky hash |\n", DefaultK)
	table.WriteString("|---|---|---|---|---|---|---|---|\n")
	var best [3]float64 // best recall at DefaultK without false pairs: whole set, half A, half B
	for i, alt := range alternativeSchemes {
		pairs := set.pairs(alt.s)
		nearest := 64 // under the least lucky hash
		for _, p := range pairs {
			if !p.same {
				nearest = min(nearest, p.distance)
			}
		}
		sets := [3][]labelledPair{pairs, halves[0].pairs(alt.s), halves[1].pairs(alt.s)}
		fmt.Fprintf(&table, "| %s | %.3f | %.3f | %.3f | %.3f / %.3f | %.2f | %.2f | %d bits |\n", alt.name,
			score(pairs, 8).recall, score(pairs, 10).recall, score(pairs, 12).recall,
			score(sets[1], DefaultK).recall, score(sets[2], DefaultK).recall,
			perHash(score(pairs, 10).fp), perHash(score(pairs, 12).fp), nearest)
		for j, ps := range sets {
			sc := score(ps, DefaultK)
			if sc.fp > 0 || sc.recall <= best[j] && i > 0 {
				continue
			}
			best[j] = sc.recall
			if i > 0 {
				t.Errorf("%s finds more than the default scheme at k=%d without a false pair (set %d)", alt.name, DefaultK, j)
			}
		}
	}
	t.Log("\n" + table.String())
	checkDocs(t, "schemes", table.String())
}

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
