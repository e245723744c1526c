package dedup

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// synthetic makes profiles of made-up news items whose terms follow the
// shape of real ones: words, names and numbers drawn with Zipf's law from
// large vocabularies (a few words in every story, most in few), a date now
// and then, a title of about 8 terms and a description of about 30. It
// stands in for a real window of a million items, which the repository
// does not hold: what matters to the index is how often unrelated items
// share terms, and Zipf's law is how news vocabulary behaves.
type synthetic struct {
	rng                   *rand.Rand
	words, names, numbers *rand.Zipf
	wordTerms             []term
	nameTerms             []term
	numberTerms           []term
	dateTerms             []term
}

func newSynthetic(seed uint64) *synthetic {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	s := &synthetic{
		rng:     rng,
		words:   rand.NewZipf(rng, 1.07, 2, 49_999),
		names:   rand.NewZipf(rng, 1.1, 4, 19_999),
		numbers: rand.NewZipf(rng, 1.2, 3, 4_999),
	}
	vocab := func(prefix string, n int, class term) []term {
		out := make([]term, n)
		for i := range out {
			out[i] = term(termHash(fmt.Sprintf("%s%d", prefix, i)))<<flagBits | class
		}
		return out
	}
	s.wordTerms = vocab("w", 50_000, classWord)
	s.nameTerms = vocab("n", 20_000, className)
	s.numberTerms = vocab("", 5_000, classNumber)
	for w := range dateWords {
		s.dateTerms = append(s.dateTerms, term(termHash(w))<<flagBits|classDate)
	}
	slices.Sort(s.dateTerms)
	return s
}

// profile returns a new item's profile.
func (s *synthetic) profile() Profile {
	var ts []term
	add := func(t term, title bool) {
		if title {
			t |= inTitle
		}
		ts = append(ts, t)
	}
	for i := range 38 {
		title := i < 8
		switch r := s.rng.IntN(100); {
		case r < 10:
			add(s.nameTerms[s.names.Uint64()], title)
		case r < 18:
			add(s.numberTerms[s.numbers.Uint64()], title)
		case r < 20 && !title:
			add(s.dateTerms[s.rng.IntN(len(s.dateTerms))], false)
		default:
			add(s.wordTerms[s.words.Uint64()], title)
		}
	}
	return s.finish(ts)
}

// edit returns a light edit of p: a few terms replaced by new words.
func (s *synthetic) edit(p Profile, changes int) Profile {
	ts := slices.Clone(p.terms)
	for range changes {
		i := s.rng.IntN(len(ts))
		ts[i] = s.wordTerms[s.words.Uint64()] | ts[i]&inTitle
	}
	return s.finish(ts)
}

// finish sorts terms into a profile, one per hash, title flags merged.
func (s *synthetic) finish(ts []term) Profile {
	slices.SortFunc(ts, func(a, b term) int { return int(a.hash()) - int(b.hash()) })
	out := ts[:0]
	for _, t := range ts {
		if n := len(out); n > 0 && out[n-1].hash() == t.hash() {
			out[n-1] |= t & inTitle
			continue
		}
		out = append(out, t)
	}
	return Profile{terms: out, flags: hasBody, order: s.rng.Uint32()}
}
