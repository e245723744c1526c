package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// SyntheticStart is the first simulated day of synthetic traces, a Monday.
var SyntheticStart = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// The synthetic workloads' shapes. docs/SCHEDULING.md gives each one's
// parameters and where they come from.
const (
	// Poisson: busy, news-like feeds posting as a Poisson process whose
	// intensity follows the time of day and the weekend, the same every
	// week.
	Poisson = "poisson"
	// Bursty: the same rates, but most postings come in bursts of a few
	// to a dozen items within 5–30 minutes, over a news day; a quarter of
	// the feeds show the items of the last 24–48 hours rather than a
	// fixed number.
	Bursty = "bursty"
	// Drift: Poisson feeds whose rate changes once, mid-run, by ×2 to
	// ×10 up or down.
	Drift = "drift"
	// Weekly: slow feeds that publish on their own weekdays (Lee et
	// al.'s weekday patterns): most days either have an update or not by
	// the weekday, in the feed's own time zone.
	Weekly = "weekly"
	// Blog: rates shaped like Han et al.'s blogs: 94 % post under 10
	// items a day, about 1 a day on average.
	Blog = "blog"
	// Mixed draws each feed from the five shapes above, in equal shares.
	Mixed = "mixed"
)

var shapes = []string{Poisson, Bursty, Drift, Weekly, Blog, Mixed}

// Shapes lists the synthetic shapes Synthetic knows.
func Shapes() []string { return slices.Clone(shapes) }

// Synthetic trace limits and margins.
const (
	backlogDays  = 14 // postings made before the start, which feeds show when first read
	tailDays     = 3  // postings made after the end, while the simulation resolves the span
	maxSynthetic = 100_000
	maxDaysSim   = 366
)

// Synthetic generates a trace of n feeds of the given shape over days
// days, the same for the same shape and seed. Each feed draws from its
// own random stream (seeded by seed and its index), so feed i is the same
// whatever n is.
//
// Every feed has a time zone (50 % UTC+1, 30 % UTC−5, 20 % a whole-hour
// offset from −8 to +9), a posting intensity by local hour of day and by
// local weekday, and a window (how many items it shows, or for how long).
// Postings start backlogDays before the span, so feeds have a backlog when
// first read, and go on tailDays after it. The shapes differ in rates,
// hourly curves, weekly patterns, bursts and drift; see the constants.
func Synthetic(shape string, n int, seed uint64, days int) (*Trace, error) {
	if !slices.Contains(shapes, shape) {
		return nil, fmt.Errorf("synthetic trace: unknown shape %q (known: %s)", shape, strings.Join(shapes, ", "))
	}
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
		m := newFeedModel(shape, seed, i, start, end)
		rng := m.stream(seed, i)
		t.Feeds[i] = Feed{
			ID:       fmt.Sprintf("feed%0*d", width, i+1),
			Capacity: m.capacity,
			Window:   m.window,
			Shape:    m.shape,
			Zone:     m.zone(),
			Postings: m.postings(rng, start.AddDate(0, 0, -backlogDays), end.AddDate(0, 0, tailDays)),
		}
	}
	return t, nil
}

// feedModel is one synthetic feed's habits.
type feedModel struct {
	shape    string
	rate     float64       // postings a day, averaged over a week (before any drift)
	capacity int           // items shown; 0: limited by window alone
	window   time.Duration // how long items stay shown; 0: limited by capacity alone
	offset   int           // UTC offset in hours
	hourly   [24]float64   // relative intensity by local hour, mean 1
	weekly   [7]float64    // relative intensity by local weekday (Sunday first), mean 1

	// Drift: from changeAt on, the rate is multiplied by factor.
	changeAt time.Time
	factor   float64

	// Bursts: a share of the postings comes in bursts of burstSize items
	// on average, each spread over burstMin to burstMax.
	burstShare         float64
	burstSize          float64
	burstMin, burstMax time.Duration

	// Weekly: the days of the week the feed publishes on (local), the
	// chance that it does on one of them and on another day, and how many
	// postings such a day has beyond the first, on average.
	onDays      [7]bool
	pOn, pOff   float64
	extraPerDay float64
}

// stream is feed i's random stream for its postings: separate from the
// one its habits were drawn from, so that adding a habit to a shape does
// not change the postings of others.
func (m *feedModel) stream(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x5eed, uint64(i)<<8|1))
}

// newFeedModel draws feed i's habits for shape.
func newFeedModel(shape string, seed uint64, i int, start, end time.Time) feedModel {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	if shape == Mixed {
		shape = shapes[rng.IntN(len(shapes)-1)]
	}
	m := feedModel{shape: shape, factor: 1}
	m.offset = drawOffset(rng)
	switch shape {
	case Poisson, Drift:
		m.rate = drawBusyRate(rng)
		m.capacity = drawBusyCapacity(rng)
		m.hourly, m.weekly = drawOfficeDay(rng)
		if shape == Drift {
			span := end.Sub(start)
			m.changeAt = start.Add(time.Duration((0.35 + 0.45*rng.Float64()) * float64(span)))
			m.factor = math.Exp(math.Log(2) + rng.Float64()*(math.Log(10)-math.Log(2)))
			if rng.IntN(2) == 0 {
				m.factor = 1 / m.factor
			}
		}
	case Bursty:
		m.rate = drawBusyRate(rng)
		m.capacity = drawBusyCapacity(rng)
		if rng.Float64() < 0.25 {
			// A feed of "the last day or two": a time window, and a count
			// limit far above what a day brings.
			m.window = time.Duration(24+rng.IntN(25)) * time.Hour
			m.capacity = 0
		}
		m.hourly = newsCurve(rng)
		m.weekly = weekendWeek(0.4 + 0.5*rng.Float64())
		m.burstShare = 0.8
		m.burstSize = 3 + 9*rng.Float64()
		m.burstMin, m.burstMax = 5*time.Minute, 30*time.Minute
	case Weekly:
		m.capacity = drawBlogCapacity(rng)
		m.hourly, _ = drawOfficeDay(rng)
		k := []int{1, 1, 2, 2, 3, 5}[rng.IntN(6)]
		if k == 5 {
			for d := time.Monday; d <= time.Friday; d++ {
				m.onDays[d] = true
			}
		} else {
			for _, d := range rng.Perm(7)[:k] {
				m.onDays[d] = true
			}
		}
		m.pOn = 0.7 + 0.3*rng.Float64()
		m.pOff = 0.08 * rng.Float64()
		m.extraPerDay = logUniform(rng, 0.05, 3)
		m.rate = (float64(k)*m.pOn + float64(7-k)*m.pOff) * (1 + m.extraPerDay) / 7
	case Blog:
		m.rate = drawBlogRate(rng)
		m.capacity = drawBlogCapacity(rng)
		m.hourly = bloggerDay(rng)
		m.weekly = weekendWeek(0.6 + 0.6*rng.Float64())
	}
	return m
}

func drawOffset(rng *rand.Rand) int {
	switch u := rng.Float64(); {
	case u < 0.5:
		return 1
	case u < 0.8:
		return -5
	default:
		return -8 + rng.IntN(18)
	}
}

// drawBusyRate: 70 % post 0.1–10 items a day, 25 % 10–40, 5 % 40–400,
// log-uniform within each class.
func drawBusyRate(rng *rand.Rand) float64 {
	switch u := rng.Float64(); {
	case u < 0.70:
		return logUniform(rng, 0.1, 10)
	case u < 0.95:
		return logUniform(rng, 10, 40)
	default:
		return logUniform(rng, 40, 400)
	}
}

// drawBusyCapacity: 45 % show 10 items, 35 % 11–15, 20 % anything from 1
// to 60.
func drawBusyCapacity(rng *rand.Rand) int {
	switch u := rng.Float64(); {
	case u < 0.45:
		return 10
	case u < 0.80:
		return 11 + rng.IntN(5)
	default:
		return 1 + rng.IntN(60)
	}
}

// Blog rates, after Han et al.'s blog statistics: 94 % of blogs post
// under 10 items a day and the mean is about one a day. The 94 % are
// log-normal around 0.15 a day (σ = 1, cut at 10); the other 6 % post
// 10–16 a day (log-uniform).
const (
	blogBusyShare = 0.06
	blogMedian    = 0.15
	blogSigma     = 1.0
)

func drawBlogRate(rng *rand.Rand) float64 {
	if rng.Float64() < blogBusyShare {
		return logUniform(rng, 10, 16)
	}
	for {
		if r := blogMedian * math.Exp(blogSigma*rng.NormFloat64()); r < 10 && r >= 0.005 {
			return r
		}
	}
}

// drawBlogCapacity: blog platforms mostly show 10 items (WordPress's
// default) or 25 (Blogger's); 60 % 10, 20 % 25, 20 % anything from 5 to 50.
func drawBlogCapacity(rng *rand.Rand) int {
	switch u := rng.Float64(); {
	case u < 0.6:
		return 10
	case u < 0.8:
		return 25
	default:
		return 5 + rng.IntN(46)
	}
}

// drawOfficeDay: 15 % post around the clock, all week (automated feeds);
// the others peak at a working hour (9–16 local, spread 1.5–4 hours) over
// a quiet night (5–20 % of the peak), a third of them with a second,
// evening peak (19–22), and run at 20–80 % on weekends.
func drawOfficeDay(rng *rand.Rand) ([24]float64, [7]float64) {
	var hourly [24]float64
	if rng.Float64() < 0.15 {
		for h := range 24 {
			hourly[h] = 1
		}
		return hourly, weekendWeek(1)
	}
	weekend := 0.2 + 0.6*rng.Float64()
	night := 0.05 + 0.15*rng.Float64()
	peak := 9 + 7*rng.Float64()
	spread := 1.5 + 2.5*rng.Float64()
	evening := rng.Float64() < 1.0/3
	eveningPeak := 19 + 3*rng.Float64()
	for h := range 24 {
		v := night + bump(float64(h)+0.5, peak, spread)
		if evening {
			v += 0.6 * bump(float64(h)+0.5, eveningPeak, 1.5)
		}
		hourly[h] = v
	}
	return normalized(hourly), weekendWeek(weekend)
}

// newsDay is the relative posting intensity of news portals by local
// hour, after the shape of Adam et al.'s hourly curves: quiet from 1 to 5
// a.m., rising from 6, a plateau from 9 to 16, declining through the
// evening.
var newsDay = [24]float64{
	0.25, 0.15, 0.10, 0.08, 0.08, 0.12, 0.30, 0.60, 0.90, 1.00, 1.00, 1.00,
	0.95, 0.95, 0.95, 0.90, 0.85, 0.80, 0.70, 0.60, 0.55, 0.50, 0.45, 0.35,
}

// newsCurve is newsDay with each hour varied by ±20 % for one feed.
func newsCurve(rng *rand.Rand) [24]float64 {
	var c [24]float64
	for h, v := range newsDay {
		c[h] = v * (0.8 + 0.4*rng.Float64())
	}
	return normalized(c)
}

// bloggerDay: a blogger posts around one time of their day (anywhere from
// 8 to 23 local, spread 2–5 hours) over a quiet night.
func bloggerDay(rng *rand.Rand) [24]float64 {
	var c [24]float64
	peak := 8 + 15*rng.Float64()
	spread := 2 + 3*rng.Float64()
	night := 0.05 + 0.1*rng.Float64()
	for h := range 24 {
		c[h] = night + bump(float64(h)+0.5, peak, spread)
	}
	return normalized(c)
}

// weekendWeek is a week whose Saturday and Sunday run at `weekend` times
// the other days, scaled to mean 1.
func weekendWeek(weekend float64) [7]float64 {
	var w [7]float64
	for d := range 7 {
		w[d] = 1
	}
	w[time.Saturday], w[time.Sunday] = weekend, weekend
	var sum float64
	for _, v := range w {
		sum += v
	}
	for d := range w {
		w[d] *= 7 / sum
	}
	return w
}

func normalized(c [24]float64) [24]float64 {
	var sum float64
	for _, v := range c {
		sum += v
	}
	for h := range c {
		c[h] *= 24 / sum
	}
	return c
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

// zone is the feed's time zone.
func (m *feedModel) zone() *time.Location {
	return time.FixedZone(fmt.Sprintf("UTC%+03d:00", m.offset), m.offset*3600)
}

// postings draws the feed's posting times in [from, to).
func (m *feedModel) postings(rng *rand.Rand, from, to time.Time) []time.Time {
	var out []time.Time
	if m.shape == Weekly {
		out = m.weeklyPostings(rng, from, to)
	} else {
		out = m.poissonPostings(rng, from, to)
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// poissonPostings: hour by hour, a Poisson number of postings (or of
// bursts) with the hour's intensity.
func (m *feedModel) poissonPostings(rng *rand.Rand, from, to time.Time) []time.Time {
	var out []time.Time
	zone := m.zone()
	for t := from; t.Before(to); t = t.Add(time.Hour) {
		local := t.In(zone)
		mean := m.rate / 24 * m.hourly[local.Hour()] * m.weekly[local.Weekday()]
		if !m.changeAt.IsZero() && !t.Before(m.changeAt) {
			mean *= m.factor
		}
		singles := mean * (1 - m.burstShare)
		for range poisson(rng, singles) {
			out = append(out, t.Add(time.Duration(rng.Int64N(int64(time.Hour)))))
		}
		if m.burstShare == 0 {
			continue
		}
		for range poisson(rng, mean*m.burstShare/m.burstSize) {
			out = append(out, m.burst(rng, t.Add(time.Duration(rng.Int64N(int64(time.Hour)))))...)
		}
	}
	return out
}

// burst is one burst starting at start: 1 + a geometric number of items
// (burstSize on average) spread evenly at random over its length.
func (m *feedModel) burst(rng *rand.Rand, start time.Time) []time.Time {
	size := 1
	for rng.Float64() >= 1/m.burstSize {
		size++
	}
	length := m.burstMin + time.Duration(rng.Int64N(int64(m.burstMax-m.burstMin)+1))
	out := make([]time.Time, size)
	for k := range out {
		out[k] = start.Add(time.Duration(rng.Int64N(int64(length) + 1)))
	}
	return out
}

// weeklyPostings: day by local day, the day has an update with pOn on
// the feed's days and pOff on others; such a day has 1 + Poisson(extra)
// postings at hours drawn from the feed's day.
func (m *feedModel) weeklyPostings(rng *rand.Rand, from, to time.Time) []time.Time {
	var out []time.Time
	zone := m.zone()
	local := from.In(zone)
	day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, zone)
	var cumulative [24]float64
	var sum float64
	for h, v := range m.hourly {
		sum += v
		cumulative[h] = sum
	}
	for ; day.Before(to); day = day.AddDate(0, 0, 1) {
		p := m.pOff
		if m.onDays[day.Weekday()] {
			p = m.pOn
		}
		if rng.Float64() >= p {
			continue
		}
		for range 1 + poisson(rng, m.extraPerDay) {
			u := rng.Float64() * sum
			h := 0
			for h < 23 && cumulative[h] < u {
				h++
			}
			at := day.Add(time.Duration(h)*time.Hour + time.Duration(rng.Int64N(int64(time.Hour))))
			if !at.Before(from) && at.Before(to) {
				out = append(out, at.UTC())
			}
		}
	}
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
