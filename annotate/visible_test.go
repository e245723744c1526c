package annotate

import (
	"strings"
	"testing"
)

// visibleBytesByByte is visibleBytes read a byte at a time, as it was
// first written.
func visibleBytesByByte(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] > ' ' {
			n++
		}
	}
	if n > 0 && strings.Contains(s, "&nbsp;") && strings.TrimSpace(strings.ReplaceAll(s, "&nbsp;", "")) == "" {
		return 0
	}
	return n
}

// FuzzVisibleBytes checks visibleBytes, which reads eight bytes at a
// time, against visibleBytesByByte.
func FuzzVisibleBytes(f *testing.F) {
	for _, s := range []string{"", " ", "a", "&nbsp;", " &nbsp; &nbsp;\n", "x&nbsp;", "\x00\x1f\x20\x21\x7f\x80\xff",
		"12 March 2005 \u00b7 notes on the harbour", strings.Repeat("\t \n&", 9), "&&&&&&&&&nbsp;", "\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0\xa0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := visibleBytes(s), visibleBytesByByte(s); got != want {
			t.Fatalf("visibleBytes(%q) = %d, want %d", s, got, want)
		}
	})
}
