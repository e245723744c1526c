package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// testSourceRoundTrip stores a source with every field set and reads it
// back unchanged, with an empty summary.
func testSourceRoundTrip(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	want := &dynamo.Source{ID: "full", URL: "http://127.0.0.1/full?a=1&b=ü", Title: "Full — ü & <b>", Kind: dynamo.KindSelectors,
		Interval: dynamo.Duration(90 * time.Second), Policy: "smart", Category: "news", TitlePrefix: "Full: ",
		Subscribers: 7, Timezone: "Europe/Vienna", Paused: true, IgnoreRobots: true, CreatedAt: t0.Add(-24 * time.Hour),
		SelectorSyntax: "xpath", ItemSelector: `//li[@class="news ü"]`, TitleSelector: "h2", LinkSelector: "a/@href",
		DescriptionSelector: "p", DateSelector: "time", AuthorSelector: "string(.//span)", ImageSelector: "img/@src",
		EnclosureSelector: "a[@type='audio/mpeg']/@href",
		State: dynamo.PollState{ETag: `"abc"`, LastModified: "Sun, 01 Mar 2026 11:00:00 GMT", BodyHash: "deadbeef",
			LastPoll: t0.Add(-time.Hour), NextPoll: t0.Add(time.Hour), LastChange: t0.Add(-2 * time.Hour),
			LastStatus: dynamo.StatusUnchanged, Errors: 2, LastError: "timeout after 10s",
			Schedule: json.RawMessage(`{"tau":3600,"rates":[0.5,1.25],"name":"smart"}`),
			Warnings: []dynamo.Warning{{Line: 0, Message: "page-wide"}, {Line: 12, Message: `<item:titel> "ü" & more`}}}}
	if err := s.CreateSource(ctx, want); err != nil {
		t.Fatalf("CreateSource: %v", err)
	}
	got := mustSource(t, s, "full")
	checkConfig(t, "Source(full)", got, want)
	checkState(t, "Source(full)", got.State, want.State)
	sum := got.Summary
	if sum.Versions != 0 || sum.Items != 0 || sum.Duplicates != 0 || sum.Title != "" || sum.LeaseOwner != "" {
		t.Errorf("summary of a new source %+v, want empty", sum)
	}
	if _, err := s.Source(ctx, "missing"); err == nil {
		t.Error("Source(missing) succeeded")
	} else {
		wantErr(t, "Source(missing)", err, dynamo.ErrNotFound)
	}
}

// testSourceConflict refuses a second active source with the same id and
// leaves the first as it was.
func testSourceConflict(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	first := addSource(t, s, "a")
	second := newSource("a")
	second.URL = "http://127.0.0.1/other"
	wantErr(t, "CreateSource(a) again", s.CreateSource(ctx, second), dynamo.ErrConflict)
	checkConfig(t, "Source(a)", mustSource(t, s, "a"), first)
}

// testSourcesOrderedByID lists active sources by id, whatever the order of
// creation.
func testSourcesOrderedByID(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for _, id := range []string{"c", "a", "b"} {
		addSource(t, s, id)
	}
	list, err := s.Sources(ctx)
	if err != nil {
		t.Fatalf("Sources: %v", err)
	}
	if got := sourceIDs(list); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Sources = %v, want [a b c]", got)
	}
	if list[0].URL != "http://127.0.0.1/a" {
		t.Errorf("Sources()[0].URL = %q", list[0].URL)
	}
}

// testUpdateSource changes every configuration field and none of the
// state, summary or creation time.
func testUpdateSource(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	orig := addSource(t, s, "a")
	record(t, s, "a", t0, doc("a", t0, item(1, "One")))
	before := mustSource(t, s, "a")

	upd := *before
	upd.URL, upd.Kind, upd.Interval = "http://127.0.0.1/moved", dynamo.KindFeed, dynamo.Duration(2*time.Hour)
	upd.Policy, upd.Category, upd.TitlePrefix, upd.Title = "hourly", "sport", "Sport: ", "My sport"
	upd.Subscribers, upd.Timezone, upd.Paused, upd.IgnoreRobots = 12, "America/New_York", true, true
	upd.Kind, upd.ItemSelector, upd.TitleSelector = dynamo.KindSelectors, "article", "h2 a"
	upd.CreatedAt = t0.Add(time.Hour)
	upd.State = dynamo.PollState{ETag: "changed", NextPoll: t0.Add(100 * time.Hour), Errors: 9}
	upd.Summary = dynamo.SourceSummary{Versions: 99}
	if err := s.UpdateSource(ctx, &upd); err != nil {
		t.Fatalf("UpdateSource: %v", err)
	}
	got := mustSource(t, s, "a")
	want := upd
	want.CreatedAt = orig.CreatedAt
	checkConfig(t, "updated source", got, &want)
	checkState(t, "updated source", got.State, before.State)
	if got.Summary.Versions != 1 || got.Summary.Items != 1 {
		t.Errorf("summary after update %+v, want 1 version and 1 item", got.Summary)
	}

	missing := newSource("missing")
	wantErr(t, "UpdateSource(missing)", s.UpdateSource(ctx, missing), dynamo.ErrNotFound)
	if err := s.DeleteSource(ctx, "a", false); err != nil {
		t.Fatalf("DeleteSource: %v", err)
	}
	wantErr(t, "UpdateSource(removed)", s.UpdateSource(ctx, &upd), dynamo.ErrNotFound)
}

// testNewURLStartsAfresh drops the validators and the body hash when, and
// only when, a source's URL changes: they belong to the old address, and a
// new one answering 304 or the same bytes must still be read in full.
func testNewURLStartsAfresh(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	recordWith(t, s, "a", t0, doc("a", t0, item(1, "One")), func(r dynamo.PollResult) dynamo.PollUpdate {
		u := decideFlat(t0)(r)
		u.State.ETag, u.State.LastModified, u.State.BodyHash = `"v1"`, "Tue, 03 Mar 2026 14:00:00 GMT", "abc123"
		u.State.Errors, u.State.LastError = 2, "was failing"
		return u
	})
	before := mustSource(t, s, "a")
	if before.State.ETag == "" || before.State.BodyHash == "" {
		t.Fatalf("validators not stored: %+v", before.State)
	}

	same := *before
	same.Category = "renamed"
	if err := s.UpdateSource(ctx, &same); err != nil {
		t.Fatalf("UpdateSource(same URL): %v", err)
	}
	checkState(t, "same URL", mustSource(t, s, "a").State, before.State)

	moved := *before
	moved.URL = before.URL + "/moved"
	if err := s.UpdateSource(ctx, &moved); err != nil {
		t.Fatalf("UpdateSource(new URL): %v", err)
	}
	want := before.State
	want.ETag, want.LastModified, want.BodyHash = "", "", ""
	got := mustSource(t, s, "a")
	checkState(t, "new URL", got.State, want)
	if got.URL != moved.URL {
		t.Errorf("URL %q, want %q", got.URL, moved.URL)
	}
}

// testDeleteKeepsArchive stops polling a removed source but keeps serving
// its archive.
func testDeleteKeepsArchive(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	addSource(t, s, "b")
	d := doc("a", t0, item(1, "One"), item(2, "Two"))
	record(t, s, "a", t0, d)
	if _, err := s.LeaseSource(ctx, "a", "poller", t0.Add(time.Hour), time.Hour); err != nil {
		t.Fatalf("LeaseSource: %v", err)
	}
	if err := s.DeleteSource(ctx, "a", false); err != nil {
		t.Fatalf("DeleteSource(a): %v", err)
	}

	active, err := s.Sources(ctx)
	if err != nil {
		t.Fatalf("Sources: %v", err)
	}
	if got := sourceIDs(active); !slices.Equal(got, []string{"b"}) {
		t.Errorf("Sources after removing a = %v, want [b]", got)
	}
	collections, err := s.Collections(ctx)
	if err != nil {
		t.Fatalf("Collections: %v", err)
	}
	if !slices.Contains(sourceIDs(collections), "a") {
		t.Errorf("Collections after removing a = %v, want a kept", sourceIDs(collections))
	}
	if src := mustSource(t, s, "a"); src.Summary.Versions != 1 {
		t.Errorf("removed source summary %+v, want its version", src.Summary)
	}
	got, _, err := s.Document(ctx, "a", 1)
	if err != nil {
		t.Fatalf("Document of a removed source: %v", err)
	}
	checkDocument(t, "Document(a, 1) after removal", got, d)
	if items := mustItems(t, s, dynamo.ItemQuery{SourceID: "a"}); len(items) != 2 {
		t.Errorf("archive of a removed source has %d items, want 2", len(items))
	}

	// The poll that held the lease when the source was removed stores nothing.
	_, err = s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "poller", At: t0.Add(time.Hour),
		Document: doc("a", t0.Add(time.Hour), item(3, "Three"))}, decideFlat(t0.Add(time.Hour)))
	wantErr(t, "RecordPoll of a removed source", err, dynamo.ErrLeaseLost)
	if vs := mustVersions(t, s, "a"); len(vs) != 1 {
		t.Errorf("removed source has %d versions after a late poll, want 1", len(vs))
	}
	if _, err := s.LeaseSource(ctx, "a", "poller", t0.Add(3*time.Hour), time.Hour); err == nil {
		t.Error("LeaseSource of a removed source succeeded")
	}
	due, err := s.LeaseDue(ctx, "poller", t0.Add(100*time.Hour), 10, time.Hour, dynamo.LeaseHosts{})
	if err != nil {
		t.Fatalf("LeaseDue: %v", err)
	}
	if got := sourceIDs(due); !slices.Equal(got, []string{"b"}) {
		t.Errorf("LeaseDue after removing a = %v, want [b]", got)
	}
	wantErr(t, "DeleteSource(missing)", s.DeleteSource(ctx, "missing", false), dynamo.ErrNotFound)
}

// testDeleteWithoutArchive forgets a removed source that has nothing to
// serve.
func testDeleteWithoutArchive(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "empty")
	if err := s.DeleteSource(ctx, "empty", false); err != nil {
		t.Fatalf("DeleteSource: %v", err)
	}
	collections, err := s.Collections(ctx)
	if err != nil {
		t.Fatalf("Collections: %v", err)
	}
	if slices.Contains(sourceIDs(collections), "empty") {
		t.Errorf("Collections = %v, kept a removed source without versions", sourceIDs(collections))
	}
	if err := s.CreateSource(ctx, newSource("empty")); err != nil {
		t.Errorf("CreateSource after removal: %v", err)
	}
}

// testDeletePurge removes a source with its versions, items and polls.
func testDeletePurge(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	addSource(t, s, "b")
	record(t, s, "a", t0, doc("a", t0, item(1, "One"), item(2, "Two")))
	record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), item(3, "Three")))
	record(t, s, "b", t0, doc("b", t0, item(1, "One")))

	if err := s.DeleteSource(ctx, "a", true); err != nil {
		t.Fatalf("DeleteSource(a, purge): %v", err)
	}
	_, err := s.Source(ctx, "a")
	wantErr(t, "Source after purge", err, dynamo.ErrNotFound)
	_, err = s.Versions(ctx, "a")
	wantErr(t, "Versions after purge", err, dynamo.ErrNotFound)
	_, _, err = s.Document(ctx, "a", 1)
	wantErr(t, "Document after purge", err, dynamo.ErrNotFound)
	_, err = s.Items(ctx, dynamo.ItemQuery{SourceID: "a"})
	wantErr(t, "Items after purge", err, dynamo.ErrNotFound)
	collections, err := s.Collections(ctx)
	if err != nil {
		t.Fatalf("Collections: %v", err)
	}
	if got := sourceIDs(collections); !slices.Equal(got, []string{"b"}) {
		t.Errorf("Collections after purge = %v, want [b]", got)
	}
	if st := mustStats(t, s); st.Versions != 1 || st.Items != 1 {
		t.Errorf("Stats after purge: %d versions, %d items; want 1 and 1", st.Versions, st.Items)
	}

	// A purged id starts afresh, and a removed source can still be purged.
	addSource(t, s, "a")
	if vs := mustVersions(t, s, "a"); len(vs) != 0 {
		t.Errorf("re-created purged source has %d versions", len(vs))
	}
	if err := s.DeleteSource(ctx, "b", false); err != nil {
		t.Fatalf("DeleteSource(b): %v", err)
	}
	if err := s.DeleteSource(ctx, "b", true); err != nil {
		t.Fatalf("DeleteSource(b, purge) after removal: %v", err)
	}
	_, err = s.Versions(ctx, "b")
	wantErr(t, "Versions of purged removed source", err, dynamo.ErrNotFound)
}

// testRecreateRevivesArchive re-creates a removed source: polling resumes
// and the kept archive continues.
func testRecreateRevivesArchive(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	d1 := doc("a", t0, item(1, "One"))
	record(t, s, "a", t0, d1)
	record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), item(1, "One"), item(2, "Two")))
	if err := s.DeleteSource(ctx, "a", false); err != nil {
		t.Fatalf("DeleteSource: %v", err)
	}
	revived := newSource("a")
	revived.URL = "http://127.0.0.1/a-moved"
	revived.State.NextPoll = t0.Add(2 * time.Hour)
	if err := s.CreateSource(ctx, revived); err != nil {
		t.Fatalf("CreateSource of a removed id: %v", err)
	}
	list, err := s.Sources(ctx)
	if err != nil {
		t.Fatalf("Sources: %v", err)
	}
	if got := sourceIDs(list); !slices.Equal(got, []string{"a"}) {
		t.Errorf("Sources after revival = %v", got)
	}
	got := mustSource(t, s, "a")
	if got.URL != revived.URL || got.Summary.Versions != 2 {
		t.Errorf("revived source: url %q, %d versions; want %q and 2", got.URL, got.Summary.Versions, revived.URL)
	}
	wantErr(t, "CreateSource of a revived id", s.CreateSource(ctx, newSource("a")), dynamo.ErrConflict)

	// Same content as the latest kept version: no version.
	if res := record(t, s, "a", t0.Add(2*time.Hour), doc("a", t0.Add(2*time.Hour), item(1, "One"), item(2, "Two"))); res.Version != nil {
		t.Errorf("revived source stored its latest content again as version %d", res.Version.Seq)
	}
	res := record(t, s, "a", t0.Add(3*time.Hour), doc("a", t0.Add(3*time.Hour), item(3, "Three")))
	if res.Version == nil || res.Version.Seq != 3 {
		t.Fatalf("new content after revival: version %+v, want seq 3", res.Version)
	}
	old, _, err := s.Document(ctx, "a", 3)
	if err != nil {
		t.Fatalf("Document(a, 3): %v", err)
	}
	checkDocument(t, "oldest version after revival", old, d1)
}

// testEachSource walks the active sources and the collections as Sources
// and Collections list them, and stops at fn's error.
func testEachSource(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for _, id := range []string{"c", "a", "b"} {
		addSource(t, s, id)
	}
	record(t, s, "b", t0, doc("b", t0, item(1, "One")))
	if err := s.DeleteSource(ctx, "b", false); err != nil { // kept: still a collection
		t.Fatalf("DeleteSource(b): %v", err)
	}
	walk := func(collections bool) []string {
		var ids []string
		err := s.EachSource(ctx, collections, func(src *dynamo.Source) error {
			if src.URL != "http://127.0.0.1/"+src.ID {
				t.Errorf("EachSource: %s has URL %q", src.ID, src.URL)
			}
			ids = append(ids, src.ID)
			return nil
		})
		if err != nil {
			t.Fatalf("EachSource(%v): %v", collections, err)
		}
		return ids
	}
	if got := walk(false); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("EachSource(active) = %v, want [a c]", got)
	}
	if got := walk(true); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("EachSource(collections) = %v, want [a b c]", got)
	}
	stop := errors.New("stop")
	calls := 0
	err := s.EachSource(ctx, true, func(*dynamo.Source) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("EachSource with fn failing: %v after %d calls, want fn's error after 1", err, calls)
	}
}
