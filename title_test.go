package dynamo_test

import (
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

// TestTitleFromText holds the cases of the three copies this rule replaced
// (wrapper, nativefeed, transform): each still holds.
func TestTitleFromText(t *testing.T) {
	short := "A short text"
	if got := dynamo.TitleFromText(short); got != short {
		t.Errorf("TitleFromText(%q) = %q", short, got)
	}
	long := strings.Repeat("word ", 30)
	got := dynamo.TitleFromText(long)
	if !strings.HasSuffix(got, "word…") || len([]rune(got)) > dynamo.MaxDerivedTitle+1 {
		t.Errorf("TitleFromText of a long text = %q: want at most %d characters ending in a whole word and …", got, dynamo.MaxDerivedTitle)
	}
	unbroken := strings.Repeat("é", 200)
	if got := dynamo.TitleFromText(unbroken); got != strings.Repeat("é", dynamo.MaxDerivedTitle)+"…" {
		t.Errorf("TitleFromText of an unbroken text = %q", got)
	}
	for _, tc := range []struct{ in, want string }{
		{strings.Repeat("x", 80), strings.Repeat("x", 80)},
		{"Mayor says: " + strings.Repeat("a", 30) + ", then " + strings.Repeat("b", 40), "Mayor says: " + strings.Repeat("a", 30) + ", then…"},
		{strings.Repeat("a", 20) + " " + strings.Repeat("b", 70), strings.Repeat("a", 20) + " " + strings.Repeat("b", 59) + "…"},
	} {
		if got := dynamo.TitleFromText(tc.in); got != tc.want {
			t.Errorf("TitleFromText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
