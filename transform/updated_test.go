package transform

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestDistinctDates checks distinctDates.next, which starts each search
// where the last one for the same value ended, against the search from
// the value itself that it replaced: the same atom:updated for every
// entry, over runs of equal, close and undated times.
func TestDistinctDates(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 21))
	base := time.Date(2024, 3, 12, 9, 0, 0, 0, time.UTC)
	d := distinctDates{seen: map[string]bool{}, after: map[string]time.Time{}}
	naive := map[string]bool{}
	for i := 0; i < 5000; i++ {
		var at time.Time // undated, a time in eight seconds, or one of a few days
		switch r.IntN(3) {
		case 1:
			at = base.Add(time.Duration(r.IntN(8)) * time.Second)
		case 2:
			at = base.AddDate(0, 0, r.IntN(3))
		}
		want := at
		if want.IsZero() {
			want = atomNoDate
		}
		for naive[atomDate(want)] && writableYear(want.Add(time.Second).Year()) {
			want = want.Add(time.Second)
		}
		naive[atomDate(want)] = true
		if got := d.next(at); atomDate(got) != atomDate(want) {
			t.Fatalf("entry %d, %v: %s, want %s", i, at, atomDate(got), atomDate(want))
		}
	}
}
