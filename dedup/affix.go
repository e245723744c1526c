package dedup

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wire prefixes and suffixes: the labels agencies and aggregators put on
// titles ("UPDATE 2-", "Soccer-", "EXCLUSIVE-", "Reuters:", "- USGS",
// "| Reuters", "(AP)") that say nothing about the story, so that one copy
// has them and another does not. They are recognized by their shape (a
// segment at the start or end of a title, set off by a separator) and
// by what the segment is: one of a short built-in list, or one learned from
// the source's own titles (a segment that starts or ends many of them; see
// SourceAffixes). The terms of a recognized affix are kept but marked: a
// decision counts them only when the other item has them too.

// maxAffixWords is the longest segment taken for an affix.
const maxAffixWords = 4

// An affix's position and shape, which decide which affixes a segment can be.
type affixShape uint8

const (
	gluedLead    affixShape = iota // "UPDATE 2-Text", "Soccer-Text": a hyphen with no space before it
	colonLead                      // "Reuters: Text"
	dashLead                       // "Sportline - Text", "TechBeat | Text"
	bracketLead                    // "[City Post] Text", "(AP) Text"
	dashTrail                      // "Text - USGS", "Text | Reuters"
	bracketTrail                   // "Text (AP)", "Text (video)"
)

var (
	gluedLeadRE = regexp.MustCompile(`^([\pL\pN][\pL\pN ]{0,40}?)-([\pL"'‘“])`)
	colonLeadRE = regexp.MustCompile(`^([\pL\pN][\pL\pN .&'’]{0,40}?)\s*:\s+`)
	dashLeadRE  = regexp.MustCompile(`^([\pL\pN][\pL\pN .&'’]{0,40}?)\s+[-–—|•]\s+`)
	bracketRE   = regexp.MustCompile(`^[\[(]([^\[\]()]{1,40})[\])]\s*[-–—:|]?\s*`)
	dashTrailRE = regexp.MustCompile(`\s+[-–—|•]\s+([\pL\pN][\pL\pN .&'’]{0,40})$`)
	bracketTail = regexp.MustCompile(`\s*[\[(]([^\[\]()]{1,40})[\])]$`)
)

// builtinAffixes are the segments recognized without learning, as
// normalized by affixKey (digits read as #). Slugs of Reuters-style wires,
// their sports desks, and agencies and services named at the start or end
// of titles.
var builtinAffixes = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range []string{
		// wire slugs
		"update", "update #", "wrapup", "wrapup #", "refile", "rpt", "exclusive", "brief", "urgent",
		"flash", "alert", "breaking", "breaking news", "analysis", "insight", "factbox", "explainer",
		"interview", "preview", "timeline", "feature", "live", "video", "watch", "photos", "gallery",
		"global markets", "markets", "forex", "precious", "breakingviews", "new", "lead", "sources",
		// sports desks
		"soccer", "football", "tennis", "golf", "cricket", "rugby", "rugby union", "rugby league",
		"athletics", "cycling", "motor racing", "motorsport", "formula one", "olympics", "basketball",
		"baseball", "ice hockey", "nfl", "nba", "mlb", "nhl", "boxing", "swimming", "skiing",
		"sailing", "horse racing", "sport", "sports",
		// agencies and services
		"reuters", "ap", "associated press", "afp", "dpa", "efe", "ansa", "xinhua", "kyodo",
		"yonhap", "upi", "pa", "aap", "bloomberg", "usgs", "bbc news", "bbc", "cnn", "tass", "ria",
	} {
		m[s] = true
	}
	for s := range correctionAffixes {
		m[s] = true
	}
	return m
}()

// correctionAffixes mark an item that corrects a story: it is never a
// duplicate of the story it corrects, whose reader must see it.
var correctionAffixes = map[string]bool{
	"corrected": true, "correction": true, "corrects": true, "clarification": true, "refile corrected": true,
	"berichtigung": true, "korrektur": true, "rectificatif": true, "rectification": true,
	"correccion": true, "correcao": true, "rettifica": true, "correctie": true, "исправление": true,
}

// TitleSplit is a title with its affixes set apart.
type TitleSplit struct {
	Core       string   // the title without them
	Affixes    []string // the configured prefix and the recognized affixes, in order of removal
	Correction bool     // an affix said the item is a correction
}

// maxAffixes bounds how many affixes are taken off a title ("UPDATE
// 2-Soccer-" has two at its start).
const maxAffixes = 4

// Split sets apart the source's configured prefix (compared word by word,
// so "Reuters:" also removes "REUTERS -") and the affixes a recognizes:
// built-in ones, and, when a is not nil, those learned from the source's
// titles. The core is never emptied: a title that is all affixes is kept
// whole.
func (a *SourceAffixes) Split(title, prefix string) TitleSplit {
	s := TitleSplit{Core: strings.TrimSpace(title)}
	if rest, ok := cutPrefixWords(s.Core, prefix); ok {
		s.Affixes = append(s.Affixes, s.Core[:len(s.Core)-len(rest)])
		s.Core = rest
	}
	for len(s.Affixes) < maxAffixes {
		seg, rest, ok := a.leading(s.Core)
		if !ok {
			seg, rest, ok = a.trailing(s.Core)
		}
		if !ok || !hasWord(rest) {
			break
		}
		s.Correction = s.Correction || correctionAffixes[affixKey(seg)]
		s.Affixes = append(s.Affixes, seg)
		s.Core = rest
	}
	return s
}

// leading returns the affix at the start of title, if any, and the rest.
func (a *SourceAffixes) leading(title string) (seg, rest string, ok bool) {
	for _, c := range leadingSegments(title) {
		if c.shape == bracketLead || a.known(c) {
			return c.text, strings.TrimSpace(title[c.end:]), true
		}
	}
	return "", title, false
}

// trailing returns the affix at the end of title, if any, and the rest.
func (a *SourceAffixes) trailing(title string) (seg, rest string, ok bool) {
	for _, c := range trailingSegments(title) {
		if (c.shape == bracketTrail || c.shape == dashTrail) && a.known(c) {
			return c.text, strings.TrimSpace(title[:c.start]), true
		}
	}
	return "", title, false
}

// known reports whether a segment is a built-in affix (numbers read as #)
// or one learned from the source's titles (word for word, numbers
// included).
func (a *SourceAffixes) known(c affixSegment) bool {
	return builtinAffixes[c.key] || a.learned(c.literal)
}

// affixSegment is a candidate affix found by its shape.
type affixSegment struct {
	shape      affixShape
	text       string
	key        string // its words, numbers read as # (affixKey)
	literal    string // its words, numbers as they are (literalKey)
	start, end int    // the bytes of the title it takes, separator included
}

// affixReach is how far into a title an affix can reach, in bytes: a
// segment of at most 40 characters, its separator and spaces. The patterns
// run on that much of the title only, and only when it holds their
// separator, since titles are profiled by the million.
const affixReach = 4*40 + 16

// leadingSegments returns the candidate affixes at the start of title, by
// shape: what a learner counts and Split checks.
func leadingSegments(title string) []affixSegment {
	var out []affixSegment
	head := title[:min(len(title), affixReach)]
	if head == "" {
		return nil
	}
	if head[0] == '[' || head[0] == '(' {
		if m := bracketRE.FindStringSubmatchIndex(head); m != nil {
			out = append(out, newAffixSegment(bracketLead, title[:m[1]], title[m[2]:m[3]], 0, m[1]))
		}
	}
	for _, c := range []struct {
		shape affixShape
		re    *regexp.Regexp
		seps  string
	}{{gluedLead, gluedLeadRE, "-"}, {colonLead, colonLeadRE, ":"}, {dashLead, dashLeadRE, "-–—|•"}} {
		if !strings.ContainsAny(head, c.seps) {
			continue
		}
		m := c.re.FindStringSubmatchIndex(head)
		if m == nil || wordCount(title[m[2]:m[3]]) > maxAffixWords {
			continue
		}
		end := m[1]
		if c.shape == gluedLead {
			end = m[4] // the letter after the hyphen starts the rest
		}
		out = append(out, newAffixSegment(c.shape, title[:end], title[m[2]:m[3]], 0, end))
	}
	return out
}

// trailingSegments returns the candidate affixes at the end of title.
func trailingSegments(title string) []affixSegment {
	var out []affixSegment
	from := max(0, len(title)-affixReach)
	for from > 0 && !utf8.RuneStart(title[from]) {
		from++
	}
	tail := title[from:]
	if strings.HasSuffix(tail, ")") || strings.HasSuffix(tail, "]") {
		if m := bracketTail.FindStringSubmatchIndex(tail); m != nil {
			out = append(out, newAffixSegment(bracketTrail, tail[m[0]:], tail[m[2]:m[3]], from+m[0], 0))
		}
	}
	if strings.ContainsAny(tail, "-–—|•") {
		if m := dashTrailRE.FindStringSubmatchIndex(tail); m != nil && wordCount(tail[m[2]:m[3]]) <= maxAffixWords {
			out = append(out, newAffixSegment(dashTrail, tail[m[0]:], tail[m[2]:m[3]], from+m[0], 0))
		}
	}
	return out
}

func newAffixSegment(shape affixShape, text, label string, start, end int) affixSegment {
	return affixSegment{shape: shape, text: text, key: affixKey(label), literal: literalKey(label), start: start, end: end}
}

// literalKey normalizes a segment for learning: its words, case-folded,
// numbers as they are. A segment learned from a source's titles is one
// that repeats word for word ("Morning Brief:", "- Ridgeway Gazette"); a
// segment whose number changes from title to title ("M 4.1 - 12 km N of
// Grell", "M 4.7 - …") carries the news, a magnitude, a score or a count,
// and is no label however many titles it starts.
func literalKey(seg string) string { return strings.Join(words(seg, maxAffixWords+1), " ") }

// affixKey normalizes a segment for the built-in list: its words,
// case-folded, numbers read as #, so that "UPDATE 2" and "Update 3" are
// one affix.
func affixKey(seg string) string {
	ws := words(seg, maxAffixWords+1)
	for i, w := range ws {
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			ws[i] = "#"
		}
	}
	return strings.Join(ws, " ")
}

func wordCount(s string) int { return len(words(s, maxAffixWords+1)) }

func hasWord(s string) bool { return len(words(s, 1)) > 0 }

// cutPrefixWords returns title without prefix when the title starts with
// the prefix's words, whatever the punctuation and case around them.
func cutPrefixWords(title, prefix string) (string, bool) {
	want := words(prefix, maxTitleWords)
	if len(want) == 0 {
		return title, false
	}
	// Try each cut after a word of the title that could end the prefix.
	for i, r := range title {
		if i == 0 || isWordRune(r) || i > len(prefix)+32 {
			continue
		}
		got := words(title[:i], len(want)+1)
		if len(got) > len(want) {
			break
		}
		if len(got) == len(want) && equalWords(got, want) {
			rest := strings.TrimLeftFunc(title[i:], func(r rune) bool { return !isWordRune(r) && r != '"' && r != '“' && r != '‘' && r != '\'' })
			return rest, hasWord(rest)
		}
	}
	return title, false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// datelineRE matches a wire dateline at the start of a description: a
// place in capitals, perhaps a date, perhaps the agency, and a dash:
// "NAIROBI (Reuters) - ", "WASHINGTON (AP) — ", "LONDON, Nov 16 (Reuters) -",
// "PARIS — ".
var datelineRE = regexp.MustCompile(`^\s*\p{Lu}[\p{Lu}'.-]+(?:[ ,]+\pL[\pL'.-]*){0,3}(?:,? +\pL{3,9}\.? +\d{1,2})?\s*(?:\([\pL .]{2,30}\))?\s*[-–—:]+\s+`)

// splitDateline returns a description's dateline, if it has one, and the
// rest.
func splitDateline(text string) (dateline, rest string) {
	m := datelineRE.FindStringIndex(text)
	if m == nil {
		return "", text
	}
	// The place must be in capitals: "Police said - " is no dateline.
	first := strings.FieldsFunc(text[:m[1]], func(r rune) bool { return !unicode.IsLetter(r) })
	if len(first) == 0 || strings.ToUpper(first[0]) != first[0] || len([]rune(first[0])) < 2 {
		return "", text
	}
	return text[:m[1]], text[m[1]:]
}

// SourceAffixes learns one source's affixes from its titles: a segment of
// a recognized shape (see Split) that starts or ends at least
// minLearnedAffix of the source's last learnWindow titles, and at least one
// in fifty of them, is an affix of that source ("Soccer-" on a sports wire,
// "Morning Brief:" on a newsletter, "- Ridgeway Gazette" on an
// aggregator's copies). Learning from the source's own data catches the
// labels no list knows and keeps a word that merely starts one title
// ("Coca-Cola", "NATO-Russia") from being taken for one. It keeps hashes,
// about 3 KB a source. The zero value is ready; it is not safe for
// concurrent use (the detector guards it).
type SourceAffixes struct {
	recent [learnWindow][titleKeys]uint32 // the segment keys of the last titles (0: none)
	n      int                            // titles observed
	counts map[uint32]uint16              // titles among recent with each key
}

const (
	learnWindow     = 256
	titleKeys       = 3 // candidate segments counted per title
	minLearnedAffix = 4
)

// Observe counts the candidate affixes of a new title of the source.
func (a *SourceAffixes) Observe(title string) {
	title = strings.TrimSpace(title)
	var keys [titleKeys]uint32
	n := 0
	add := func(k uint32) {
		for _, old := range keys[:n] {
			if old == k {
				return
			}
		}
		if n < titleKeys {
			keys[n] = k
			n++
		}
	}
	for _, c := range leadingSegments(title) {
		add(affixHash('^', c.literal))
	}
	for _, c := range trailingSegments(title) {
		add(affixHash('$', c.literal))
	}
	if a.counts == nil {
		a.counts = make(map[uint32]uint16)
	}
	slot := &a.recent[a.n%learnWindow]
	if a.n >= learnWindow {
		for _, k := range slot {
			if k == 0 {
				continue
			}
			if a.counts[k]--; a.counts[k] == 0 {
				delete(a.counts, k)
			}
		}
	}
	*slot = keys
	for _, k := range keys[:n] {
		a.counts[k]++
	}
	a.n++
}

// affixHash is the non-zero hash of a segment key at the start (^) or
// end ($) of titles.
func affixHash(end byte, key string) uint32 {
	return uint32(hash(key, uint64(end))) | 1
}

// learned reports whether key starts or ends enough of the source's titles.
func (a *SourceAffixes) learned(key string) bool {
	if a == nil || a.counts == nil {
		return false
	}
	n := int(max(a.counts[affixHash('^', key)], a.counts[affixHash('$', key)]))
	return n >= minLearnedAffix && n*50 >= min(a.n, learnWindow)
}
