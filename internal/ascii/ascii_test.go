package ascii

import "testing"

func TestLower(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"div", "div"},
		{"DIV", "div"},
		{"Windows-1252", "windows-1252"},
		{"ÉCOLE Été", "École Été"}, // non-ASCII letters stay as they are
		{"A\xffB", "a\xffb"},       // invalid UTF-8 kept byte for byte
		{"İSTANBUL", "İstanbul"},   // strings.ToLower would change the length
		{"@[`{", "@[`{"},           // the bytes around A-Z
	} {
		if got := Lower(tc.in); got != tc.want {
			t.Errorf("Lower(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if len(Lower(tc.in)) != len(tc.in) {
			t.Errorf("Lower(%q) changed the length", tc.in)
		}
	}
}

func TestLowerDoesNotAllocateWithoutCapitals(t *testing.T) {
	s := "already lower, and déjà"
	if n := testing.AllocsPerRun(100, func() { _ = Lower(s) }); n != 0 {
		t.Errorf("Lower of a lower-case string allocated %v times", n)
	}
}
