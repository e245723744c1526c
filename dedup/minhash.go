package dedup

import "slices"

// Candidates are found by keys: two items that share a key are compared.
// A profile's keys are of three families, one per kind of decision, so
// that an item the decision would take for a copy shares a key with it
// with high probability (docs/DEDUP.md measures how high):
//
//   - the headline key: a hash of the set of the headline's content terms.
//     The short rule needs equal headlines, so it finds every short copy;
//     long items with one headline share it too.
//   - text bands: MinHash over the item's weighted terms (a term of weight
//     w counts as w distinct elements, so that MinHash estimates the
//     weighted Jaccard similarity RuleText decides on), cut into bands of
//     textRows values; two items share a band's key with probability J^rows.
//   - fact bands: the same over the names, numbers and dates only, for
//     RuleFacts. Items with too few facts for that rule get none.
//
// Keys are 32 bits: an index of a million items holds tens of millions,
// and a key shared by chance only costs one decision.
type lshConfig struct {
	textBands, textRows int
	factBands, factRows int
}

// defaultLSH is what the index uses (docs/DEDUP.md: "Candidates").
var defaultLSH = lshConfig{textBands: 12, textRows: 3, factBands: 10, factRows: 3}

// Key families, mixed into the keys so that they never meet.
const (
	familyHeadline = 1 << 24
	familyText     = 2 << 24
	familyFacts    = 3 << 24
	familyItem     = 4 << 24 // itemKey's
)

// keys returns a profile's index keys, sorted and without repeats, for
// thresholds th (its weights and its short-item limit).
func (c lshConfig) keys(p Profile, th Thresholds) []uint32 {
	var out []uint32
	if h, ok := p.headlineKey(); ok {
		out = append(out, h)
	}
	if !th.short(p) {
		out = c.appendBands(out, p, th, familyText, c.textBands, c.textRows, false)
		if th.factsRule() && p.factWeight(th) >= th.FactsWeight {
			out = c.appendBands(out, p, th, familyFacts, c.factBands, c.factRows, true)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// headlineKey hashes the set of the headline's content terms.
func (p Profile) headlineKey() (uint32, bool) {
	titled := p.hasTitle()
	h, n := uint64(familyHeadline), 0
	for _, t := range p.terms { // sorted: the hash is of the set
		if t&affixOnly == 0 && (t&inTitle != 0 || !titled) {
			h = mix64(h ^ uint64(t.hash()))
			n++
		}
	}
	return uint32(h), n > 0
}

// factWeight is the weight of the profile's content facts.
func (p Profile) factWeight(th Thresholds) float64 {
	w := 0.0
	for _, t := range p.terms {
		if t&affixOnly == 0 && t.class() != classWord {
			w += th.weight(t)
		}
	}
	return w
}

// appendBands appends the keys of bands×rows MinHash values over the
// profile's content terms (only its facts, if factsOnly).
func (c lshConfig) appendBands(out []uint32, p Profile, th Thresholds, family uint64, bands, rows int, factsOnly bool) []uint32 {
	n := bands * rows
	mins := make([]uint64, n)
	for i := range mins {
		mins[i] = ^uint64(0)
	}
	for _, t := range p.terms {
		if t&affixOnly != 0 || factsOnly && t.class() == classWord {
			continue
		}
		for rep := range int(th.weight(t)) {
			x := mix64(uint64(t.hash())<<8 | uint64(rep))
			for i := range mins {
				// One cheap independent hash per MinHash function: the
				// element's hash mixed with the function's seed.
				if v := mix64(x ^ minhashSeeds[i]); v < mins[i] {
					mins[i] = v
				}
			}
		}
	}
	for b := range bands {
		h := family | uint64(b)<<16
		for _, v := range mins[b*rows : (b+1)*rows] {
			h = mix64(h ^ v)
		}
		out = append(out, uint32(h))
	}
	return out
}

// minhashSeeds are the seeds of the MinHash functions: fixed, because keys
// are compared across processes and restarts.
var minhashSeeds = func() []uint64 {
	seeds := make([]uint64, 128)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range seeds {
		x += 0x9e3779b97f4a7c15
		seeds[i] = mix64(x)
	}
	return seeds
}()

// mix64 is MurmurHash3's 64-bit finalizer: a bijection whose output bits
// each depend on every input bit.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
