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
}

// FuzzMayMatchLayout checks mayMatchLayout against the full search: when
// any layout reads v, mayMatchLayout(v) must say it may.
func FuzzMayMatchLayout(f *testing.F) {
	for _, s := range shortcutSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if mayMatchLayout(v) {
			return
		}
		for _, layout := range layouts {
			if _, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
				t.Fatalf("mayMatchLayout(%q) = false, but layout %q reads it", v, layout)
			}
		}
	})
}

// FuzzISOLayoutsNeedT checks parseISO's shortcut: a value without 'T' is
// read by no ISO layout that has one.
func FuzzISOLayoutsNeedT(f *testing.F) {
	for _, s := range shortcutSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
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
	for _, v := range []string{"Posted by 5 readers", "5", "12 34", "2005 12 08", "Mon 8 2005"} {
		if mayMatchLayout(v) {
			t.Errorf("mayMatchLayout(%q) = true; want false (no layout can read it)", v)
		}
	}
}
