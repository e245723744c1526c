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

// TestAppendRFC1123Z compares appendRFC1123Z with the time package's
// formatting over random times in zones east and west, with odd offsets
// (seconds, over a day) and years at and past the fast path's bounds.
func TestAppendRFC1123Z(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1123))
	zones := []*time.Location{time.UTC, time.FixedZone("", -7*3600), time.FixedZone("", 5*3600+1800),
		time.FixedZone("", -30), time.FixedZone("", 45), time.FixedZone("", -(9*3600 + 59)), time.FixedZone("", 14*3600),
		time.FixedZone("", 100*3600), time.FixedZone("", -123*3600-60)}
	if loc, err := time.LoadLocation("America/New_York"); err == nil {
		zones = append(zones, loc)
	}
	times := []time.Time{time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(999, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)}
	for range 20000 {
		times = append(times, time.Unix(rng.Int64N(400e9)-200e9, rng.Int64N(1e9)))
	}
	for _, tm := range times {
		for _, z := range zones {
			tz := tm.In(z)
			if got, want := string(appendRFC1123Z(nil, tz)), tz.Format(time.RFC1123Z); got != want {
				t.Fatalf("%v: got %q, want %q", tz, got, want)
			}
		}
	}
}
