package dedup

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// windowReference is the obvious window: a slice scanned in full.
type windowReference struct {
	entries   []Entry
	forgotten map[dynamo.ItemKey]bool // entries of a source forgotten after they were added
	cutoff    time.Time
}

func (r *windowReference) forget(sourceID string) {
	for _, e := range r.entries {
		if e.Key.SourceID == sourceID {
			r.forgotten[e.Key] = true
		}
	}
}

func (r *windowReference) search(keys []uint32, since time.Time, skip string) []string {
	var out []string
	for _, e := range r.entries {
		if e.FirstSeen.Before(since) || e.FirstSeen.Before(r.cutoff) || r.forgotten[e.Key] || e.Key.SourceID == skip {
			continue
		}
		if shareKey(keys, e.Keys) {
			out = append(out, e.Key.SourceID+"/"+e.Key.ItemID)
		}
	}
	slices.Sort(out)
	return out
}

func searchAll(w *Window, keys []uint32, since time.Time, skip string) []string {
	var out []string
	w.Search(keys, since, skip, func(c *Candidate) {
		out = append(out, c.SourceID+"/"+c.ItemID())
	})
	slices.Sort(out)
	return out
}

// syntheticEntries returns n entries over 50 sources, a minute apart, a
// third of them light edits of an earlier one, with their keys; one in
// seven lists pairings (of fixtures or results).
func syntheticEntries(syn *synthetic, n int) []Entry {
	out := make([]Entry, n)
	for i := range out {
		p := syn.profile()
		if i > 0 && i%3 == 0 {
			p = syn.edit(out[syn.rng.IntN(i)].Profile, 3)
		}
		if i%7 == 0 {
			p.pairings = []uint32{uint32(i), uint32(i) + 1 + uint32(i%3)}
		}
		out[i] = Entry{
			Key:       dynamo.ItemKey{SourceID: fmt.Sprintf("s%d", i%50), ItemID: fmt.Sprintf("i%d", i)},
			FirstSeen: epoch.Add(time.Duration(i) * time.Minute),
			Story:     uint32(i + 1),
			Profile:   p,
			Keys:      defaultLSH.keys(p, DefaultThresholds),
		}
	}
	return out
}

// TestWindowSearchEqualsScan checks that the window proposes exactly the
// entries a full scan finds sharing a key, through sealing, merging,
// expiry and forgotten sources.
func TestWindowSearchEqualsScan(t *testing.T) {
	syn := newSynthetic(7)
	entries := syntheticEntries(syn, 5*windowHeadSize+123)
	w := NewWindow()
	ref := &windowReference{forgotten: map[dynamo.ItemKey]bool{}}
	check := func(stage string) {
		t.Helper()
		for q := 0; q < 200; q++ {
			e := entries[syn.rng.IntN(len(entries))]
			since := e.FirstSeen.Add(-time.Duration(syn.rng.IntN(3000)) * time.Minute)
			skip := fmt.Sprintf("s%d", syn.rng.IntN(60))
			got, want := searchAll(w, e.Keys, since, skip), ref.search(e.Keys, since, skip)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: query %s: window proposes %d entries, the scan %d", stage, e.Key.ItemID, len(got), len(want))
			}
			w.Search(e.Keys, since, skip, func(c *Candidate) {
				if c.SourceID == e.Key.SourceID && c.ItemID() == e.Key.ItemID && !sameProfile(c.Profile, e.Profile, 0) {
					t.Fatalf("%s: %s comes back as %+v, was added as %+v", stage, e.Key.ItemID, c.Profile, e.Profile)
				}
			})
		}
	}
	for i, e := range entries {
		w.Add(e)
		ref.entries = append(ref.entries, e)
		if i == 2500 {
			check("half filled")
		}
	}
	check("filled")
	if st := w.Stats(); st.Entries != len(entries) || st.Segments == 0 {
		t.Fatalf("stats %+v after %d entries", st, len(entries))
	}
	cut := entries[len(entries)/2].FirstSeen
	w.Expire(cut)
	ref.cutoff = cut
	check("after expiry")
	w.ForgetSource("s7")
	ref.forget("s7")
	check("after forgetting a source")
	for _, e := range syntheticEntries(syn, 2*windowHeadSize) {
		e.FirstSeen = e.FirstSeen.Add(time.Duration(len(entries)) * time.Minute)
		e.Key.ItemID += "-later"
		w.Add(e)
		ref.entries = append(ref.entries, e)
	}
	check("after adding past the cutoff, the forgotten source's new entries kept")
}

// TestWindowDropsExpiredMemory checks that expiring everything frees the
// segments.
func TestWindowDropsExpiredMemory(t *testing.T) {
	w := NewWindow()
	entries := syntheticEntries(newSynthetic(3), 3*windowHeadSize)
	for _, e := range entries {
		w.Add(e)
	}
	w.Expire(entries[len(entries)-1].FirstSeen.Add(time.Minute))
	if st := w.Stats(); st.Segments != 0 {
		t.Errorf("after expiring everything: %+v", st)
	}
	if got := searchAll(w, entries[0].Keys, time.Time{}, ""); len(got) != 0 {
		t.Errorf("expired entries proposed: %v", got)
	}
}

// TestWindowConcurrentSearchesAndAdds runs searches while entries are
// added, sealed and merged (run with -race).
func TestWindowConcurrentSearchesAndAdds(t *testing.T) {
	entries := syntheticEntries(newSynthetic(5), 4*windowHeadSize)
	w := NewWindow()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(entries); i += 4 {
				w.Add(entries[i])
				searchAll(w, entries[i/2].Keys, time.Time{}, "")
			}
		}()
	}
	wg.Wait()
	ref := &windowReference{entries: entries}
	for _, e := range entries[:100] {
		if got, want := searchAll(w, e.Keys, time.Time{}, ""), ref.search(e.Keys, time.Time{}, ""); !slices.Equal(got, want) {
			t.Fatalf("after concurrent adds, %s: %d proposed, want %d", e.Key.ItemID, len(got), len(want))
		}
	}
}
