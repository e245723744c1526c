package dedup

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Listings of fixtures and results ("Kellworth City v Fennick, Ashcombe v
// Halden"; "Results: Ashvale 2 Fennick 0, Halden 1 Kingsport 1"; "Ashvale
// 2-1 Fennick") repeat their words from one round to the next: the same
// teams, other pairings. A set of words cannot tell the rounds apart, so a
// profile keeps the pairings themselves, each a hash of its two sides (and
// their scores), whichever side is named first. Two listings that each
// name a pairing the other does not are other rounds (RulePairings).
//
// A pairing is read only from a segment it fills whole, and only an item
// naming at least minPairings of them is a listing: a single "Smith v
// Jones" or "Gate 14" inside a story's prose is no listing, and a rewording
// of it must not keep two copies apart.

// maxPairings bounds the pairings a profile keeps.
const maxPairings = 16

// minPairings is how many pairings make an item a listing.
const minPairings = 2

// maxSideWords is the longest name a side of a pairing can have.
const maxSideWords = 4

// listingBreak splits a text into the segments a pairing can fill whole:
// at commas, semicolons and other clause marks, at a colon or period
// followed by a space (not inside "3:1" or "4.8"), and at a spaced dash.
var listingBreak = regexp.MustCompile(`[,;!?\n]|[.:](?:\s|$)|\s[-–—|•]\s`)

// listingPairings returns the hashes of the pairings that the segments of
// texts name, sorted, each once, or nil if they are fewer than
// minPairings: a segment that is a fixture (a name, "v" or "vs", a name)
// or a result (a name and its score, the other and its score; or a name,
// two scores, a name), each name one to maxSideWords words, none a
// number.
func listingPairings(texts ...string) []uint32 {
	var out []uint32
	for _, text := range texts {
		if !strings.ContainsFunc(text, unicode.IsDigit) && !strings.Contains(text, " v") {
			continue // neither a score nor a "v": no pairing (most items)
		}
		for _, seg := range listingBreak.Split(text, -1) {
			if h, ok := pairingOf(tokens(seg, 2*maxSideWords+3)); ok && len(out) < maxPairings {
				out = append(out, h)
			}
		}
	}
	slices.Sort(out)
	if out = slices.Compact(out); len(out) < minPairings {
		return nil
	}
	return out
}

// pairingOf returns the hash of the pairing a segment's tokens are, if
// they are one.
func pairingOf(ts []token) (uint32, bool) {
	if len(ts) < 3 || len(ts) > 2*maxSideWords+2 {
		return 0, false
	}
	isScore := func(t token) bool {
		return len(t.word) <= 3 && !strings.ContainsFunc(t.word, func(r rune) bool { return r < '0' || r > '9' })
	}
	// side reads a name: one to maxSideWords words, none a number, "v"
	// or "vs".
	side := func(ts []token) (string, bool) {
		if len(ts) == 0 || len(ts) > maxSideWords {
			return "", false
		}
		ws := make([]string, len(ts))
		for i, t := range ts {
			if t.unspaced || t.word == "v" || t.word == "vs" || strings.ContainsFunc(t.word, unicode.IsDigit) {
				return "", false
			}
			ws[i] = t.word
		}
		return strings.Join(ws, " "), true
	}
	pair := func(a, b string) (uint32, bool) {
		if a > b {
			a, b = b, a
		}
		return uint32(hash(a+"\x00"+b, 0)), true
	}
	// A fixture: name v name.
	for i, t := range ts {
		if t.word == "v" || t.word == "vs" {
			a, okA := side(ts[:i])
			b, okB := side(ts[i+1:])
			if okA && okB {
				return pair(a, b)
			}
			return 0, false
		}
	}
	n := len(ts)
	// A result: name score name score.
	if isScore(ts[n-1]) {
		for i := 1; i < n-2; i++ {
			if !isScore(ts[i]) {
				continue
			}
			a, okA := side(ts[:i])
			b, okB := side(ts[i+1 : n-1])
			if okA && okB {
				return pair(a+" "+ts[i].word, b+" "+ts[n-1].word)
			}
			return 0, false
		}
		return 0, false
	}
	// A result: name score score name ("Ashvale 2-1 Fennick").
	for i := 1; i+2 < n; i++ {
		if isScore(ts[i]) && isScore(ts[i+1]) {
			a, okA := side(ts[:i])
			b, okB := side(ts[i+2:])
			if okA && okB {
				return pair(a+" "+ts[i].word, b+" "+ts[i+1].word)
			}
			return 0, false
		}
	}
	return 0, false
}
