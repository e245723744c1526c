package policy

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// integrate's float walk over hours agrees with a second-by-second sum of
// the same model, across a weekday boundary in a zone east of UTC, with a
// burst fading. (In a zone with a half-hour offset, the hour that holds
// local midnight takes the weekday of its start: an approximation.)
func TestModelIntegrate(t *testing.T) {
	m := model{offset: 5 * 3600, burstRate: 12, burstAt: t0.Add(30 * time.Hour)}
	for h := range 24 {
		m.hourly[h] = 0.1 + float64(h)/10
	}
	for d := range 7 {
		m.day[d] = 0.5 + float64(d)/6
	}
	from, to := t0.Add(17*time.Hour+13*time.Minute), t0.Add(41*time.Hour+47*time.Minute)
	var wantE, wantW float64
	for t := from; t.Before(to); t = t.Add(time.Second) {
		mid := t.Add(time.Second / 2)
		r := m.hourly[mid.Hour()] * m.day[localWeekday(mid, m.offset)]
		if !mid.Before(m.burstAt) {
			r += m.burstRate * math.Exp(-mid.Sub(m.burstAt).Hours()/burstFade.Hours())
		}
		wantE += r / 3600
		wantW += r / 3600 * to.Sub(mid).Hours()
	}
	gotE, gotW := m.integrate(from, to)
	if math.Abs(gotE-wantE) > 1e-3*wantE || math.Abs(gotW-wantW) > 1e-3*wantW {
		t.Errorf("integrate = %v, %v; the sum by seconds gives %v, %v", gotE, gotW, wantE, wantW)
	}
	if e, w := m.integrate(to, from); e != 0 || w != 0 {
		t.Errorf("a backwards span gives %v, %v", e, w)
	}
}

// A steady source's model is flat: its waiting after w hours is r·w²/2,
// the square-root law's quantity.
func TestSteady(t *testing.T) {
	s := Steady(48, 12, t0)
	if math.Abs(s.Rate()-48) > 1e-3 || s.CapacityOrDefault() != 12 {
		t.Fatalf("rate %v, capacity %d", s.Rate(), s.CapacityOrDefault())
	}
	pending, waiting := s.Expecting(t0, t0.Add(3*time.Hour), nil)
	if math.Abs(pending-6) > 1e-4 || math.Abs(waiting-9) > 1e-4 {
		t.Errorf("after 3 h: %v pending, %v item-hours waiting; want 6 and 9", pending, waiting)
	}
}

// A source that posts in bursts is seen to: its cluster size grows, its
// patterns lean on the prior for as many clusters, and a poll that finds
// a burst under way raises the rate expected in the next minutes.
func TestLearnBursts(t *testing.T) {
	var steady, bursty State
	steady.Learn(Observation{At: t0, ItemsSeen: 20})
	bursty.Learn(Observation{At: t0, ItemsSeen: 20})
	for d := 1; d <= 14; d++ {
		at := t0.AddDate(0, 0, d)
		var even, burst []time.Time
		for k := range 6 {
			even = append(even, at.Add(-time.Duration(4*k+1)*time.Hour))
			burst = append(burst, at.Add(-10*time.Hour+time.Duration(k)*2*time.Minute))
		}
		steady.Learn(Observation{At: at, NewItems: 6, ItemsSeen: 20, ItemDates: even})
		bursty.Learn(Observation{At: at, NewItems: 6, ItemsSeen: 20, ItemDates: burst})
	}
	if c := steady.ClusterSize(); c != 1 {
		t.Errorf("steady source: cluster size %v, want 1", c)
	}
	if c := bursty.ClusterSize(); c < 4 || c > 6 {
		t.Errorf("bursty source: cluster size %v, want about 6/1.28", c)
	}
	// A poll at the end of a burst of 8 items in 14 minutes.
	at := t0.AddDate(0, 0, 15)
	var dates []time.Time
	for k := range 8 {
		dates = append(dates, at.Add(-time.Duration(14-2*k)*time.Minute))
	}
	before, _ := bursty.Expecting(at, at.Add(10*time.Minute), time.UTC)
	bursty.Learn(Observation{At: at, NewItems: 8, ItemsSeen: 20, ItemDates: dates})
	after, _ := bursty.Expecting(at, at.Add(10*time.Minute), time.UTC)
	// 8 items in the last half hour where ~0.03 were expected: an excess
	// rate of about 16 an hour, fading with a 15-minute time constant,
	// expects 16·¼·(1 − e^(−⅔)) ≈ 1.9 more in the next 10 minutes.
	if bursty.BurstRate < 15 || !bursty.BurstAt.Equal(at) || after < before+1.8 {
		t.Errorf("burst rate %v at %v; expected in the next 10 min %v, before the burst %v", bursty.BurstRate, bursty.BurstAt, after, before)
	}
	// An hour later the burst has faded.
	later, _ := bursty.Expecting(at.Add(time.Hour), at.Add(70*time.Minute), time.UTC)
	if later > before+0.2 {
		t.Errorf("an hour later %v expected in 10 min, want about %v", later, before)
	}
}

// A window bound by time shows more items after a busy day: S is the most
// shown lately, coming down with the half-life.
func TestPeakCapacity(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0, ItemsSeen: 10})
	s.Learn(Observation{At: t0.Add(time.Hour), ItemsSeen: 40})
	s.Learn(Observation{At: t0.Add(2 * time.Hour), ItemsSeen: 12})
	if s.Capacity != 12 || s.CapacityOrDefault() != 40 {
		t.Errorf("capacity %d, S %d; want 12 as last read and 40", s.Capacity, s.CapacityOrDefault())
	}
	s.Learn(Observation{At: t0.Add(2*time.Hour + HalfLife), ItemsSeen: 12})
	if got := s.CapacityOrDefault(); got != 26 {
		t.Errorf("after a half-life S = %d, want 12 + 28/2 = 26", got)
	}
}

// A document that is all new, with dates, is the rate of its own span:
// the postings that scrolled out before it are estimated at that rate, so
// a source polled rarely is not believed slower than it is.
func TestLearnOverflowWithDates(t *testing.T) {
	var s State
	s.Learn(Observation{At: t0, ItemsSeen: 10})
	at := t0
	for range 100 {
		at = at.Add(2 * time.Hour)
		var dates []time.Time
		for k := range 10 {
			dates = append(dates, at.Add(-time.Duration(k)*6*time.Minute)) // 10 an hour
		}
		s.Learn(Observation{At: at, NewItems: 10, ItemsSeen: 10, ItemDates: dates})
	}
	// 9 gaps of 6 minutes in the 54 minutes shown: 10 an hour; the 66
	// minutes before the oldest are estimated at 11 postings (10 in
	// truth: the spacing is regular), 252 a day, less the prior of one
	// item over 24 hours against about 195 hours observed (decayed): 224.
	// Without the estimate, the prior would weigh 24 hours against 90.
	if r := s.Rate(); r < 215 || r > 260 {
		t.Errorf("rate %v a day, want about 224", r)
	}
}

// A document showing only its newest item has no span to measure: each
// new item counts over the time since its date, the postings before it
// are estimated at the rate that gives, and a poll finding nothing new
// counts its whole interval. However busy the source and however rarely
// polled, the rate learnt is near the true one; counting the item twice
// over the whole interval learnt a source posting 290 a day, polled daily,
// at about 2 a day.
func TestLearnOneItemWindow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		perDay float64
		every  time.Duration
	}{
		{"290 a day, polled daily", 290, 24 * time.Hour},
		{"290 a day, polled every 3 hours", 290, 3 * time.Hour},
		{"34 a day, polled every 3 hours", 34, 3 * time.Hour},
		{"4 a day, polled every 2 hours", 4, 2 * time.Hour},
		{"3 a day, polled daily", 3, 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(17, 290))
			gap := func() time.Duration {
				return time.Duration(rnd.ExpFloat64() / tc.perDay * float64(24*time.Hour))
			}
			var s State
			s.Learn(Observation{At: t0, ItemsSeen: 1})
			next := t0.Add(gap())
			for at := t0.Add(tc.every); at.Before(t0.Add(HalfLife * 4)); at = at.Add(tc.every) {
				var newest time.Time
				for next.Before(at) {
					newest, next = next, next.Add(gap())
				}
				var o Observation
				if newest.IsZero() {
					o = Observation{At: at, ItemsSeen: 1}
				} else {
					o = Observation{At: at, NewItems: 1, ItemsSeen: 1, Changed: true, ItemDates: []time.Time{newest}}
				}
				s.Learn(o)
			}
			if r := s.Rate(); r < 0.8*tc.perDay || r > 1.25*tc.perDay {
				t.Errorf("rate %.2f a day, want within 0.8–1.25× of %v", r, tc.perDay)
			}
		})
	}
}

// The weekday history counts the source's own days: a source in Tokyo
// (UTC+9) posting at 08:00 local on Mondays posts at 23:00 UTC on Sundays;
// its Mondays are marked, and the weekday policy polls it on Monday
// Tokyo time, at the end of its peak hour (09:00 local).
func TestWeekdayOwnZone(t *testing.T) {
	tokyo := time.FixedZone("UTC+09:00", 9*3600)
	var s State
	start := time.Date(2026, 3, 2, 12, 0, 0, 0, tokyo) // a Monday
	s.Learn(Observation{At: start, Location: tokyo})
	for d := 1; d <= 28; d++ {
		at := start.AddDate(0, 0, d)
		var dates []time.Time
		if at.Weekday() == time.Monday {
			dates = []time.Time{time.Date(at.Year(), at.Month(), at.Day(), 8, 0, 0, 0, tokyo)}
		}
		s.Learn(Observation{At: at, NewItems: len(dates), ItemsSeen: 10, ItemDates: dates, Location: tokyo})
	}
	// The first Monday's posting came before the first poll: unseen.
	if s.Zone != "UTC+09:00" || s.Days != "00000001000000100000010000001" {
		t.Fatalf("zone %q, days %s", s.Zone, s.Days)
	}
	// Four postings lean on the prior of three items a weekday: Monday
	// stands out, Sunday (UTC's day for them) does not.
	if f := s.DayFactors(); f[time.Monday] < 1.5 || f[time.Sunday] > 1 {
		t.Errorf("day factors %v: want Mondays (Tokyo) high", f)
	}
	p, _ := ByName(Weekday, Config{})
	now := s.LastRetrieval // Monday 30 March, noon in Tokyo
	next := p.Next(Source{State: &s, Location: tokyo}, now)
	want := time.Date(2026, 4, 6, 9, 0, 0, 0, tokyo)
	if !next.Equal(want) {
		t.Errorf("next poll %v, want %v", next.In(tokyo), want)
	}
}
