package dedup

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// A detector started afresh and loaded from a real store (as `dynamo serve`
// does on start) recognizes a story that a previous process stored, and
// the duplicate is recorded in the store with its primary and distance;
// an item first seen before the window is not loaded.
func TestRestartedDetectorFindsStoredPrimaries(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, id := range []string{"wire", "oldwire", "citypost"} {
		if err := st.CreateSource(ctx, &dynamo.Source{ID: id, URL: "http://127.0.0.1:9/" + id, Kind: dynamo.KindFeed}); err != nil {
			t.Fatal(err)
		}
	}
	edited := Fingerprint("Voltra recalls 85,000 electric SUVs over braking software fault",
		"Voltra is recalling about 85,000 Terra electric SUVs because a software fault can delay braking in cold weather, the carmaker said on Monday. Owners will get a free over-the-air update.", "")
	original := Fingerprint(recallTitle, recallDesc, "")
	now := time.Now().UTC().Truncate(time.Second)

	// A previous process: the story from oldwire long ago, then from wire,
	// which is no duplicate of it (more than a window apart).
	before := newDetector(t, DefaultConfig())
	record(t, st, before, "oldwire", now.Add(-DefaultWindow-2*time.Hour), original) // out of wire's window too
	record(t, st, before, "wire", now.Add(-time.Hour), original)

	if items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: "wire"}); err != nil || len(items) != 1 || items[0].DuplicateOf != nil {
		t.Fatalf("wire's story: %+v (%v); want a primary", items, err)
	}

	restarted := newDetector(t, DefaultConfig())
	if err := restarted.Load(ctx, st, now.Add(-DefaultWindow)); err != nil {
		t.Fatal(err)
	}
	if n := restarted.Stats().Entries; n != 1 {
		t.Errorf("the loaded index holds %d entries, want wire's item only", n)
	}
	record(t, st, restarted, "citypost", now, edited)
	items, err := st.Items(ctx, dynamo.ItemQuery{SourceID: "citypost"})
	if err != nil {
		t.Fatal(err)
	}
	want := dynamo.ItemKey{SourceID: "wire", ItemID: "story"}
	if len(items) != 1 || items[0].DuplicateOf == nil || *items[0].DuplicateOf != want || items[0].Distance != Distance(original, edited) {
		t.Fatalf("citypost's copy: %+v; want a duplicate of %v at distance %d", items, want, Distance(original, edited))
	}
}

// record stores one poll of source finding one story, as the poller does:
// Detect inside the store's transaction, Commit after it.
func record(t *testing.T, st dynamo.Store, d *Detector, source string, at time.Time, fp uint64) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.LeaseSource(ctx, source, "test", at, time.Minute); err != nil {
		t.Fatal(err)
	}
	doc := &dynamo.Resource{RSSID: source, Timestamp: at, Channel: dynamo.Channel{Title: source},
		Items: []dynamo.Item{{Index: 1, ID: "story", Title: recallTitle, Link: "http://127.0.0.1:9/story", Fingerprint: fp}}}
	var entries []dynamo.FingerprintEntry
	var dups []dynamo.Duplicate
	_, err := st.RecordPoll(ctx, dynamo.PollRecord{SourceID: source, Owner: "test", At: at, Document: doc}, func(r dynamo.PollResult) dynamo.PollUpdate {
		entries = Entries(r.NewItems)
		dups = d.Detect(entries)
		return dynamo.PollUpdate{
			State:      dynamo.PollState{LastPoll: at, NextPoll: at.Add(time.Hour), LastStatus: dynamo.StatusChanged},
			Log:        dynamo.PollLogEntry{At: at, Status: dynamo.StatusChanged, NewItems: len(r.NewItems)},
			Duplicates: dups,
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	d.Commit(entries, dups)
}
