package dedup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

func entry(source, id string, fp uint64, seen time.Time) dynamo.FingerprintEntry {
	return dynamo.FingerprintEntry{Key: dynamo.ItemKey{SourceID: source, ItemID: id}, Fingerprint: fp, FirstSeen: seen}
}

func newDetector(t *testing.T, cfg Config) *Detector {
	t.Helper()
	d, err := NewDetector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// poll runs what the poller does for one source's new items.
func poll(d *Detector, items ...dynamo.FingerprintEntry) []dynamo.Duplicate {
	dups := d.Detect(items)
	d.Commit(items, dups)
	return dups
}

func TestDetectorCollapsesStoriesAcrossSources(t *testing.T) {
	d := newDetector(t, DefaultConfig())
	at := epoch
	original := entry("wire", "1", Fingerprint(recallTitle, recallDesc, ""), at)
	if dups := poll(d, original); len(dups) != 0 {
		t.Fatalf("the first copy is a duplicate: %v", dups)
	}
	for _, tc := range []struct {
		name, source, title, desc, prefix string
	}{
		{"identical copy", "citypost", recallTitle, recallDesc, ""},
		{"prefixed, marked-up copy", "techbeat", "TechBeat | " + recallTitle, "<p>" + recallDesc + "</p>", "TechBeat | "},
		{"lightly edited copy", "metroview", "Voltra recalls 85,000 electric SUVs over braking software fault", "Voltra is recalling about 85,000 Terra electric SUVs because a software fault can delay braking in cold weather, the carmaker said on Monday. Owners will get a free over-the-air update.", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at = at.Add(time.Hour)
			it := entry(tc.source, "x", Fingerprint(tc.title, tc.desc, tc.prefix), at)
			dups := poll(d, it)
			want := []dynamo.Duplicate{{Item: it.Key, Primary: original.Key, Distance: Distance(it.Fingerprint, original.Fingerprint)}}
			if !slices.Equal(dups, want) {
				t.Errorf("Detect = %v, want %v", dups, want)
			}
		})
	}
}

func TestDetectorKeepsSimilarTitlesOfDifferentStoriesApart(t *testing.T) {
	for _, withDescription := range []bool{true, false} {
		d := newDetector(t, DefaultConfig())
		desc16, desc17 := tenThingsDesc16, tenThingsDesc17
		if !withDescription {
			desc16, desc17 = "", ""
		}
		poll(d, entry("wire", "16", Fingerprint(tenThingsTitle16, desc16, ""), epoch))
		if dups := poll(d, entry("morningbrief", "17", Fingerprint(tenThingsTitle17, desc17, ""), epoch.Add(time.Hour))); len(dups) != 0 {
			t.Errorf("with description %v: November 17 recorded as a duplicate of November 16: %v", withDescription, dups)
		}
	}
}

func TestDetectorRules(t *testing.T) {
	const fp uint64 = 0xa5a5_5a5a_0f0f_f0f0
	near := fp ^ 0b111       // 3 bits from fp
	far := fp ^ (1<<20 - 1)  // 20 bits from fp
	chain := near ^ 0xff<<40 // 8 bits from near, 11 from fp
	cfg := Config{K: 9, Window: 24 * time.Hour}
	h := func(n int) time.Time { return epoch.Add(time.Duration(n) * time.Hour) }
	dup := func(item, primary dynamo.FingerprintEntry) dynamo.Duplicate {
		return dynamo.Duplicate{Item: item.Key, Primary: primary.Key, Distance: Distance(item.Fingerprint, primary.Fingerprint)}
	}
	a1 := entry("a", "1", fp, h(0))
	for _, tc := range []struct {
		name    string
		earlier [][]dynamo.FingerprintEntry // polls before, each committed
		batch   []dynamo.FingerprintEntry
		want    func() []dynamo.Duplicate
	}{
		{
			name:    "another source's earlier item is the primary",
			earlier: [][]dynamo.FingerprintEntry{{a1}},
			batch:   []dynamo.FingerprintEntry{entry("b", "1", near, h(1))},
			want:    func() []dynamo.Duplicate { return []dynamo.Duplicate{dup(entry("b", "1", near, h(1)), a1)} },
		},
		{
			name:    "the same source's items are not duplicates",
			earlier: [][]dynamo.FingerprintEntry{{a1}},
			batch:   []dynamo.FingerprintEntry{entry("a", "2", near, h(1)), entry("a", "3", fp, h(1))},
		},
		{
			name:    "farther than k is another story",
			earlier: [][]dynamo.FingerprintEntry{{a1}},
			batch:   []dynamo.FingerprintEntry{entry("b", "1", far, h(1))},
		},
		{
			name:    "a primary first seen before the window is not answered",
			earlier: [][]dynamo.FingerprintEntry{{a1}},
			batch:   []dynamo.FingerprintEntry{entry("b", "1", near, h(25))},
		},
		{
			name:    "a primary first seen at the window's start is",
			earlier: [][]dynamo.FingerprintEntry{{a1}},
			batch:   []dynamo.FingerprintEntry{entry("b", "1", near, h(24))},
			want:    func() []dynamo.Duplicate { return []dynamo.Duplicate{dup(entry("b", "1", near, h(24)), a1)} },
		},
		{
			name: "the earliest primary wins over a nearer later one",
			// b9 is 11 bits from a1 (another story), 5 from d1; d1 is 6 from a1.
			earlier: [][]dynamo.FingerprintEntry{{a1}, {entry("c", "1", far, h(1))}, {entry("b", "9", fp^0b111111^0b11111<<40, h(2))}},
			batch:   []dynamo.FingerprintEntry{entry("d", "1", fp^0b111111, h(3))},
			want:    func() []dynamo.Duplicate { return []dynamo.Duplicate{dup(entry("d", "1", fp^0b111111, h(3)), a1)} },
		},
		{
			name:    "duplicates are never primaries: no chains",
			earlier: [][]dynamo.FingerprintEntry{{a1}, {entry("b", "1", near, h(1))}},
			batch:   []dynamo.FingerprintEntry{entry("c", "1", chain, h(2))},
		},
		{
			name:  "items of one batch from different sources",
			batch: []dynamo.FingerprintEntry{entry("a", "1", fp, h(0)), entry("b", "1", near, h(0))},
			want: func() []dynamo.Duplicate {
				return []dynamo.Duplicate{dup(entry("b", "1", near, h(0)), entry("a", "1", fp, h(0)))}
			},
		},
		{
			name:    "items without a fingerprint are neither",
			earlier: [][]dynamo.FingerprintEntry{{entry("a", "1", 0, h(0))}},
			batch:   []dynamo.FingerprintEntry{entry("b", "1", 0, h(1))},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDetector(t, cfg)
			for _, p := range tc.earlier {
				poll(d, p...)
			}
			var want []dynamo.Duplicate
			if tc.want != nil {
				want = tc.want()
			}
			if got := d.Detect(tc.batch); !slices.Equal(got, want) {
				t.Errorf("Detect = %v, want %v", got, want)
			}
		})
	}
}

func TestDetectChangesNothingUntilCommit(t *testing.T) {
	d := newDetector(t, DefaultConfig())
	rolledBack := []dynamo.FingerprintEntry{entry("a", "1", 42, epoch)}
	if dups := d.Detect(rolledBack); len(dups) != 0 {
		t.Fatalf("Detect on an empty index = %v", dups)
	}
	// The transaction rolled back: no Commit. The item must not become a primary.
	if dups := d.Detect([]dynamo.FingerprintEntry{entry("b", "1", 42, epoch.Add(time.Minute))}); len(dups) != 0 {
		t.Errorf("an item never committed became a primary: %v", dups)
	}
	d.Commit(rolledBack, nil)
	if dups := d.Detect([]dynamo.FingerprintEntry{entry("b", "1", 42, epoch.Add(time.Minute))}); len(dups) != 1 {
		t.Errorf("after Commit: %v, want one duplicate", dups)
	}
}

func TestCommitExpiresItemsOutOfTheWindow(t *testing.T) {
	d := newDetector(t, Config{K: 3, Window: time.Hour})
	for i := range 2000 {
		poll(d, entry("a", fmt.Sprint(i), uint64(i)*0x9e3779b97f4a7c15|1, epoch.Add(time.Duration(i)*time.Minute)))
	}
	if st := d.Stats(); st.Entries > 2*60+headSize {
		t.Errorf("the index holds %d entries for a window of 60: %+v", st.Entries, st)
	}
}

// sliceSource is a FingerprintSource over entries held in memory, oldest
// first, as the archive's Fingerprints lists them.
type sliceSource []dynamo.FingerprintEntry

func (s sliceSource) Fingerprints(ctx context.Context, since time.Time, fn func(dynamo.FingerprintEntry) error) error {
	for _, e := range s {
		if e.FirstSeen.Before(since) {
			continue
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func TestLoadRebuildsTheSameIndex(t *testing.T) {
	set := loadPairs(t)
	var items []pairItem
	for _, g := range set.Groups {
		items = append(items, g.Items...)
	}
	cfg := DefaultConfig()
	var stored sliceSource
	live := newDetector(t, cfg)
	for i, it := range items {
		e := entry(it.Source, fmt.Sprint(i), Fingerprint(it.Title, it.Description, set.Sources[it.Source]), epoch.Add(time.Duration(i)*time.Minute))
		poll(live, e)
		stored = append(stored, e)
	}
	loaded := newDetector(t, cfg)
	if err := loaded.Load(context.Background(), stored, epoch); err != nil {
		t.Fatal(err)
	}
	// Loading again (a catch-up over a range already held) changes nothing.
	if err := loaded.Load(context.Background(), stored, epoch.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, want := loaded.Stats().Entries, live.Stats().Entries; got != want || got == 0 || got == len(stored) {
		t.Errorf("loaded index holds %d entries, the live one %d, of %d items", got, want, len(stored))
	}
	for _, it := range items {
		q := Fingerprint(it.Title, it.Description, "")
		probe := []dynamo.FingerprintEntry{entry("new-source", "q", q, epoch.Add(time.Duration(len(stored))*time.Minute))}
		if got, want := loaded.Detect(probe), live.Detect(probe); !slices.Equal(got, want) {
			t.Fatalf("after Load, Detect(%q) = %v, live detector %v", it.Title, got, want)
		}
	}
}

func TestLoadReportsErrors(t *testing.T) {
	d := newDetector(t, DefaultConfig())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := d.Load(ctx, sliceSource{entry("a", "1", 1, epoch)}, epoch)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg Config
		ok  bool
	}{
		{DefaultConfig(), true},
		{Config{K: 0, Window: time.Hour}, true},
		{Config{K: 64, Window: time.Hour}, true},
		{Config{K: -1, Window: time.Hour}, false},
		{Config{K: 65, Window: time.Hour}, false},
		{Config{K: 3, Window: 0}, false},
	} {
		err := tc.cfg.Validate()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, dynamo.ErrInvalid)) {
			t.Errorf("%+v.Validate() = %v, want ok: %v", tc.cfg, err, tc.ok)
		}
		if _, err := NewDetector(tc.cfg); (err == nil) != tc.ok {
			t.Errorf("NewDetector(%+v) = %v", tc.cfg, err)
		}
	}
}
