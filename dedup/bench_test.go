package dedup

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// benchWindow is the window size of the benchmarks: the target.
const benchWindow = 1_000_000

var (
	benchOnce    sync.Once
	benchEntries []dynamo.FingerprintEntry
	benchIndexes sync.Map // layout k → *Index holding benchEntries
)

// windowEntries returns benchWindow entries with random fingerprints, over
// 200 sources, first seen a second apart.
func windowEntries() []dynamo.FingerprintEntry {
	benchOnce.Do(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		benchEntries = make([]dynamo.FingerprintEntry, benchWindow)
		for i := range benchEntries {
			benchEntries[i] = dynamo.FingerprintEntry{
				Key:         dynamo.ItemKey{SourceID: fmt.Sprintf("source-%d", i%200), ItemID: fmt.Sprintf("item-%d", i)},
				Fingerprint: rng.Uint64(),
				FirstSeen:   epoch.Add(time.Duration(i) * time.Second),
			}
		}
	})
	return benchEntries
}

func windowIndex(k int) *Index {
	if ix, ok := benchIndexes.Load(k); ok {
		return ix.(*Index)
	}
	ix := NewIndex(k)
	for _, e := range windowEntries() {
		ix.Add(e)
	}
	benchIndexes.Store(k, ix)
	return ix
}

// BenchmarkSearch compares Index.Search in a window of a million
// fingerprints with a linear scan of the same fingerprints (a tight loop
// over a slice of them, the cheapest scan there is), at k = 3 and at
// DefaultK. Queries are new fingerprints, as most new items are stories
// not seen before; a query near an indexed one costs the same plus its few
// answers. docs/benchmarks/dedup.md has the figures.
func BenchmarkSearch(b *testing.B) {
	entries := windowEntries()
	fps := make([]uint64, len(entries))
	for i, e := range entries {
		fps[i] = e.Fingerprint
	}
	rng := rand.New(rand.NewPCG(3, 4))
	queries := make([]uint64, 1024)
	for i := range queries {
		queries[i] = rng.Uint64()
	}
	for _, k := range []int{3, DefaultK, 16, 20} {
		b.Run(fmt.Sprintf("window=%d/k=%d/index", benchWindow, k), func(b *testing.B) {
			ix := windowIndex(k)
			b.ResetTimer()
			found := 0
			for i := 0; b.Loop(); i++ {
				found += len(ix.Search(queries[i%len(queries)], k, time.Time{}))
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
			b.ReportMetric(float64(found)/float64(b.N), "matches/lookup")
			st := ix.Stats()
			b.ReportMetric(float64(st.Bytes)/float64(st.Entries), "index-bytes/entry")
			b.ReportMetric(float64(st.Segments), "segments")
		})
		b.Run(fmt.Sprintf("window=%d/k=%d/scan", benchWindow, k), func(b *testing.B) {
			found := 0
			for i := 0; b.Loop(); i++ {
				q := queries[i%len(queries)]
				for _, fp := range fps {
					if bits.OnesCount64(fp^q) <= k {
						found++
					}
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
			b.ReportMetric(float64(found)/float64(b.N), "matches/lookup")
		})
		// The same two, one lookup of each in turn, so that both see the
		// same machine: on a shared one, load changes within seconds, and
		// the ratio of separate runs says more about the load than about
		// the index. Medians, because a lookup the scheduler interrupts
		// takes a time slice longer. Each scan also evicts the index from
		// the processor's caches, as other work does between lookups in
		// production, so the index is measured cold. speedup is the scan's
		// median over the index's.
		b.Run(fmt.Sprintf("window=%d/k=%d/interleaved", benchWindow, k), func(b *testing.B) {
			ix := windowIndex(k)
			var inIndex, inScan []time.Duration
			for i := 0; b.Loop(); i++ {
				q := queries[i%len(queries)]
				start := time.Now()
				got := len(ix.Search(q, k, time.Time{}))
				mid := time.Now()
				want := 0
				for _, fp := range fps {
					if bits.OnesCount64(fp^q) <= k {
						want++
					}
				}
				inIndex, inScan = append(inIndex, mid.Sub(start)), append(inScan, time.Since(mid))
				if got != want {
					b.Fatalf("query %016x: index found %d, scan %d", q, got, want)
				}
			}
			index, scan := median(inIndex), median(inScan)
			b.ReportMetric(float64(index.Nanoseconds()), "index-median-ns")
			b.ReportMetric(float64(scan.Nanoseconds()), "scan-median-ns")
			b.ReportMetric(float64(time.Second)/float64(index), "index-lookups/s")
			b.ReportMetric(float64(time.Second)/float64(scan), "scan-lookups/s")
			b.ReportMetric(float64(scan)/float64(index), "speedup")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkAdd measures filling a window of a million entries one at a
// time, as Detector.Load does on start, sealing and merging included.
func BenchmarkAdd(b *testing.B) {
	entries := windowEntries()
	for b.Loop() {
		ix := NewIndex(DefaultK)
		for _, e := range entries {
			ix.Add(e)
		}
	}
	b.ReportMetric(float64(b.N*len(entries))/b.Elapsed().Seconds(), "adds/s")
}

// BenchmarkFingerprint measures fingerprinting a typical item: a headline
// and a two-sentence HTML description.
func BenchmarkFingerprint(b *testing.B) {
	desc := "<p>" + recallDesc + "</p>"
	for b.Loop() {
		Fingerprint("TechBeat | "+recallTitle, desc, "TechBeat | ")
	}
}
