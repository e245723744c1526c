package dates

import (
	"strings"
	"testing"
	"time"
)

// The seeds hold values that some layout reads (so that the fuzzers start
// where the shortcuts must answer true) and values near them that none
// reads.
var shortcutSeeds = []string{
	"Dec 8 2005", "DEC 08 2005 08:25 AM", "8 dec 05", "2005-12-08", "2005-12-08 08:25:00.5",
	"08:25 PM 2 Jan 06", "Jan 2 15:04:05 2006", "Dec 8 -5", "2 Jan +5", "Dec  8 2005",
	"2005-12-08T08:25:00Z", "20051208T082500", "2005-12-08t08:25", "2005-012-08", "2005-12-08T08:25:00,5+01:00",
	"Posted by 5 readers", "5", "12 34", "2005 12 08", "Mon 8 2005", "", "T", "2005-12-08 T",
	"12 Mar 2005 ·", "Dec 8 2005 x", "08:25 AM", "2005-12-08 8 PM", "12 March 2005", "2005-12-08t08:25",
	"2004-július-13T9:15-05:00", "20051208t082500", "1ıııı-12-08",
	"555-0111 5 PM", "555-0111", "9-5", "2005-12 08", "Dec 9-5 05",
}

// FuzzMayMatchLayout checks mayMatchLayout against the full search: when
// any layout reads v, mayMatchLayout(v) must say it may, and every byte
// of v but its spaces must be one layoutBytes allows.
func FuzzMayMatchLayout(f *testing.F) {
	for _, s := range shortcutSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if mayMatchLayout(v) && layoutBytes(strings.ReplaceAll(v, " ", "")) {
			return
		}
		for _, layout := range layouts {
			if _, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
				t.Fatalf("mayMatchLayout(%q) = false, but layout %q reads it", v, layout)
			}
		}
	})
}

// FuzzISOLayoutsNeedT checks parseISO's shortcuts: a value without 'T' is
// read by no ISO layout that has one, nor one without '-' fifth nor eight
// digits first by any, upper-cased; and Parse's: a value
// that splitDateTime matches has a 'T' or 't' between two digits.
func FuzzISOLayoutsNeedT(f *testing.F) {
	for _, s := range shortcutSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if len(v) >= 8 && v[4] != '-' && !isNumber(v[:8]) {
			// parseISO's first shortcut: no layout reads it upper-cased.
			for _, layout := range isoLayouts {
				if _, err := time.ParseInLocation(layout, strings.ToUpper(v), time.UTC); err == nil {
					t.Fatalf("layout %q reads %q upper-cased, which has neither '-' fifth nor eight digits first", layout, v)
				}
			}
		}
		if splitDateTime.MatchString(v) && !digitTDigit(v) {
			t.Fatalf("splitDateTime matches %q, but digitTDigit says it cannot", v)
		}
		if strings.IndexByte(v, 'T') >= 0 {
			return
		}
		for _, layout := range isoLayouts {
			if strings.IndexByte(layout, 'T') < 0 {
				continue
			}
			if _, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
				t.Fatalf("layout %q reads %q, which has no 'T'", layout, v)
			}
		}
	})
}

// TestMayMatchLayoutRejects checks that the shortcut does reject text
// that no layout reads (the fuzzer checks that it rejects no date).
func TestMayMatchLayoutRejects(t *testing.T) {
	for _, v := range []string{"Posted by 5 readers", "5", "12 34", "2005 12 08", "Mon 8 2005", "12 Mar 2005 ·", "Dec 8 2005 x", "555-0111 5 PM", "555-0111"} {
		if mayMatchLayout(v) {
			t.Errorf("mayMatchLayout(%q) = true; want false (no layout can read it)", v)
		}
	}
}

// FuzzMayParse checks MayParse against the rest of Parse: a value it
// turns away is one parse cannot read.
func FuzzMayParse(f *testing.F) {
	for _, s := range []string{
		"12 March 2005 · Harbour news", "12 March 2005 ·", "· 12 March 2005", "12 March 2005 •• x",
		"12 March 2005", "2004년 05월 28일 · 오후 11:23", "12·03·2005", "12 March 2005 ·.", "\xff 12 March 2005",
		"Wednesday, 12 March 2005 · 10:30 CET", "12 March 2005 – news", "12 March 2005 ½",
		"Episode 12: Bridge park 11", "2003", " 031231 ", "20051208T082500Z", "12 maart 2005", "3 MEI 2005",
		"12 agosto 2005", "1 dezember 2005", "Sat 12:DEC 5 05", "8th of okt 2005 10:30", "12 Jan 05", "2005 12 ott.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !MayParse(s) {
			if got, _, ok := parse(s, time.UTC, ZoneOrder); ok {
				t.Fatalf("MayParse(%q) = false, but parse reads %s", s, got)
			}
		}
	})
}

// FuzzMarksOnly checks MarksOnly's promise to the suggester: a value
// with a marks-only word between two spaces, and no rune for which
// RewritesCJK is true, is one MayParse turns away and Parse cannot read.
func FuzzMarksOnly(f *testing.F) {
	for _, s := range [][2]string{
		{"12 March 2005", "Harbour news"}, {"Wednesday, 12 March", "2005"}, {"12 March 2005", ""}, {"", "12 March 2005"},
		{"12", "03 2005"}, {"12 March 2005 10:30", "CET"},
	} {
		f.Add(s[0], "·", s[1], uint8(0), uint8(3))
		f.Add(s[0], "•–", s[1], uint8(4), uint8(1))
	}
	spaces := []rune{' ', '\t', '\n', '\u00a0', '\u2003', '\u3000'}
	f.Fuzz(func(t *testing.T, before, w, after string, sp1, sp2 uint8) {
		if !MarksOnly(w) || strings.ContainsFunc(before+w+after, RewritesCJK) {
			return
		}
		s := before + string(spaces[int(sp1)%len(spaces)]) + w + string(spaces[int(sp2)%len(spaces)]) + after
		if MayParse(s) {
			t.Fatalf("MarksOnly(%q), but MayParse(%q) is true", w, s)
		}
		for _, o := range []Order{ZoneOrder, MonthFirst} {
			if got, _, ok := parse(s, time.UTC, o); ok {
				t.Fatalf("MarksOnly(%q), but Parse reads %q as %s", w, s, got)
			}
		}
	})
}

// TestLongestMonthName checks longestMonthName against monthNames: no
// name in ASCII is longer.
func TestLongestMonthName(t *testing.T) {
	longest := 0
	for name := range monthNames {
		if isASCII(name) {
			longest = max(longest, len(name))
		}
	}
	if longest != longestMonthName {
		t.Fatalf("the longest month name in ASCII has %d bytes; longestMonthName is %d", longest, longestMonthName)
	}
}

// TestMayParseTurnsAway checks that MayParse turns away texts in ASCII
// with two numbers and neither a month nor a numeric date, and lets
// through those with one.
func TestMayParseTurnsAway(t *testing.T) {
	for s, want := range map[string]bool{
		"Episode 12: Bridge park 11": false, "Top 10 tips for 2024": false, "PATCH 2 of 5": false,
		"12 March 2005": true, "12 maart 2005": true, "12.03.2005": true, "12/03/2005": true, "2005-03-12": true,
		"20050312T1200": true, "2005": true, "12:mar 5 05": true,
		"490 pcm. 1.7m x 3.7m, 11 years old": false, "Sat. Tel 01632 137899 or 07700": false, "12.03 2005.": false,
		"12.03.2005.": true, "12.03,2005": false, "x 12.03.2005": true, "1.7m. 12 2005": true,
	} {
		if got := MayParse(s); got != want {
			t.Errorf("MayParse(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzNeverInDate checks NeverInDate's promise to the suggester: a value
// of several words with such a word in it (first, last or inside, after
// any of the spaces, separators and marks that end words), and no rune
// for which RewritesCJK is true, is one Parse cannot read in any order.
func FuzzNeverInDate(f *testing.F) {
	for _, s := range [][2]string{
		{"12 March 2005", "Harbour news"}, {"Wednesday, 12 March", "2005"}, {"12 March 2005", ""}, {"", "12 March 2005"},
		{"12", "03 2005"}, {"12 March 2005 10:30", "CET"}, {"Posted", "12/03/2024"}, {"2005-12-08", "08:25"},
	} {
		for _, w := range []string{"555-0111", "9-5.", "£650", "#699997", "10-4,", "50%", "3°", "·"} {
			f.Add(s[0], w, s[1], uint8(0), uint8(3))
		}
		f.Add(s[0], "+0100", s[1], uint8(5), uint8(7))
	}
	seps := []string{" ", "\t", "\u00a0", "\u3000", "|", " | ", ",", " · ", "•", "\u2013"}
	f.Fuzz(func(t *testing.T, before, w, after string, sp1, sp2 uint8) {
		if !NeverInDate(w) || strings.ContainsFunc(before+w+after, RewritesCJK) {
			return
		}
		s1, s2 := seps[int(sp1)%len(seps)], seps[int(sp2)%len(seps)]
		// A word alone may be an ISO form ("03-1231"): the promise is
		// for values of several words.
		var values []string
		if strings.TrimSpace(before) != "" {
			values = append(values, before+s1+w+s2+after, before+s1+w)
		}
		if strings.TrimSpace(after) != "" {
			values = append(values, w+s2+after)
		}
		for _, s := range values {
			for _, o := range []Order{ZoneOrder, DayFirst, MonthFirst} {
				if got, _, ok := ParseOrder(s, time.UTC, o); ok {
					t.Fatalf("NeverInDate(%q), but Parse reads %q as %s (%s)", w, s, got, o)
				}
			}
		}
	})
}

// TestNeverInDate checks that NeverInDate says it of the words of a
// classified ad beside its date, and of no word a date is made of (the
// fuzzer checks that it says it of no word Parse reads a value with).
func TestNeverInDate(t *testing.T) {
	for w, want := range map[string]bool{
		"555-0111": true, "555-0111.": true, "9-5,": true, "£650": true, "€25.": true, "#699997": true, "50%": true, "·": true,
		"3x4m": false, "5pm.": false, "01632": false, "2005-12-08": false, "12/03/2024": false, "12.03.2005": false,
		"-0500": false, "+01": false, "10:30": false, "12-": false, "-5": false, "Dec": false, "8th": false, "|": false,
		"/": false, "-": false, "": false, "12.2005": false, "2005-12": true, // W3C-DTF read alone, never beside words
	} {
		if got := NeverInDate(w); got != want {
			t.Errorf("NeverInDate(%q) = %v, want %v", w, got, want)
		}
	}
}

// FuzzMayParseWords checks MayParseWord's promise to the suggester: a
// value in ASCII of several words, between ASCII spaces or '|', passes
// MayParse only when one of its words passes MayParseWord.
func FuzzMayParseWords(f *testing.F) {
	for _, w := range [][3]string{
		{"12", "March", "2005"}, {"Posted", "12/03/2024", "by"}, {"20240312", "x", "y"}, {"1.7m", "x", "3.7m,"},
		{"490", "pcm.", "12.03.2005"}, {"Sat.", "Tel", "01632"}, {"the", "market", "11"}, {"2005", "", "12"},
	} {
		f.Add(w[0], w[1], w[2], uint8(0), uint8(2))
	}
	seps := []string{" ", "\t", "\n", "|", " | ", "  ", "\r\n"}
	f.Fuzz(func(t *testing.T, a, b, c string, sp1, sp2 uint8) {
		var words []string
		for _, w := range []string{a, b, c} {
			if strings.ContainsAny(w, " \t\n\v\f\r|") {
				return
			}
			if w != "" {
				words = append(words, w)
			}
		}
		if len(words) < 2 {
			return
		}
		s := words[0] + seps[int(sp1)%len(seps)] + words[1]
		if len(words) == 3 {
			s += seps[int(sp2)%len(seps)] + words[2]
		}
		if !isASCII(s) || !MayParse(s) {
			return
		}
		for k, w := range words {
			if MayParseWord(w, k == 0) {
				return
			}
		}
		t.Fatalf("MayParse(%q) is true, but MayParseWord of none of its words %q", s, words)
	})
}
