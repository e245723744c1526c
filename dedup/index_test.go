package dedup

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// reference is the linear scan that Index must always agree with.
type reference struct {
	held      map[dynamo.FingerprintEntry]bool
	entries   []dynamo.FingerprintEntry
	cutoff    time.Time
	forgotten map[int]bool // positions in entries whose source was forgotten
}

func (r *reference) add(e dynamo.FingerprintEntry) {
	held := dynamo.FingerprintEntry{Key: e.Key, Fingerprint: e.Fingerprint}
	if r.held[held] {
		return
	}
	r.held[held] = true
	r.entries = append(r.entries, e)
}

func newReference() *reference {
	return &reference{held: map[dynamo.FingerprintEntry]bool{}, forgotten: map[int]bool{}}
}

func (r *reference) forget(sourceID string) {
	for i, e := range r.entries {
		if e.Key.SourceID == sourceID {
			r.forgotten[i] = true
		}
	}
}

func (r *reference) search(fp uint64, k int, since time.Time) []Match {
	var out []Match
	for i, e := range r.entries {
		d := bits.OnesCount64(e.Fingerprint ^ fp)
		if d <= k && !e.FirstSeen.Before(since) && !e.FirstSeen.Before(r.cutoff) && !r.forgotten[i] {
			out = append(out, Match{FingerprintEntry: e, Distance: d})
		}
	}
	slices.SortFunc(out, compareMatches)
	return out
}

var epoch = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// randomEntries returns n entries over a few sources, first seen in order,
// a third of them near-copies (a few bits flipped) of an earlier entry so
// that searches at small distances have answers.
func randomEntries(rng *rand.Rand, n int) []dynamo.FingerprintEntry {
	out := make([]dynamo.FingerprintEntry, n)
	for i := range out {
		fp := rng.Uint64()
		if i > 0 && rng.IntN(3) == 0 {
			fp = flipBits(rng, out[rng.IntN(i)].Fingerprint, rng.IntN(14))
		}
		out[i] = dynamo.FingerprintEntry{
			Key:         dynamo.ItemKey{SourceID: fmt.Sprintf("src%d", rng.IntN(7)), ItemID: fmt.Sprintf("item-%d", i)},
			Fingerprint: fp,
			FirstSeen:   epoch.Add(time.Duration(i) * time.Minute),
		}
	}
	return out
}

// flipBits flips n distinct random bits of fp.
func flipBits(rng *rand.Rand, fp uint64, n int) uint64 {
	for _, b := range rng.Perm(64)[:n] {
		fp ^= 1 << b
	}
	return fp
}

// queriesNear returns queries at and near the given entries' fingerprints,
// and a few random ones.
func queriesNear(rng *rand.Rand, entries []dynamo.FingerprintEntry, n, maxFlips int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		if i%5 == 4 {
			out[i] = rng.Uint64()
			continue
		}
		out[i] = flipBits(rng, entries[rng.IntN(len(entries))].Fingerprint, rng.IntN(maxFlips+1))
	}
	return out
}

func assertSameAnswers(t *testing.T, ix *Index, ref *reference, q uint64, k int, since time.Time) int {
	t.Helper()
	got, want := ix.Search(q, k, since), ref.search(q, k, since)
	if !slices.EqualFunc(got, want, func(a, b Match) bool {
		return a.Key == b.Key && a.Fingerprint == b.Fingerprint && a.FirstSeen.Equal(b.FirstSeen) && a.Distance == b.Distance
	}) {
		t.Fatalf("Search(%016x, k=%d, since %v): %d matches, linear scan %d\nindex: %v\nscan:  %v", q, k, since, len(got), len(want), got, want)
	}
	return len(want)
}

// usesTables reports whether some segment is searched through its tables at
// distance k, so that a test comparing with the scan does test them.
func usesTables(ix *Index, k int) bool {
	for _, s := range ix.segs {
		if _, ok := s.plan(k); ok {
			return true
		}
	}
	return false
}

func TestSearchEqualsLinearScanForEveryK(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		for _, layoutK := range []int{0, 3, 8, 12} {
			t.Run(fmt.Sprintf("seed=%d/layout-k=%d", seed, layoutK), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(layoutK)))
				entries := randomEntries(rng, 80000)
				ix, ref := NewIndex(layoutK), newReference()
				for _, e := range entries {
					ix.Add(e)
					ref.add(e)
				}
				matches := 0
				for k := 0; k <= 12; k++ {
					if !usesTables(ix, k) {
						t.Errorf("no segment uses its tables at k=%d: the test would compare a scan with a scan", k)
					}
					for _, q := range queriesNear(rng, entries, 60, k+2) {
						since := epoch.Add(time.Duration(rng.IntN(len(entries))) * time.Minute / 4)
						matches += assertSameAnswers(t, ix, ref, q, k, since)
					}
				}
				if matches < 300 {
					t.Errorf("only %d matches in all: the queries test too little", matches)
				}
			})
		}
	}
}

func TestSearchEqualsLinearScanForAnyK(t *testing.T) {
	for seed := uint64(10); seed < 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		layoutK := rng.IntN(65)
		entries := randomEntries(rng, 300+rng.IntN(3000))
		ix, ref := NewIndex(layoutK), newReference()
		for _, e := range entries {
			ix.Add(e)
			ref.add(e)
		}
		for range 40 {
			k := rng.IntN(65)
			for _, q := range queriesNear(rng, entries, 5, 64) {
				assertSameAnswers(t, ix, ref, q, k, time.Time{})
			}
		}
	}
}

func TestAddIgnoresEntriesAlreadyHeld(t *testing.T) {
	ix := NewIndex(3)
	e := dynamo.FingerprintEntry{Key: dynamo.ItemKey{SourceID: "a", ItemID: "1"}, Fingerprint: 0xfeed, FirstSeen: epoch}
	if !ix.Add(e) {
		t.Fatal("first Add reported nothing added")
	}
	for range headSize * 3 { // across sealing and merging
		ix.Add(dynamo.FingerprintEntry{Key: dynamo.ItemKey{SourceID: "b", ItemID: fmt.Sprint(ix.Stats().Entries)}, Fingerprint: uint64(ix.Stats().Entries) << 20, FirstSeen: epoch})
	}
	if ix.Add(e) {
		t.Error("the same entry was added twice")
	}
	if got := ix.Search(e.Fingerprint, 0, time.Time{}); len(got) != 1 || got[0].Key != e.Key {
		t.Errorf("Search = %v, want the entry once", got)
	}
	other := e
	other.Key.SourceID = "c"
	if !ix.Add(other) {
		t.Error("an entry with the same item id in another source was not added")
	}
}

func TestExpireAndForgetMatchLinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	entries := randomEntries(rng, 12000)
	ix, ref := NewIndex(8), newReference()
	check := func(stage string) {
		t.Helper()
		for _, q := range queriesNear(rng, entries, 200, 10) {
			assertSameAnswers(t, ix, ref, q, 8, time.Time{})
		}
	}
	for i, e := range entries {
		ix.Add(e)
		ref.add(e)
		switch i {
		case 4000:
			ix.ForgetSource("src3")
			ref.forget("src3")
			check("after forgetting a source")
		case 6000, 9000, 11000:
			cutoff := entries[i-3000].FirstSeen
			ix.Expire(cutoff)
			ref.cutoff = cutoff
			check(fmt.Sprintf("after expiring entries before %d", i-3000))
		}
	}
	check("at the end")

	held := ix.Stats().Entries
	live := 0
	for i, e := range ref.entries {
		if !e.FirstSeen.Before(ref.cutoff) && !ref.forgotten[i] {
			live++
		}
	}
	if held > 2*live {
		t.Errorf("index holds %d entries for %d live ones: expired entries are not dropped", held, live)
	}
	// An entry first seen before the cutoff is not added.
	if ix.Add(dynamo.FingerprintEntry{Key: dynamo.ItemKey{SourceID: "z", ItemID: "old"}, Fingerprint: 1, FirstSeen: epoch}) {
		t.Error("an entry older than the cutoff was added")
	}
	// A source added again after being forgotten is answered.
	again := dynamo.FingerprintEntry{Key: dynamo.ItemKey{SourceID: "src3", ItemID: "new"}, Fingerprint: 42, FirstSeen: entries[len(entries)-1].FirstSeen}
	ix.Add(again)
	if got := ix.Search(42, 0, time.Time{}); len(got) != 1 || got[0].Key != again.Key {
		t.Errorf("Search after re-adding a forgotten source = %v", got)
	}
}

func TestExpireDropsWholeIndex(t *testing.T) {
	ix := NewIndex(8)
	rng := rand.New(rand.NewPCG(3, 3))
	for _, e := range randomEntries(rng, 5000) {
		ix.Add(e)
	}
	ix.Expire(epoch.Add(365 * 24 * time.Hour))
	if st := ix.Stats(); st.Segments != 0 {
		t.Errorf("after expiring everything: %+v, want no segments", st)
	}
}

// TestConcurrentSearchesAndAdds runs searches while entries are added,
// sealed and merged; run it with -race. Every answer must hold the entries
// added before the search started (and may hold later ones).
func TestConcurrentSearchesAndAdds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	entries := randomEntries(rng, 20000)
	ix := NewIndex(8)
	var added sync.WaitGroup
	progress := make(chan int, len(entries))
	var expiredBefore atomic.Int64 // entries before this position may be expired
	added.Add(1)
	go func() {
		defer added.Done()
		for i, e := range entries {
			ix.Add(e)
			progress <- i
			if i%5000 == 4999 {
				expiredBefore.Store(int64(i - 4000))
				ix.Expire(entries[i-4000].FirstSeen)
			}
		}
		close(progress)
	}()
	var searchers sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 3 {
		searchers.Add(1)
		go func() {
			defer searchers.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := range progress {
				j := rng.IntN(i + 1)
				e := entries[j]
				found := slices.ContainsFunc(ix.Search(e.Fingerprint, 8, time.Time{}), func(m Match) bool { return m.Key == e.Key })
				if !found && int64(j) >= expiredBefore.Load() {
					errs <- fmt.Errorf("entry %s added before the search was not found", e.Key.ItemID)
					return
				}
			}
		}()
	}
	added.Wait()
	searchers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestNextCombinationEnumeratesEveryMask(t *testing.T) {
	const width = 10
	for weight := 1; weight <= width; weight++ {
		count := 0
		prev := uint64(0)
		for mask := uint64(1)<<weight - 1; mask < 1<<width; mask = nextCombination(mask) {
			if bits.OnesCount64(mask) != weight || mask <= prev {
				t.Fatalf("weight %d: mask %b after %b", weight, mask, prev)
			}
			prev = mask
			count++
		}
		if want := int(withinRadius[width][weight] - withinRadius[width][weight-1]); count != want {
			t.Errorf("weight %d: %d masks, want C(%d,%d) = %d", weight, count, width, weight, want)
		}
	}
}
