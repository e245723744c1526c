package dedup

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// storiesBenchWindow is the window size of the benchmark: the issue's
// target.
const storiesBenchWindow = 1_000_000

var (
	benchWindowOnce sync.Once
	benchWin        *Window
	benchWinEntries []Entry
	benchWinHeap    uint64 // heap the window holds, measured after a GC
)

// syntheticWindow fills a window with storiesBenchWindow synthetic items
// over 2,000 sources, a second apart, one in ten a light edit of an
// earlier one, as a busy three days of feeds would.
func syntheticWindow() (*Window, []Entry) {
	benchWindowOnce.Do(func() {
		syn := newSynthetic(11)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		benchWin = NewWindow()
		benchWinEntries = make([]Entry, 0, 4096)
		for i := range storiesBenchWindow {
			p := syn.profile()
			if i > 0 && i%10 == 0 {
				p = syn.edit(benchWin.randomProfile(syn, i), 3)
			}
			e := Entry{
				Key:       dynamo.ItemKey{SourceID: fmt.Sprintf("source-%d", i%2000), ItemID: fmt.Sprintf("https://example.com/news/item-%d", i)},
				FirstSeen: epoch.Add(time.Duration(i) * time.Second),
				Story:     uint32(i + 1),
				Profile:   p,
				Keys:      defaultLSH.keys(p, DefaultThresholds),
			}
			benchWin.Add(e)
			if i%(storiesBenchWindow/4096) == 0 {
				benchWinEntries = append(benchWinEntries, e)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		benchWinHeap = after.HeapInuse - before.HeapInuse
	})
	return benchWin, benchWinEntries
}

// randomProfile returns a copy of the profile of one of the first n
// entries held (the benchmark's way to make light edits of old items).
func (w *Window) randomProfile(syn *synthetic, n int) Profile {
	w.mu.RLock()
	defer w.mu.RUnlock()
	row := syn.rng.IntN(n)
	for _, s := range w.segs {
		if row < s.len() {
			p := s.profile(uint32(row))
			p.terms = slices.Clone(p.terms)
			return p
		}
		row -= s.len()
	}
	if row < w.head.len() {
		p := w.head.profile(uint32(row))
		p.terms = slices.Clone(p.terms)
		return p
	}
	return syn.profile()
}

// scanDecide is the linear scan the index is measured against: every held
// entry decided with the same thresholds. It returns the matching entries.
func scanDecide(w *Window, q Profile, th Thresholds) []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var out []string
	scan := func(c *entryColumns) {
		for row := range c.seen {
			if th.Compare(q, c.profile(uint32(row))).Same {
				out = append(out, string(c.id(uint32(row))))
			}
		}
	}
	for _, s := range w.segs {
		scan(&s.entryColumns)
	}
	scan(&w.head.entryColumns)
	return out
}

// indexDecide is the lookup: the query's keys, the window's candidates,
// and the decision on each.
func indexDecide(w *Window, q Profile, th Thresholds) (matches []string, candidates int) {
	keys := defaultLSH.keys(q, th)
	w.Search(keys, time.Time{}, "", func(c *Candidate) {
		candidates++
		if th.Compare(q, c.Profile).Same {
			matches = append(matches, c.ItemID())
		}
	})
	return matches, candidates
}

// BenchmarkStoriesLookup compares a lookup in a window of a million items
// (keys, candidates and a decision on each) with a linear scan deciding
// every item with the same thresholds, one of each in turn so that both
// see the same machine: half the queries are new stories, half light
// edits of a held item. Medians, because a lookup the scheduler interrupts
// takes a time slice longer; each scan also evicts the index from the
// caches, so the index is measured cold. It reports the speedup (the
// scan's median over the lookup's), the candidates a lookup decides, the
// share of the scan's matches the lookup found, and the window's memory.
// docs/benchmarks/dedup.md has the figures.
func BenchmarkStoriesLookup(b *testing.B) {
	w, held := syntheticWindow()
	th := DefaultThresholds
	syn := newSynthetic(99)
	queries := make([]Profile, 256)
	for i := range queries {
		if i%2 == 0 {
			queries[i] = syn.profile()
		} else {
			queries[i] = syn.edit(held[syn.rng.IntN(len(held))].Profile, 3)
		}
	}
	b.Run(fmt.Sprintf("window=%d/interleaved", storiesBenchWindow), func(b *testing.B) {
		var inIndex, inScan []time.Duration
		candidates, found, want := 0, 0, 0
		for i := 0; b.Loop(); i++ {
			q := queries[i%len(queries)]
			start := time.Now()
			got, cands := indexDecide(w, q, th)
			mid := time.Now()
			all := scanDecide(w, q, th)
			inIndex, inScan = append(inIndex, mid.Sub(start)), append(inScan, time.Since(mid))
			candidates += cands
			want += len(all)
			for _, id := range got {
				if slices.Contains(all, id) {
					found++
				}
			}
			if len(got) > len(all) {
				b.Fatalf("the lookup found %d matches, the scan %d", len(got), len(all))
			}
		}
		index, scan := median(inIndex), median(inScan)
		b.ReportMetric(float64(index.Microseconds()), "lookup-median-µs")
		b.ReportMetric(float64(scan.Microseconds()), "scan-median-µs")
		b.ReportMetric(float64(scan)/float64(index), "speedup")
		b.ReportMetric(float64(candidates)/float64(b.N), "candidates/lookup")
		if want > 0 {
			b.ReportMetric(float64(found)/float64(want), "matches-found")
		}
		st := w.Stats()
		b.ReportMetric(float64(st.Bytes)/float64(st.Entries), "window-bytes/item")
		b.ReportMetric(float64(benchWinHeap)/float64(st.Entries), "heap-bytes/item")
		b.ReportMetric(float64(st.Keys)/float64(st.Entries), "keys/item")
		b.ReportMetric(float64(st.Segments), "segments")
	})
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkStoriesFill measures filling a window of a million items one at
// a time, as Stories.Load does on start (keys computed, sealing and
// merging included).
func BenchmarkStoriesFill(b *testing.B) {
	syn := newSynthetic(13)
	profiles := make([]Profile, 100_000)
	for i := range profiles {
		profiles[i] = syn.profile()
	}
	for b.Loop() {
		w := NewWindow()
		for i := range storiesBenchWindow {
			p := profiles[i%len(profiles)]
			w.Add(Entry{
				Key:       dynamo.ItemKey{SourceID: "s", ItemID: fmt.Sprint(i)},
				FirstSeen: epoch.Add(time.Duration(i) * time.Second),
				Profile:   p,
				Keys:      defaultLSH.keys(p, DefaultThresholds),
			})
		}
	}
	b.ReportMetric(float64(b.N*storiesBenchWindow)/b.Elapsed().Seconds(), "adds/s")
}

// BenchmarkProfile measures profiling a typical item: a headline with a
// source prefix and a two-sentence HTML description.
func BenchmarkProfile(b *testing.B) {
	desc := "<p>" + kenyaDescription + "</p>"
	for b.Loop() {
		NewProfile(kenyaTitleCopy, desc, "Reuters:", nil)
	}
}
