package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// SyntheticStart is the first simulated day of synthetic traces, a Monday.
var SyntheticStart = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// Synthetic trace shape. The figures follow what measurements of feeds
// report (and the specification sums up): most feeds post fewer than 10
// items a day, most show 10 to 15 items, a few are busy, and posting
// follows the time of day and the day of the week.
const (
	backlogDays  = 14 // postings made before the start, which feeds show when first read
	tailDays     = 3  // postings made after the end, while the simulation resolves the span
	maxSynthetic = 100_000
	maxDaysSim   = 366
)

// Synthetic generates a trace of n feeds over days days, the same for the
// same seed. Each feed draws from its own random stream (seeded by seed
// and its index), so feed i is the same whatever n is.
//
// Per feed:
//   - rate: 70% post 0.1–10 items a day, 25% 10–40, 5% 40–400 (log-uniform
//     within each class);
//   - capacity: 45% show 10 items, 35% 11–15, 20% anything from 1 to 60;
//   - time zone: 50% UTC+1, 30% UTC−5, 20% a whole-hour offset from −8 to +9;
//   - time of day: 15% post around the clock (automated feeds); the rest
//     peak at a working hour (9–16 local, spread 1.5–4 hours) over a quiet
//     night (5–20% of the peak), a third of them with a second, evening
//     peak (19–22);
//   - weekends run at 20–80% of weekdays (automated feeds: 100%).
//
// Postings are a Poisson process with that hourly intensity, from
// backlogDays before the start to tailDays after the end.
func Synthetic(n int, seed uint64, days int) (*Trace, error) {
	if n < 1 || n > maxSynthetic {
		return nil, fmt.Errorf("synthetic trace: %d feeds is outside 1..%d", n, maxSynthetic)
	}
	if days < 1 || days > maxDaysSim {
		return nil, fmt.Errorf("synthetic trace: %d days is outside 1..%d", days, maxDaysSim)
	}
	start := SyntheticStart
	end := start.AddDate(0, 0, days)
	t := &Trace{Start: start, End: end, Feeds: make([]Feed, n)}
	width := len(fmt.Sprint(n))
	for i := range n {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		shape := newFeedShape(rng)
		t.Feeds[i] = Feed{
			ID:       fmt.Sprintf("feed%0*d", width, i+1),
			Capacity: shape.capacity,
			Postings: shape.postings(rng, start.AddDate(0, 0, -backlogDays), end.AddDate(0, 0, tailDays)),
		}
	}
	return t, nil
}

// feedShape is one synthetic feed's habits.
type feedShape struct {
	rate     float64     // items per day, averaged over a week
	capacity int         // items shown
	offset   int         // UTC offset in hours
	hourly   [24]float64 // relative intensity per local hour, mean 1
	weekend  float64     // weekend intensity relative to weekdays
}

func newFeedShape(rng *rand.Rand) feedShape {
	var f feedShape
	switch u := rng.Float64(); {
	case u < 0.70:
		f.rate = logUniform(rng, 0.1, 10)
	case u < 0.95:
		f.rate = logUniform(rng, 10, 40)
	default:
		f.rate = logUniform(rng, 40, 400)
	}
	switch u := rng.Float64(); {
	case u < 0.45:
		f.capacity = 10
	case u < 0.80:
		f.capacity = 11 + rng.IntN(5)
	default:
		f.capacity = 1 + rng.IntN(60)
	}
	switch u := rng.Float64(); {
	case u < 0.5:
		f.offset = 1
	case u < 0.8:
		f.offset = -5
	default:
		f.offset = -8 + rng.IntN(18)
	}
	f.weekend = 1
	if rng.Float64() < 0.15 {
		for h := range 24 {
			f.hourly[h] = 1
		}
		return f
	}
	f.weekend = 0.2 + 0.6*rng.Float64()
	night := 0.05 + 0.15*rng.Float64()
	peak := 9 + 7*rng.Float64()
	spread := 1.5 + 2.5*rng.Float64()
	evening := rng.Float64() < 1.0/3
	eveningPeak := 19 + 3*rng.Float64()
	var sum float64
	for h := range 24 {
		v := night + bump(float64(h)+0.5, peak, spread)
		if evening {
			v += 0.6 * bump(float64(h)+0.5, eveningPeak, 1.5)
		}
		f.hourly[h] = v
		sum += v
	}
	for h := range 24 {
		f.hourly[h] *= 24 / sum
	}
	return f
}

// bump is a bell around peak (in hours of a day, wrapping at midnight).
func bump(h, peak, spread float64) float64 {
	d := math.Abs(h - peak)
	d = math.Min(d, 24-d)
	return math.Exp(-d * d / (2 * spread * spread))
}

func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// postings draws the feed's posting times in [from, to).
func (f feedShape) postings(rng *rand.Rand, from, to time.Time) []time.Time {
	// Weekday intensity such that a week averages the feed's rate.
	weekday := 7 / (5 + 2*f.weekend)
	var out []time.Time
	zone := time.FixedZone("", f.offset*3600)
	for t := from; t.Before(to); t = t.Add(time.Hour) {
		local := t.In(zone)
		mean := f.rate / 24 * f.hourly[local.Hour()] * weekday
		if wd := local.Weekday(); wd == time.Saturday || wd == time.Sunday {
			mean *= f.weekend
		}
		for range poisson(rng, mean) {
			out = append(out, t.Add(time.Duration(rng.Int64N(int64(time.Hour)))))
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// poisson draws from a Poisson distribution: Knuth's product method for
// small means, a rounded normal for large ones.
func poisson(rng *rand.Rand, mean float64) int {
	if mean <= 0 {
		return 0
	}
	if mean > 30 {
		return max(0, int(math.Round(mean+math.Sqrt(mean)*rng.NormFloat64())))
	}
	limit := math.Exp(-mean)
	k := 0
	for p := rng.Float64(); p > limit; p *= rng.Float64() {
		k++
	}
	return k
}
