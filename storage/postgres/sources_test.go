package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

func TestSourceLifecycle(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	src := &dynamo.Source{ID: "a", URL: "http://127.0.0.1/a", Kind: dynamo.KindFeed, Interval: dynamo.Duration(15 * time.Minute),
		Policy: "smart", Category: "news", TitlePrefix: "A: ", Subscribers: 3, Timezone: "Europe/Paris", CreatedAt: t0,
		State: dynamo.PollState{ETag: `"x"`, NextPoll: t0, Schedule: json.RawMessage(`{"tau": 60,"rates":[1, 2]}`)}}
	if err := s.CreateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSource(ctx, src); !errors.Is(err, dynamo.ErrConflict) {
		t.Errorf("second CreateSource: %v, want ErrConflict", err)
	}
	got, err := s.Source(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	want := *src
	want.Summary = got.Summary
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("Source =\n%+v\nwant\n%+v", *got, want)
	}

	src.URL, src.Paused, src.Subscribers = "http://127.0.0.1/b", true, 9
	if err := s.UpdateSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Source(ctx, "a"); got.URL != src.URL || !got.Paused || got.Subscribers != 9 {
		t.Errorf("after update: %+v", got)
	}
	if err := s.UpdateSource(ctx, &dynamo.Source{ID: "nope"}); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("UpdateSource(nope): %v, want ErrNotFound", err)
	}

	// Removing a source with an archive keeps it served; re-creating it
	// revives the archive.
	src.Paused = false
	s.UpdateSource(ctx, src)
	record(t, s, "a", t0, doc("a", t0, item(1, "one")))
	addSource(t, s, "b") // no archive: removal deletes it
	for _, id := range []string{"a", "b"} {
		if err := s.DeleteSource(ctx, id, false); err != nil {
			t.Fatalf("DeleteSource(%s): %v", id, err)
		}
	}
	if list, _ := s.Sources(ctx); len(list) != 0 {
		t.Errorf("Sources after removal: %d", len(list))
	}
	if list, _ := s.Collections(ctx); len(list) != 1 || list[0].ID != "a" {
		t.Errorf("Collections after removal: %+v", list)
	}
	if _, err := s.Source(ctx, "b"); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("Source(b): %v, want ErrNotFound", err)
	}
	if _, err := s.LeaseSource(ctx, "a", "p", t0, time.Minute); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("leasing a removed source: %v, want ErrNotFound", err)
	}
	if err := s.CreateSource(ctx, src); err != nil {
		t.Fatalf("revive: %v", err)
	}
	if vs, err := s.Versions(ctx, "a"); err != nil || len(vs) != 1 {
		t.Errorf("revived archive: %d versions, %v", len(vs), err)
	}
	if err := s.DeleteSource(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Versions(ctx, "a"); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("purged archive: %v, want ErrNotFound", err)
	}
	if err := s.DeleteSource(ctx, "a", false); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("deleting again: %v, want ErrNotFound", err)
	}
}

func TestLeases(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		addSource(t, s, id)
	}
	s.SetNextPolls(ctx, map[string]time.Time{"c": t0.Add(time.Hour), "nope": t0})

	got, err := s.LeaseDue(ctx, "p1", t0, 10, time.Minute, dynamo.LeaseHosts{})
	if err != nil {
		t.Fatal(err)
	}
	if ids := sourceIDs(got); !reflect.DeepEqual(ids, []string{"a", "b"}) {
		t.Errorf("p1 leased %v, want a b (c is not due)", ids)
	}
	if got, _ := s.LeaseDue(ctx, "p2", t0, 10, time.Minute, dynamo.LeaseHosts{}); len(got) != 0 {
		t.Errorf("p2 leased %v while p1 holds them", sourceIDs(got))
	}
	if _, err := s.LeaseSource(ctx, "a", "p2", t0, time.Minute); !errors.Is(err, dynamo.ErrLeaseLost) {
		t.Errorf("LeaseSource held by p1: %v, want ErrLeaseLost", err)
	}
	_, err = s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "p2", At: t0}, decideFlat(t0))
	if !errors.Is(err, dynamo.ErrLeaseLost) {
		t.Errorf("RecordPoll without the lease: %v, want ErrLeaseLost", err)
	}

	// An expired lease goes to whoever asks.
	later := t0.Add(2 * time.Minute)
	if got, _ := s.LeaseDue(ctx, "p2", later, 1, time.Minute, dynamo.LeaseHosts{}); !reflect.DeepEqual(sourceIDs(got), []string{"a"}) {
		t.Errorf("p2 after expiry leased %v, want a", sourceIDs(got))
	}
	if _, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "p1", At: later}, decideFlat(later)); !errors.Is(err, dynamo.ErrLeaseLost) {
		t.Errorf("p1 recording after losing the lease: %v, want ErrLeaseLost", err)
	}
	if err := s.ReleaseLeases(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	src, _ := s.Source(ctx, "b")
	if src.Summary.LeaseOwner != "" {
		t.Errorf("b still leased by %q", src.Summary.LeaseOwner)
	}
	if got, _ := s.LeaseDue(ctx, "p3", later, 10, time.Minute, dynamo.LeaseHosts{}); !reflect.DeepEqual(sourceIDs(got), []string{"b"}) {
		t.Errorf("p3 leased %v, want b", sourceIDs(got))
	}
}

func sourceIDs(list []dynamo.Source) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.ID)
	}
	return out
}

func TestSettingsAndPollLog(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	if _, err := s.Setting(ctx, "policy"); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("missing setting: %v", err)
	}
	for _, v := range []string{"flat", "smart"} {
		if err := s.PutSetting(ctx, "policy", v); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := s.Setting(ctx, "policy"); v != "smart" || err != nil {
		t.Errorf("Setting = %q, %v", v, err)
	}

	addSource(t, s, "a")
	for i := range archive.PollLogLimit + 20 {
		record(t, s, "a", t0.Add(time.Duration(i)*time.Minute), nil)
	}
	polls, err := s.Polls(ctx, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(polls) != archive.PollLogLimit || !polls[0].At.Equal(t0.Add((archive.PollLogLimit+19)*time.Minute)) {
		t.Errorf("log keeps %d polls, newest at %v", len(polls), polls[0].At)
	}
	if polls, _ := s.Polls(ctx, "a", 3); len(polls) != 3 {
		t.Errorf("Polls(3) = %d entries", len(polls))
	}
	src, _ := s.Source(ctx, "a")
	if n := src.Summary.Polls["unchanged"]; n != archive.PollLogLimit+20 {
		t.Errorf("summary counts %d unchanged polls, want every poll", n)
	}
}
