package dedup

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

// Fingerprint returns the 64-bit SimHash of an item's normalized text: its
// title (with the source's titlePrefix removed) and the plain text of its
// description, which is HTML. Stories that differ only in case, punctuation,
// markup, a source prefix or a few words get fingerprints a few bits apart;
// different stories get fingerprints about 32 bits apart.
//
// It returns 0, which the archive reads as "no fingerprint", when neither
// the title nor the description has a word in it other than stop words:
// such items cannot be compared by text. docs/DEDUP.md explains the
// features and their weights.
func Fingerprint(title, description, titlePrefix string) uint64 {
	return simhash(defaultScheme.features(title, sanitize.Text(description), titlePrefix), 0)
}

// scheme is a choice of features and weights. Only defaultScheme is used in
// production; the labelled-set tests compare it with the alternatives that
// docs/DEDUP.md reports, so the choice stays justified by measurement.
type scheme struct {
	titleWeight  int32 // weight of a title word; a description word weighs 1
	numberWeight int32 // weight multiplier of words with a digit in them
	nameWeight   int32 // weight multiplier of names (see token.name)
	stem         bool  // strip English inflections (see stem)
	stopWords    bool  // drop single stop words (bigrams keep them)
	bigrams      bool  // adjacent word pairs as features, besides single words
	shingle      int   // >0: a word's character n-grams of this length instead of the word
	bodyWords    int   // description words used, from its start
	once         bool  // a feature counts once per item, however often it occurs
}

// defaultScheme is the scheme Fingerprint uses: single words, stemmed,
// stop words dropped, each counted once, numbers weighing 4 and names 3,
// title and description words alike, the description's first 100 words.
// docs/DEDUP.md shows how it compares with the alternatives on the
// labelled set.
var defaultScheme = scheme{titleWeight: 1, numberWeight: 4, nameWeight: 3, stem: true, stopWords: true, once: true, bodyWords: 100}

// A feature is a string whose hash votes on the fingerprint's bits.
type feature struct {
	text   string
	weight int32
}

// features returns an item's weighted features; text is the description
// already reduced to plain text.
func (s scheme) features(title, text, titlePrefix string) []feature {
	body := tokens(text, s.bodyWords)
	// Names are recognized in the description only: headlines are often
	// written in title case, where every word is capitalized.
	names := map[string]bool{}
	bodyWords := make([]string, len(body))
	for i, t := range body {
		bodyWords[i] = t.word
		if t.name {
			names[t.word] = true
		}
	}
	var fs []feature
	fs = s.appendFeatures(fs, trimPrefixWords(words(title, maxTitleWords), words(titlePrefix, maxTitleWords)), s.titleWeight, names)
	fs = s.appendFeatures(fs, bodyWords, 1, names)
	if s.once {
		seen := make(map[string]bool, len(fs))
		fs = slices.DeleteFunc(fs, func(f feature) bool {
			dup := seen[f.text]
			seen[f.text] = true
			return dup
		})
	}
	return fs
}

// appendFeatures appends the features of one field: its words (stop words
// excepted when the scheme says so) or their n-grams and, with bigrams,
// each pair of adjacent words. Title and description features are alike,
// so a title's words found in another copy's description count as shared.
func (s scheme) appendFeatures(fs []feature, ws []string, weight int32, names map[string]bool) []feature {
	for i, w := range ws {
		if !s.stopWords || !isStopWord(w) {
			fs = s.appendWord(fs, w, weight*s.wordWeight(w, names))
		}
		if s.bigrams && i > 0 {
			fs = append(fs, feature{ws[i-1] + " " + w, weight})
		}
	}
	return fs
}

func (s scheme) appendWord(fs []feature, w string, weight int32) []feature {
	if s.stem {
		w = stem(w)
	}
	if s.shingle == 0 || utf8.RuneCountInString(w) <= s.shingle {
		return append(fs, feature{w, weight})
	}
	rs := []rune(w)
	for i := 0; i+s.shingle <= len(rs); i++ {
		fs = append(fs, feature{string(rs[i : i+s.shingle]), weight})
	}
	return fs
}

// wordWeight is the multiplier of a single word. Numbers and names weigh
// more because they pin a story down: every outlet's version repeats the
// figures, dates, scores, people, companies and places, however it words
// the rest, while the daily editions of a template differ in little else.
func (s scheme) wordWeight(w string, names map[string]bool) int32 {
	switch {
	case strings.IndexFunc(w, unicode.IsDigit) >= 0:
		return s.numberWeight
	case s.nameWeight > 0 && names[w]:
		return s.nameWeight
	}
	return 1
}

// stem strips the commonest English inflections from a word of ASCII
// letters, so that "recalls", "recalled", "recalling" and "recall", or
// "approve" and "approves", are one feature: outlets rewording a story
// change the tense and number of its verbs and nouns more than anything.
// It is deliberately crude (one suffix, a final y read as i) and leaves at
// least three letters; words of other alphabets are left alone.
func stem(w string) string {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return w
		}
	}
	if !strings.HasSuffix(w, "ss") {
		for _, suffix := range []string{"ing", "ed", "es", "s", "e"} {
			if strings.HasSuffix(w, suffix) && len(w)-len(suffix) >= 3 {
				w = w[:len(w)-len(suffix)]
				break
			}
		}
	}
	if len(w) > 3 && strings.HasSuffix(w, "y") {
		w = w[:len(w)-1] + "i"
	}
	return w
}

// simhash returns the SimHash of features: bit i is set when the features
// whose hash has bit i set outweigh those whose hash has it clear. It is 0
// only when there are no features, since the archive reads 0 as "no
// fingerprint"; the one text in about 10^19 whose votes are all negative
// gets 1 instead, a bit away. seed varies the feature hashes: production
// uses 0, and tests use others to tell a scheme's merit from the luck of
// one hash function.
func simhash(fs []feature, seed uint64) uint64 {
	if len(fs) == 0 {
		return 0
	}
	var votes [64]int32
	for _, f := range fs {
		h := hash(f.text, seed)
		for i := range votes {
			// +weight where the bit is set, -weight where it is not.
			votes[i] += f.weight * (int32(h>>i&1)*2 - 1)
		}
	}
	var fp uint64
	for i, v := range votes {
		if v > 0 {
			fp |= 1 << i
		}
	}
	return max(fp, 1)
}

// hash is FNV-1a with a final avalanche (MurmurHash3's fmix64): FNV alone
// leaves the high bits of short strings poorly mixed, and SimHash needs
// every bit of a feature's hash to be a fair coin. It is fixed, not
// randomly seeded, because fingerprints are stored and compared across
// processes.
func hash(s string, seed uint64) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	h ^= seed
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Distance is the Hamming distance between two fingerprints: how many of
// their 64 bits differ.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// trimPrefixWords removes the source's title prefix when the title starts
// with its words, so that "Reuters: X", "REUTERS - X" and "X" compare alike.
func trimPrefixWords(title, prefix []string) []string {
	if len(prefix) == 0 || len(prefix) > len(title) {
		return title
	}
	for i, w := range prefix {
		if title[i] != w {
			return title
		}
	}
	return title[len(prefix):]
}
