package annotate

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// textCountCases are markup whose counts are checked against its text:
// words joined across tags, spaces added by tags, entities, spaces
// outside ASCII, and markup only the tokenizer reads.
var textCountCases = []string{
	"",
	"plain words, five of them here",
	"<p>One<b>two</b> three<br>four<td>five</td></p>",
	"<table><tr><td><a href=/p/1>Package one</a></td><td>2.4.1 — a library for parsing things</td></tr></table>",
	"Caf&eacute; &amp; bar&nbsp;open &#x41;&#66; 12&nbsp;&nbsp;3 &notit;",
	"\u00a0lead\u2003em space\u3000ideographic\u0085next line\tand\ttabs\n",
	"éàü ÉÀÜ 日本語のテキスト 1 2 3 4 5 6 7 8 9 10",
	"a < b <p a=/>d</p> <div/>e",
	"<b>x</b><!-- c --><script>z</script> words after a comment",
	"x\x00y<b>",
	"<a href=\"x",
}

// TestTextCounts checks the counts of plain text, taken as the markup is
// read, against the text plain makes: its runes, bytes and words, and
// isProse's verdict.
func TestTextCounts(t *testing.T) {
	for _, s := range textCountCases {
		checkTextCounts(t, s)
		checkTextCounts(t, strings.Repeat(s+" ", 300)) // long enough to be counted
	}
}

// FuzzTextCounts is TestTextCounts on any markup, and countsOf on every
// node of the tree of any page, in any of a few encodings, against
// textOf.
func FuzzTextCounts(f *testing.F) {
	for _, s := range textCountCases {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	charsets := []string{"", "text/html; charset=windows-1252", "text/html; charset=utf-16le", "text/html; charset=iso-8859-5"}
	f.Fuzz(func(t *testing.T, s string, charset uint8) {
		checkTextCounts(t, s)
		p, err := newPage([]byte(s), charsets[int(charset)%len(charsets)])
		if err != nil {
			return
		}
		tb := p.tree(nil, false)
		for n := range tb.withRoot {
			c, ok := p.countsOf(n)
			if !ok {
				continue
			}
			if err := textCountsMatch(c, p.textOf(n)); err != "" {
				t.Fatalf("countsOf(%q): %s", p.text[n.start:n.end], err)
			}
		}
	})
}

// checkTextCounts checks plainSimpleTo's counts of s against plainSimple's
// text, and the counts of a text without markup against joinFields'.
func checkTextCounts(t *testing.T, s string) {
	t.Helper()
	text, ok := plainSimple(s)
	var c textCounts
	if _, counted := plainSimpleTo(s, &c); counted != ok {
		t.Fatalf("plainSimpleTo(%q) read it: %v, plainSimple: %v", s, counted, ok)
	}
	if ok {
		if err := textCountsMatch(c, text); err != "" {
			t.Fatalf("plainSimpleTo(%q): %s", s, err)
		}
	}
	if utf8.ValidString(s) {
		var w textCounts
		w.add(s)
		if err := textCountsMatch(w, joinFields(s)); err != "" {
			t.Fatalf("add(%q): %s", s, err)
		}
	}
}

// textCountsMatch says how c differs from the counts of text, read with
// strings.Fields and unicode's classes; "" when it does not.
func textCountsMatch(c textCounts, text string) string {
	letters, other := 0, 0
	for _, r := range text {
		switch {
		case unicode.IsLetter(r):
			letters++
		case !unicode.IsSpace(r):
			other++
		}
	}
	runes, bytes := c.joined()
	words := len(strings.Fields(text))
	prose := words >= 5 && letters >= 20 && letters >= 3*other
	switch {
	case c.letters != letters || c.other != other || c.words != words:
		return "counts differ from the text's"
	case runes != utf8.RuneCountInString(text) || bytes != len(text):
		return "runes or bytes differ from the text's"
	case c.prose() != prose || isProse(text) != prose:
		return "prose differs"
	}
	return ""
}
