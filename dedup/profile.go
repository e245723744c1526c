package dedup

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo/sanitize"
)

// A Profile is what the decision reads of an item: the set of its
// normalized terms (case, accents, punctuation and markup folded, English
// inflections stemmed, stop words dropped, number words written as
// digits), each marked with where it occurred (title, and whether only in a
// wire prefix or suffix) and its class (word, name, number). Profiles are
// compact (four bytes a term) so that a window of a million can be held in
// memory and decided on without reading the store.
type Profile struct {
	// terms are packed terms (see term), sorted, one per term hash.
	terms []term
	flags profileFlags
	// order hashes the headline's numbers and dates in order (see
	// hasTitle): two headlines with the same terms and these in another
	// order are another score or schedule ("Ashvale 1 Kingsport 2" /
	// "Ashvale 2 Kingsport 1", "on Tuesday, not Monday" / "on Monday, not
	// Tuesday").
	order uint32
	// pairings are the fixtures and results a listing names, hashed,
	// sorted (see listingPairings); nil for most items.
	pairings []uint32
}

type profileFlags uint8

const (
	// hasBody: the description has terms of its own, besides the title's.
	hasBody profileFlags = 1 << iota
	// correction: the title says the item corrects or clarifies a story
	// ("Correction:", "CORRECTED-", "Berichtigung"), or its description
	// does ("correcting an earlier toll of two", "corrected"), which a
	// reader must see even when the rest repeats the story.
	correction
)

// A term packs a 28-bit hash of a normalized word with four flag bits, so
// that sorting terms sorts them by hash. 28 bits make a false shared term
// between two items of 50 terms about one chance in 100,000, which moves a
// score by a fiftieth at worst.
type term uint32

const (
	inTitle   term = 1 << iota // occurs in the title
	affixOnly                  // occurs only in a wire prefix, suffix or dateline
	classBit0
	classBit1
	flagBits = 4
	flagMask = 1<<flagBits - 1
)

// A term's class, in two bits: how much it pins a story down.
const (
	classWord   term = 0
	className   term = classBit0             // capitalized inside a sentence
	classNumber term = classBit1             // has a digit (number words are written as digits)
	classDate   term = classBit0 | classBit1 // a day of the week or a month
	classMask        = classBit0 | classBit1
)

func (t term) hash() uint32 { return uint32(t) >> flagBits }

func (t term) class() term { return t & classMask }

// Limits on what a profile reads, which bound the work and the memory
// whatever the input.
const (
	// maxBodyTerms is how many distinct terms of the description count,
	// from its start: enough for a feed's summary or an article's first
	// paragraphs, where copies of a story agree most; what follows is where
	// outlets add their own material.
	maxBodyTerms = 64
	// maxTitleTerms bounds the terms read from a title.
	maxTitleTerms = 32
)

// NewProfile returns the profile of an item: its title, with titlePrefix
// (the source's configured prefix) and the wire prefixes and suffixes that
// affixes recognizes set apart, and its description, HTML, whose leading
// dateline ("NAIROBI (Reuters) -") is set apart likewise. affixes may be
// nil: then only the built-in patterns are recognized.
func NewProfile(title, description, titlePrefix string, affixes *SourceAffixes) Profile {
	var b profileBuilder
	split := affixes.Split(title, titlePrefix)
	if split.Correction {
		b.flags |= correction
	}
	for _, a := range split.Affixes {
		b.addText(a, inTitle|affixOnly, maxTitleTerms)
	}
	titleFacts := b.addText(split.Core, inTitle, maxTitleTerms)
	text := sanitize.Text(description)
	dateline, rest := splitDateline(text)
	b.addText(dateline, affixOnly, maxTitleTerms)
	bodyFacts := b.addText(rest, 0, maxBodyTerms)
	if b.corrects {
		b.flags |= correction
	}
	p := b.profile()
	p.order = uint32(bodyFacts)
	if p.hasTitle() {
		p.order = uint32(titleFacts)
	}
	p.pairings = listingPairings(split.Core, rest)
	return p
}

// profileBuilder collects an item's terms, merging their flags.
type profileBuilder struct {
	words map[string]*occurrence
	order []string // words in order of first occurrence
	flags profileFlags
	body  int // distinct content terms first met in the description
	// corrects: the description says the item corrects a story (see
	// correctingWords).
	corrects bool
}

// correctingWords, in a description, say that the item corrects what an
// earlier one reported ("One dead in ferry terminal collapse … the
// coastguard said, correcting an earlier toll of two"): a correction
// without a label, which a reader must see beside the story it corrects.
// English only, as the labelled corrections without a label are.
var correctingWords = map[string]bool{"correcting": true, "corrected": true, "corrects": true}

// occurrence is what an item's occurrences of one word say about it.
type occurrence struct {
	title, content bool // any occurrence in the title; any not in an affix
	class          term // the strongest class any occurrence gave it
}

// addText adds the terms of one field, at most limit new ones; flags say
// where the field is (inTitle, affixOnly). It returns the hash of the
// field's numbers and dates in order (see Profile.order).
func (b *profileBuilder) addText(text string, flags term, limit int) (facts uint64) {
	if text == "" {
		return 0
	}
	if b.words == nil {
		b.words = make(map[string]*occurrence)
	}
	added := 0
	ts := tokens(text, 4*limit)
	titleCase := flags&inTitle != 0 && isTitleCase(ts)
	if flags&(inTitle|affixOnly) == 0 {
		for _, t := range ts {
			b.corrects = b.corrects || correctingWords[t.word]
		}
	}
	for _, w := range normalizeTokens(ts) {
		if w.date || strings.IndexFunc(w.word, unicode.IsDigit) >= 0 {
			facts = hash(w.word, facts)
		}
		o := b.words[w.word]
		if o == nil {
			if added >= limit {
				continue
			}
			added++
			o = &occurrence{}
			b.words[w.word] = o
			b.order = append(b.order, w.word)
			if flags&(inTitle|affixOnly) == 0 {
				b.body++
			}
		}
		o.title = o.title || flags&inTitle != 0
		o.content = o.content || flags&affixOnly == 0
		switch {
		case w.date:
			o.class = classDate
		case strings.IndexFunc(w.word, unicode.IsDigit) >= 0:
			o.class = classNumber
		case w.name && !titleCase && o.class == classWord:
			o.class = className
		}
	}
	return facts
}

func (b *profileBuilder) profile() Profile {
	p := Profile{flags: b.flags, terms: make([]term, 0, len(b.order))}
	if b.body > 0 {
		p.flags |= hasBody
	}
	for _, w := range b.order {
		o := b.words[w]
		t := term(termHash(w))<<flagBits | o.class
		if o.title {
			t |= inTitle
		}
		if !o.content {
			t |= affixOnly
		}
		p.terms = append(p.terms, t)
	}
	slices.Sort(p.terms)
	// Two words with one hash (one chance in millions) become one term.
	p.terms = slices.CompactFunc(p.terms, func(a, b term) bool { return a.hash() == b.hash() })
	return p
}

// termHash is the 28-bit hash of a normalized word.
func termHash(w string) uint32 { return uint32(hash(w, 0) >> (64 - 28)) }

// isTitleCase reports whether a title capitalizes most of its words, as
// many headlines do, so that a capital says nothing about a name there.
func isTitleCase(ts []token) bool {
	capitals, letters := 0, 0
	for _, t := range ts {
		r, _ := utf8.DecodeRuneInString(t.word)
		if !unicode.IsLetter(r) || isStopWord(t.word) {
			continue
		}
		letters++
		if t.capital {
			capitals++
		}
	}
	return letters > 0 && 2*capitals > letters
}

// Terms reports how many terms the profile has and how many of them are
// content, not only in a wire affix or dateline.
func (p Profile) Terms() (all, content int) {
	for _, t := range p.terms {
		if t&affixOnly == 0 {
			content++
		}
	}
	return len(p.terms), content
}

// Empty reports whether the item has no content term: nothing to compare.
func (p Profile) Empty() bool {
	_, content := p.Terms()
	return content == 0
}

// normalizeTokens turns tokens into terms: stop words dropped; number
// words, ordinals and magnitudes written as digits ("five" → "5", "3rd" →
// "3", "1.2bn" → "1.2" "billion", "24km" → "24" "km"); English words
// stemmed; runs of characters of scripts written without spaces paired
// into bigrams, the usual unit of comparison for Chinese and Japanese.
func normalizeTokens(ts []token) []token {
	out := make([]token, 0, len(ts))
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if t.unspaced {
			j := i
			for j < len(ts) && ts[j].unspaced {
				j++
			}
			if j-i == 1 {
				out = append(out, t)
			}
			for k := i; k+1 < j; k++ {
				w := ts[k].word + ts[k+1].word
				if d, ok := unspacedDays[w]; ok {
					out = append(out, token{word: d, date: true})
					continue
				}
				out = append(out, token{word: w, unspaced: true})
			}
			i = j - 1
			continue
		}
		for _, w := range splitNumber(t.word) {
			if n, ok := numberWords[w]; ok {
				w = n
			}
			if d, ok := dayPlurals[w]; ok {
				w = d
			}
			switch {
			case dateWords[w]:
				out = append(out, token{word: w, date: true})
			case !isStopWord(w):
				out = append(out, token{word: stem(w), name: t.name, capital: t.capital})
			}
		}
	}
	return out
}

// splitNumber splits a word that starts with a number from the letters
// glued to it, dropping ordinal and plural endings and spelling out
// magnitudes: "3rd" → "3", "1990s" → "1990", "1.2bn" → "1.2" "billion",
// "24km" → "24" "km". One or two letters glued before a number are split
// off the same way: they label the number — a magnitude, a road, a
// quarter ("M5.4", "A40", "Q3") — which copies write glued or apart
// ("M5.4" / "M 5.4"), and the number is the fact the rules compare.
func splitNumber(w string) []string {
	if p := letterPrefix(w); p > 0 {
		return []string{w[:p], w[p:]}
	}
	i := 0
	for i < len(w) && (w[i] >= '0' && w[i] <= '9' || w[i] == '.') {
		i++
	}
	if i == 0 || i == len(w) {
		return []string{w}
	}
	num, unit := w[:i], w[i:]
	if strings.IndexFunc(unit, unicode.IsDigit) >= 0 {
		return []string{w} // a code such as "4x4x2" or "b2b"
	}
	switch unit {
	case "st", "nd", "rd", "th", "s":
		return []string{num}
	}
	if m, ok := magnitudes[unit]; ok {
		unit = m
	}
	return []string{num, unit}
}

// letterPrefix returns the length of one or two ASCII letters that start
// w and are followed by a number alone (digits and decimal points, a digit
// first), or 0.
func letterPrefix(w string) int {
	p := 0
	for p < len(w) && p < 3 && 'a' <= w[p] && w[p] <= 'z' {
		p++
	}
	if p == 0 || p > 2 || p == len(w) || w[p] < '0' || w[p] > '9' {
		return 0
	}
	for i := p; i < len(w); i++ {
		if (w[i] < '0' || w[i] > '9') && w[i] != '.' {
			return 0
		}
	}
	return p
}

// dayPlurals are the English days of the week in the plural ("open on
// Sundays"), which name the day as the singular does ("Sunday opening").
var dayPlurals = map[string]string{
	"mondays": "monday", "tuesdays": "tuesday", "wednesdays": "wednesday", "thursdays": "thursday",
	"fridays": "friday", "saturdays": "saturday", "sundays": "sunday",
}

// dateWords are the days of the week and the months, in the languages of
// the stop words and Russian: like numbers, they tell the editions of a
// template and the sequels of a story apart ("on Monday" / "on Tuesday").
var dateWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		monday tuesday wednesday thursday friday saturday sunday
		january february march april june july august september october november december
		jan feb apr jun jul aug sep sept oct nov dec
		montag dienstag mittwoch donnerstag freitag samstag sonntag
		januar februar marz juni juli oktober dezember
		lundi mardi mercredi jeudi vendredi samedi dimanche
		janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre
		lunes martes miercoles jueves viernes sabado domingo
		enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre
		lunedi martedi mercoledi giovedi venerdi sabato domenica
		gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre
		segunda terca quarta quinta sexta
		janeiro fevereiro maio junho julho setembro outubro novembro dezembro
		maandag dinsdag woensdag donderdag vrijdag zaterdag zondag
		januari februari maart mei augustus
		понедельник вторник среда среду четверг пятница пятницу суббота субботу воскресенье
		января февраля марта апреля мая июня июля августа сентября октября ноября декабря`) {
		m[w] = true
	}
	return m
}()

// unspacedDays are the days of the week in Chinese and Japanese, as the
// bigrams that tell them apart (月曜日 gives 月曜, 星期一 gives 期一, 周一 is
// one), written as the English day: a Japanese edition of a daily report
// names its day as an English one does ("水無瀬市の月曜日の花粉" /
// "…の火曜日の花粉"), and without it only the bigram of one character
// told Monday's edition from Tuesday's.
var unspacedDays = map[string]string{
	"月曜": "monday", "火曜": "tuesday", "水曜": "wednesday", "木曜": "thursday",
	"金曜": "friday", "土曜": "saturday", "日曜": "sunday",
	"期一": "monday", "期二": "tuesday", "期三": "wednesday", "期四": "thursday",
	"期五": "friday", "期六": "saturday", "期日": "sunday", "期天": "sunday",
	"周一": "monday", "周二": "tuesday", "周三": "wednesday", "周四": "thursday",
	"周五": "friday", "周六": "saturday", "周日": "sunday", "周天": "sunday",
}

// magnitudes are the abbreviations of numbers' magnitudes in news copy.
var magnitudes = map[string]string{
	"k": "thousand", "m": "million", "mn": "million", "mln": "million",
	"b": "billion", "bn": "billion", "bln": "billion", "tn": "trillion",
}

// numberWords are English number words, written as the digits an agency's
// other copy uses ("kills at least five" / "kills at least 5"): Reuters and
// AP spell out one to nine, other outlets do not. Ordinals too, as in dates
// ("the 3rd" / "the third"). "One" and "first" are left alone: they are
// mostly not numbers ("no one", "first time").
var numberWords = map[string]string{
	"zero": "0", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
	"thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
	"eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
	"fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
	"second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
	"seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10",
}

// hash is FNV-1a with a final avalanche (MurmurHash3's finalizer, mix64):
// FNV alone leaves the high bits of short strings poorly mixed. It is
// fixed, not randomly seeded, because terms and keys are compared across
// processes and restarts.
func hash(s string, seed uint64) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h ^ seed)
}

// stem strips the commonest English inflections from a word of ASCII
// letters, so that "recalls", "recalled", "recalling" and "recall", or
// "approve" and "approves", are one term: outlets rewording a story
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
