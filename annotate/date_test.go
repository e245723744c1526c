package annotate

import (
	"html"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo/dates"
)

// FuzzMayBeDate checks mayBeDate against dates.Parse: whatever Parse reads
// as a date, in any zone's reading, mayBeDate must not rule out.
func FuzzMayBeDate(f *testing.F) {
	for _, s := range []string{
		"Budget 2024", "2003", " 2003-12 ", "031231", "-0312", "12 March 2015", "Mon Mar 12, 2005 3:05 am",
		"20060102T150405", "2004년 05월 28일", "08h25 8th Dec 05", "Dec 8 05", "8.12.2005", "Festival 2003",
	} {
		f.Add(s)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	f.Fuzz(func(t *testing.T, s string) {
		if mayBeDate(s) {
			return
		}
		for _, loc := range []*time.Location{nil, paris} {
			if d, ok := dates.Parse(s, loc); ok {
				t.Fatalf("mayBeDate(%q) is false, but dates.Parse reads %v", s, d)
			}
		}
	})
}

// FuzzDateIn checks dateIn against dateInAsWritten, the plain form it
// was before its prefilters and counts (issue 19: a sixth of a dense
// page's suggestion): the same date, or none, in every text of the page.
func FuzzDateIn(f *testing.F) {
	for _, s := range []string{
		"<p><b>12 March 2024</b> <a href=a>Budget 2024</a> posted 3 May 2023, 10:12 by Ann</p>",
		"<li>Re: [PATCH 2/5] fix 1.3 &#50;&#48; March &#x32;024 (Mon Mar 4 2024 - 10:12:33 CET)</li>",
		"<td>– 08.11.2023 –</td><td>(Issued 14.06.2024)</td><td>2024-03-01T10:00:00Z.</td>",
		"<p>Posted on March 12, 2024 by Ann · 12 comments · 3 min read · éàü 1 2 3 4 5 6 7 8 9 10</p>",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	charsets := []string{"", "text/html; charset=windows-1252", "text/html; charset=utf-16le", "text/html; charset=iso-8859-5"}
	f.Fuzz(func(t *testing.T, raw []byte, charset uint8) {
		p, err := newPage(raw, charsets[int(charset)%len(charsets)])
		if err != nil {
			return
		}
		tb := p.tree(nil, false)
		ch, plain := &chooser{p: p, loc: time.UTC}, &chooser{p: p, loc: time.UTC}
		for n := range tb.withRoot {
			if !n.isText() || n.textBytes == 0 {
				continue
			}
			s, e, ok := ch.dateIn(n)
			ws, we, wok := plain.dateInAsWritten(n)
			if s != ws || e != we || ok != wok {
				t.Fatalf("dateIn(%q) = %d, %d, %v; as written: %d, %d, %v", p.text[n.start:n.end], s, e, ok, ws, we, wok)
			}
		}
	})
}

// dateInAsWritten is dateIn as it was written first: every run of up to
// eight words copied, and given to isDate.
func (ch *chooser) dateInAsWritten(n *node) (int, int, bool) {
	raw := ch.p.text[n.start:n.end]
	whole := joinFields(html.UnescapeString(ch.p.decode(raw)))
	if !strings.ContainsAny(whole, "0123456789") {
		return 0, 0, false
	}
	if utf8.RuneCountInString(whole) <= 60 && ch.isDate(whole) {
		return int(n.start), int(n.end), true
	}
	decoded := ch.p.decode(raw)
	type word struct{ from, to int }
	var words []word
	r, inWord, from := 0, false, 0
	for _, c := range decoded {
		space := unicode.IsSpace(c)
		if !space && !inWord {
			inWord, from = true, r
		}
		if space && inWord {
			inWord = false
			words = append(words, word{from, r})
		}
		r++
	}
	if inWord {
		words = append(words, word{from, r})
	}
	if len(words) > 40 {
		return 0, 0, false
	}
	runes := []rune(decoded)
	bestFrom, bestTo := -1, -1
	for i := range words {
		for j := min(len(words), i+8); j > i; j-- {
			a, b := words[i].from, words[j-1].to
			for a < b && strings.ContainsRune("([,;|·–—-", runes[a]) {
				a++
			}
			for b > a && strings.ContainsRune(")],;:|·–—-.", runes[b-1]) {
				b--
			}
			if b-a <= bestTo-bestFrom || b-a < 6 {
				continue
			}
			s := string(runes[a:b])
			if !strings.ContainsAny(s, "0123456789") || !ch.isDate(s) {
				continue
			}
			bestFrom, bestTo = a, b
		}
	}
	if bestFrom < 0 {
		return 0, 0, false
	}
	return ch.p.byteOffsets(int(n.start), int(n.end), bestFrom, bestTo)
}
