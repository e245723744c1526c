package annotate

import (
	"strings"
	"testing"
)

// FuzzBoilerplate checks isBoilerplate, which answers most long titles
// without lower-casing them, against the test it makes of lower-cased
// text.
func FuzzBoilerplate(f *testing.F) {
	for k := range boilerplate {
		f.Add(k)
		f.Add(strings.ToUpper(k) + " ")
	}
	for _, s := range []string{"12 comments", "No Comments:", "3 Replies", "12,345,678,901,234,567 comments", "A title of a post, long enough", "\u212aeep reading the story of it", "İ read more of it here today"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		t0 := strings.ToLower(strings.Trim(s, " .…→»›>&;:!-–—|()[]"))
		want := boilerplate[t0]
		if !want && (strings.Contains(t0, "comment") || strings.Contains(t0, "repl")) {
			f := strings.Fields(t0)
			want = len(f) == 2 && (strings.HasPrefix(f[1], "comment") || strings.HasPrefix(f[1], "repl"))
		}
		if got := isBoilerplate(s); got != want {
			t.Fatalf("isBoilerplate(%q) = %v, lower-casing first gives %v", s, got, want)
		}
	})
}

// TestLongestBoilerplate checks longestBoilerplate against the ASCII
// phrases.
func TestLongestBoilerplate(t *testing.T) {
	n := 0
	for k := range boilerplate {
		if asciiFields(k) >= 0 {
			n = max(n, len(k))
		}
	}
	if n != longestBoilerplate {
		t.Fatalf("the longest ASCII phrase has %d bytes, longestBoilerplate says %d", n, longestBoilerplate)
	}
}
