package dedup

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

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
	// capital: the word starts with a capital letter.
	capital bool
	// date: a day of the week or a month (set by normalizeTokens).
	date bool
	// unspaced: one character of a script written without spaces, which
	// profiles pair into bigrams.
	unspaced bool
}

// tokens splits the start of text into at most limit normalized words: compatibility-normalized (NFKC),
// case-folded and, in Latin, Greek and Cyrillic, stripped of accents, so
// that full-width, ligature, case and accent variants ("Tomás", "TOMAS")
// are one word; split at anything that is neither a letter, a mark nor a
// digit. Apostrophes and periods inside a word and thousands separators
// inside a number are dropped rather than split at ("don't" = "dont",
// "U.S." = "us", "1,000" = "1000"); a decimal point is kept ("3.5" is not
// "35"). Scripts written without spaces (Chinese, Japanese,
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
			out = append(out, token{word: foldWord(fold, cur), name: capital && !sentenceStart, capital: capital})
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
			out = append(out, token{word: fold.String(string(r)), unspaced: true})
		case isWordRune(r):
			if len(cur) == 0 {
				capital = unicode.IsUpper(r) || unicode.IsTitle(r)
			}
			cur = append(cur, r)
		case r == '.' && len(cur) > 0 && unicode.IsDigit(cur[len(cur)-1]) && unicode.IsDigit(next(rs, i)):
			cur = append(cur, r) // a decimal point
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
