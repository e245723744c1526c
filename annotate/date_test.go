package annotate

import (
	"testing"
	"time"

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
