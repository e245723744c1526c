package annotate

import (
	"strings"
	"testing"
)

// FuzzDecodeUTF8 checks decode of a page read as UTF-8 against
// strings.ToValidUTF8, which it skips when the text is valid: the same
// text, invalid bytes replaced alike.
func FuzzDecodeUTF8(f *testing.F) {
	for _, s := range []string{"", "plain ascii", "caf\xc3\xa9", "\xff", "a\xe2\x82", "\uFFFD", "x\xed\xa0\x80y", "\xc0\xaf", strings.Repeat("abcdefgh", 9) + "\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := &page{}
		if got, want := p.decode(s), strings.ToValidUTF8(s, "\uFFFD"); got != want {
			t.Fatalf("decode(%q) = %q; ToValidUTF8 gives %q", s, got, want)
		}
	})
}
