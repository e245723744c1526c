package policy

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/internal/cputime"
)

// benchFeeds are n feeds shaped like measured ones: mostly under 10
// postings a day, capacity 10–15.
func benchFeeds(n int) []Feed {
	rng := rand.New(rand.NewPCG(11, 12))
	out := make([]Feed, n)
	for i := range out {
		out[i] = Feed{Rate: 0.1 + 10*rng.Float64()*rng.Float64(), Capacity: 10 + rng.IntN(6), Weight: 1}
		if i%20 == 0 {
			out[i].Rate *= 30
		}
	}
	return out
}

// The allocation policies on 10,000 feeds with 24 polls each a day; the
// poll-by-poll greedy of the tests (naiveMinMissing) is the baseline the
// bulk greedy is measured against, on a budget 100 times smaller.
func BenchmarkAllocate(b *testing.B) {
	feeds := benchFeeds(10_000)
	for _, p := range []string{Uniform, MinDelay, MinMissing} {
		b.Run(p, func(b *testing.B) {
			for b.Loop() {
				if _, err := Allocate(p, 240_000, feeds); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	small := feeds[:1000]
	b.Run("min-missing-bulk-1k", func(b *testing.B) {
		for b.Loop() {
			Allocate(MinMissing, 24_000, small)
		}
	})
	b.Run("min-missing-naive-1k", func(b *testing.B) {
		for b.Loop() {
			naiveMinMissing(24_000, small)
		}
	})
}

// benchSources are n sources with two weeks of learnt state.
func benchSources(n int) []Source {
	rng := rand.New(rand.NewPCG(13, 14))
	sources := make([]Source, n)
	for i := range sources {
		s := &State{}
		rate := 0.1 + 10*rng.Float64()*rng.Float64()
		for h := 0; h < 14*24; h += 6 {
			at := t0.Add(time.Duration(h)*time.Hour + time.Duration(rng.IntN(3600))*time.Second)
			s.Learn(Observation{At: at, NewItems: int(rate/4 + rng.Float64()), ItemsSeen: 12, Changed: true})
		}
		sources[i] = Source{ID: string(rune(i)), State: s}
	}
	return sources
}

// One cycle's Plan over 100,000 sources, per policy; flat, which only
// looks at each source's last poll, is the baseline. Each reports the CPU
// time per Plan (cpu-ms/op) beside its wall time: on the shared machine
// the wall time says as much about the others' load as about the plan.
func BenchmarkPlan(b *testing.B) {
	sources := benchSources(100_000)
	now := t0.AddDate(0, 0, 14).Add(7 * time.Hour)
	for _, name := range Names() {
		p, err := ByName(name, Config{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			from, ok := cputime.Process()
			for b.Loop() {
				p.Plan(sources, now)
			}
			if to, _ := cputime.Process(); ok {
				b.ReportMetric(float64(to-from)/float64(b.N)/1e6, "cpu-ms/op")
			}
		})
	}
}

// Learn, after each poll, on a source with two weeks of state; its JSON
// round trip, which the poller does on every poll, is the baseline.
func BenchmarkLearn(b *testing.B) {
	s := benchSources(1)[0].State
	at := s.LastRetrieval
	b.Run("learn", func(b *testing.B) {
		for b.Loop() {
			c := *s
			c.Learn(Observation{At: at.Add(3 * time.Hour), NewItems: 2, ItemsSeen: 12, Changed: true})
		}
	})
	b.Run("json-round-trip", func(b *testing.B) {
		for b.Loop() {
			raw, _ := MarshalState(*s)
			LoadState(raw)
		}
	})
}
