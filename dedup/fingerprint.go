package dedup

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

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

// maxTitleWords bounds the words read from a title or a prefix: a title of
// more words is not a headline, and the bound keeps the work bounded.
const maxTitleWords = 100

// maxTextBytes bounds the text that tokens reads, more than 100 words of
// any script need, so that a huge field costs no more than a normal one.
const maxTextBytes = 16 << 10

// words returns the first limit normalized words of text (see tokens).
func words(text string, limit int) []string {
	ts := tokens(text, limit)
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.word
	}
	return out
}

// A token is a normalized word with what its spelling said about it.
type token struct {
	word string
	// name: capitalized inside a sentence, so most likely a proper name
	// ("Voltra", "Harbour City", "NASA") rather than a common word.
	name bool
}

// tokens splits the start of text into at most limit normalized words: compatibility-normalized (NFKC),
// case-folded and, in Latin, Greek and Cyrillic, stripped of accents, so
// that full-width, ligature, case and accent variants ("Tomás", "TOMAS")
// are one word; split at anything that is neither a letter, a mark nor a
// digit. Apostrophes and periods inside a word and separators inside a
// number are dropped rather than split at ("don't" = "dont", "U.S." = "us",
// "1,000" = "1000"). Scripts written without spaces (Chinese, Japanese,
// Thai, Lao, Khmer, Burmese) give one word per character.
func tokens(text string, limit int) []token {
	if len(text) > maxTextBytes {
		cut := maxTextBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	rs := []rune(norm.NFKC.String(text))
	fold := cases.Fold()
	var out []token
	var cur []rune
	sentenceStart, capital := true, false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, token{word: foldWord(fold, cur), name: capital && !sentenceStart})
			cur = cur[:0]
			sentenceStart = false
		}
	}
	var base rune // the last rune that is not a combining mark
	for i, r := range rs {
		if len(out) >= limit {
			return out[:limit]
		}
		mark := r >= utf8.RuneSelf && unicode.Is(unicode.Mn, r)
		if !mark {
			r = withoutAccent(r)
			base = r
		}
		switch {
		case mark && accented(base):
			// an accent NFKC could not compose: dropped
		case unspaced(r):
			flush()
			out = append(out, token{word: fold.String(string(r))})
		case isWordRune(r):
			if len(cur) == 0 {
				capital = unicode.IsUpper(r) || unicode.IsTitle(r)
			}
			cur = append(cur, r)
		case len(cur) > 0 && joinsWord(r, cur[len(cur)-1], next(rs, i)):
			// dropped: the word goes on after it
		default:
			flush()
			if endsSentence(r) {
				sentenceStart = true
			}
		}
	}
	flush()
	return out[:min(len(out), limit)]
}

// foldWord returns the case-folded word, without the folding machinery
// when it is ASCII, as most words of most feeds are.
func foldWord(fold cases.Caser, word []rune) string {
	b := make([]byte, len(word))
	for i, r := range word {
		if r >= utf8.RuneSelf {
			return fold.String(string(word))
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b[i] = byte(r)
	}
	return string(b)
}

// endsSentence reports whether r ends a sentence or a heading, after which
// a capital says nothing about the word.
func endsSentence(r rune) bool {
	switch r {
	case '.', '!', '?', ':', ';', '\n', '"', '“', '”', '«', '»', '(', '-', '–', '—', '|', '•', '。':
		return true
	}
	return false
}

// withoutAccent returns the base letter of an accented Latin, Greek or
// Cyrillic letter ("é" → "e"), and any other rune unchanged.
func withoutAccent(r rune) rune {
	if r < utf8.RuneSelf || !accented(r) {
		return r
	}
	parts := []rune(norm.NFD.String(string(r)))
	for _, p := range parts[1:] {
		if !unicode.Is(unicode.Mn, p) {
			return r
		}
	}
	return parts[0]
}

// accented reports whether accents on r are dropped: in the alphabets where
// outlets that cannot print them write the bare letter instead.
func accented(r rune) bool {
	return unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic)
}

// next returns the rune after position i, or 0 at the end.
func next(rs []rune, i int) rune {
	if i+1 < len(rs) {
		return rs[i+1]
	}
	return 0
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// joinsWord reports whether r, between prev and nxt, is punctuation inside a
// word or a number rather than a separator.
func joinsWord(r, prev, nxt rune) bool {
	switch r {
	case '\'', '’', 'ʼ':
		return unicode.IsLetter(prev) && unicode.IsLetter(nxt)
	case '.':
		return isWordRune(prev) && isWordRune(nxt) && !unspaced(nxt)
	case ',':
		return unicode.IsDigit(prev) && unicode.IsDigit(nxt)
	}
	return false
}

// unspaced reports whether r belongs to a script written without spaces
// between words.
func unspaced(r rune) bool {
	return r >= '\u0e00' && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}
