package annotate

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dynamo-feeds/dynamo/dates"
)

// FuzzMayBeDate checks mayBeDate against dates.Parse: whatever Parse reads
// as a date, in any zone's reading, mayBeDate must not rule out, but for
// a number alone (digits and dashes, "2003", "031231"), which the
// suggester never takes for a date.
func FuzzMayBeDate(f *testing.F) {
	for _, s := range []string{
		"Budget 2024", "2003", " 2003-12 ", "031231", "-0312", "12 March 2015", "Mon Mar 12, 2005 3:05 am",
		"20060102T150405", "2004년 05월 28일", "08h25 8th Dec 05", "Dec 8 05", "8.12.2005", "Festival 2003",
	} {
		f.Add(s)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	f.Fuzz(func(t *testing.T, s string) {
		if mayBeDate(s) || strings.Trim(strings.TrimSpace(s), "0123456789-") == "" {
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
		"<p>Posted: 06/27/2024 &nbsp;|&nbsp; Ad #699997</p><p>27/06/2024&middot;Reference: EDC/2024/899993 &#8226; 3382 [2021]</p>",
		"<font>2 bedroom flat, garden. Call 555-0111 after 5pm. &pound;650 pcm. Viewing 9-5, 10-4 Sat. 2.4m x 1.1m (12/03/2024) #699997 12 Mar 2024 50%</font>",
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
// eight words copied, and given to isDate; with the text's entities
// decoded, its marks words of their own, no run through a word that ends
// runs (endsRun) and spaces trimmed at its ends (issue 19, the ninth
// held-out batch).
func (ch *chooser) dateInAsWritten(n *node) (int, int, bool) {
	raw := ch.p.text[n.start:n.end]
	decoded := ch.p.decode(raw)
	text, src := decoded, []int32(nil)
	if strings.Contains(decoded, "&") {
		text, src = unescapeMapped(decoded, nil)
	}
	whole := joinFields(text)
	if !strings.ContainsAny(whole, "0123456789") {
		return 0, 0, false
	}
	if utf8.RuneCountInString(whole) <= 60 && ch.isDate(whole) {
		return int(n.start), int(n.end), true
	}
	type word struct{ from, to int }
	var words []word
	r, inWord, from := 0, false, 0
	for i, c := range text {
		space := unicode.IsSpace(c)
		if !space && !inWord {
			inWord, from = true, r
		}
		if space && inWord {
			inWord = false
			words = append(words, word{from, r})
		}
		if !space && separatesDate(text[i:], c) {
			if from < r {
				words = append(words, word{from, r})
			}
			words = append(words, word{r, r + 1})
			inWord = false
		}
		r++
	}
	if inWord {
		words = append(words, word{from, r})
	}
	if len(words) > 40 {
		return 0, 0, false
	}
	runes := []rune(text)
	bestFrom, bestTo := -1, -1
	for i := range words {
		for j := min(len(words), i+8); j > i; j-- {
			inner := false
			for k := i + 1; k < j-1; k++ {
				inner = inner || endsRun(string(runes[words[k].from:words[k].to]))
			}
			if inner && !strings.ContainsAny(text, "년年오午") {
				continue
			}
			a, b := words[i].from, words[j-1].to
			for a < b && (strings.ContainsRune("([,;|·–—-", runes[a]) || unicode.IsSpace(runes[a])) {
				a++
			}
			for b > a && (strings.ContainsRune(")],;:|·–—-.", runes[b-1]) || unicode.IsSpace(runes[b-1])) {
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
	if src != nil {
		bestFrom, bestTo = int(src[bestFrom]), int(src[bestTo])
	}
	return ch.p.byteOffsets(int(n.start), int(n.end), bestFrom, bestTo)
}
