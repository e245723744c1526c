package dedup

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// Defaults for Config, chosen with the labelled set in testdata (see
// docs/DEDUP.md for the measurements).
const (
	// DefaultK is the largest Hamming distance at which two items are the
	// same story: the largest k at which no two different stories of the
	// labelled set match, under any of 16 hash functions, and unrelated
	// items match fewer than once in 50 new items in a window of a million
	// (recall 0.58 there: every copy, 86% of light edits, 18% of rewrites).
	DefaultK = 9
	// DefaultWindow is how long after it was first seen an item can be the
	// primary of a duplicate: wire stories are picked up within hours, and a
	// few days cover weekends and slow sources, while a longer window only
	// lets daily and weekly templates ("10 things to know today") match
	// their earlier editions.
	DefaultWindow = 3 * 24 * time.Hour
)

// Config says how near and how recent a primary must be.
type Config struct {
	K      int           // largest Hamming distance between a duplicate and its primary, 0 to 64
	Window time.Duration // a primary was first seen at most this long before its duplicate
}

// DefaultConfig returns DefaultK and DefaultWindow.
func DefaultConfig() Config { return Config{K: DefaultK, Window: DefaultWindow} }

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	if c.K < 0 || c.K > 64 {
		return fmt.Errorf("dedup: k must be from 0 to 64, not %d: %w", c.K, dynamo.ErrInvalid)
	}
	if c.Window <= 0 {
		return fmt.Errorf("dedup: window must be positive, not %s: %w", c.Window, dynamo.ErrInvalid)
	}
	return nil
}

// FingerprintSource is where a Detector reloads its index from:
// dynamo.ArchiveStore satisfies it.
type FingerprintSource interface {
	// Fingerprints calls fn for every item first seen at or after since
	// that has a fingerprint, oldest first.
	Fingerprints(ctx context.Context, since time.Time, fn func(dynamo.FingerprintEntry) error) error
}

// Detector decides which new items are near-duplicates of a story another
// source carried first (SPEC §8). The poller calls Detect inside the store
// transaction that records a poll, and Commit once that transaction has
// committed, so that items that were never stored never become primaries.
//
// The rules, where the spec is silent:
//   - An item's primary is the earliest item (ties: the nearest, then the
//     smallest key) within K of it, from another source, first seen at most
//     Window before it. Near-duplicates within one source (a page repeating
//     a story, a feed re-posting it) are not recorded: the spec counts
//     duplicates of another source's items, and a source's own archive
//     should list what it published.
//   - Primaries are never duplicates themselves: only items found to be no
//     duplicate are indexed, so there are no chains, and each story has one
//     primary that every copy names.
//   - Items without a fingerprint (0: no text) are neither.
type Detector struct {
	cfg Config
	ix  *Index

	mu     sync.Mutex
	newest time.Time // latest first seen committed; the window ends there
}

// NewDetector returns a detector with an empty index; Load fills it from
// the store.
func NewDetector(cfg Config) (*Detector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Detector{cfg: cfg, ix: NewIndex(cfg.K)}, nil
}

// Config returns the detector's configuration.
func (d *Detector) Config() Config { return d.cfg }

// Detect returns the duplicates to record among items (normally one
// source's new items from one poll, oldest first). It changes nothing, so it
// is safe inside a transaction that may roll back. Items of the batch from
// different sources can be each other's primaries.
func (d *Detector) Detect(items []dynamo.FingerprintEntry) []dynamo.Duplicate {
	var dups []dynamo.Duplicate
	var pending []dynamo.FingerprintEntry // the batch's primaries so far
	for _, it := range items {
		if it.Fingerprint == 0 {
			continue
		}
		if p, ok := d.primary(it, pending); ok {
			dups = append(dups, dynamo.Duplicate{Item: it.Key, Primary: p.Key, Distance: p.Distance})
		} else {
			pending = append(pending, it)
		}
	}
	return dups
}

// primary finds its primary among the indexed items and the batch's.
func (d *Detector) primary(it dynamo.FingerprintEntry, pending []dynamo.FingerprintEntry) (Match, bool) {
	since := it.FirstSeen.Add(-d.cfg.Window)
	candidates := d.ix.Search(it.Fingerprint, d.cfg.K, since)
	for _, p := range pending {
		if dist := Distance(p.Fingerprint, it.Fingerprint); dist <= d.cfg.K && !p.FirstSeen.Before(since) {
			candidates = append(candidates, Match{FingerprintEntry: p, Distance: dist})
		}
	}
	candidates = slices.DeleteFunc(candidates, func(m Match) bool { return m.Key.SourceID == it.Key.SourceID })
	if len(candidates) == 0 {
		return Match{}, false
	}
	return slices.MinFunc(candidates, compareMatches), true
}

// Commit indexes the items that dups (Detect's answer for them) does not
// name as duplicates, once they are stored, and expires the items that fell
// out of the window.
func (d *Detector) Commit(items []dynamo.FingerprintEntry, dups []dynamo.Duplicate) {
	isDup := make(map[dynamo.ItemKey]bool, len(dups))
	for _, dup := range dups {
		isDup[dup.Item] = true
	}
	latest := time.Time{}
	for _, it := range items {
		if it.Fingerprint != 0 && !isDup[it.Key] {
			d.ix.Add(it)
		}
		if it.FirstSeen.After(latest) {
			latest = it.FirstSeen
		}
	}
	d.mu.Lock()
	if latest.After(d.newest) {
		d.newest = latest
	}
	cutoff := d.newest.Add(-d.cfg.Window)
	d.mu.Unlock()
	d.ix.Expire(cutoff)
}

// Load replays the items first seen since then, oldest first, through
// Detect and Commit: on start with since = now - Window it rebuilds the
// index (the store does not say which items were primaries, so they are
// found again the same way); later, with a recent since, it catches up with
// items that other processes stored. Items already indexed are skipped.
func (d *Detector) Load(ctx context.Context, src FingerprintSource, since time.Time) error {
	err := src.Fingerprints(ctx, since, func(e dynamo.FingerprintEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch := []dynamo.FingerprintEntry{e}
		d.Commit(batch, d.Detect(batch))
		return nil
	})
	if err != nil {
		return fmt.Errorf("dedup: load fingerprints since %s: %w", since.Format(time.RFC3339), err)
	}
	return nil
}

// ForgetSource drops a source's items from the index, for when its archive
// is purged: they must not become primaries.
func (d *Detector) ForgetSource(sourceID string) { d.ix.ForgetSource(sourceID) }

// Stats reports the size of the detector's index.
func (d *Detector) Stats() Stats { return d.ix.Stats() }

// Entries returns the fingerprint entries of items the archive stored, such
// as PollResult.NewItems, for Detect and Commit.
func Entries(items []dynamo.ArchivedItem) []dynamo.FingerprintEntry {
	out := make([]dynamo.FingerprintEntry, 0, len(items))
	for _, it := range items {
		out = append(out, dynamo.FingerprintEntry{
			Key:         dynamo.ItemKey{SourceID: it.SourceID, ItemID: it.Item.ID},
			Fingerprint: it.Item.Fingerprint,
			FirstSeen:   it.FirstSeen,
		})
	}
	return out
}
