package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
)

// open returns a store on a fresh database, closed when the test ends.
func open(t testing.TB) *Store {
	t.Helper()
	return openDSN(t, pgtest.DSN(t))
}

func openDSN(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// t0 is the tests' clock origin, in whole seconds so that documents survive
// the XML round trip unchanged.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// addSource registers an html source due at t0.
func addSource(t testing.TB, s *Store, id string) {
	t.Helper()
	src := &dynamo.Source{ID: id, URL: "http://127.0.0.1/" + id, Kind: dynamo.KindHTML,
		Interval: dynamo.Duration(time.Hour), CreatedAt: t0, State: dynamo.PollState{NextPoll: t0}}
	if err := s.CreateSource(context.Background(), src); err != nil {
		t.Fatalf("CreateSource %s: %v", id, err)
	}
}

// item returns an item with an own link, so its id is the link's.
func item(n int, title string) dynamo.Item {
	link := fmt.Sprintf("http://127.0.0.1/news/%d", n)
	return dynamo.Item{
		ID:          dynamo.ItemID(link, true, "", ""),
		Title:       title,
		Link:        link,
		Description: "<p>" + title + " body</p>",
		Text:        title + " body",
	}
}

// doc returns a document of items, numbering their indexes.
func doc(source string, at time.Time, items ...dynamo.Item) *dynamo.Resource {
	r := &dynamo.Resource{URL: "http://127.0.0.1/" + source, RSSID: source, Timestamp: at,
		Channel: dynamo.Channel{Title: source + " news", Link: "http://127.0.0.1/" + source}}
	for i, it := range items {
		it.Index = i + 1
		r.Items = append(r.Items, it)
	}
	return r
}

// record leases source id for owner "test" and stores d (nil: nothing
// read) as the poll at at.
func record(t testing.TB, s *Store, id string, at time.Time, d *dynamo.Resource) dynamo.PollResult {
	t.Helper()
	return recordPoll(t, s, dynamo.PollRecord{SourceID: id, At: at, Document: d})
}

// recordStory is record for a poller with a detector of stories: the
// poll numbers its new items' stories and reads the items numbered since
// the last hour.
func recordStory(t testing.TB, s *Store, id string, at time.Time, d *dynamo.Resource) dynamo.PollResult {
	t.Helper()
	return recordPoll(t, s, dynamo.PollRecord{SourceID: id, At: at, Document: d, Stories: true, StoriesSince: at.Add(-time.Hour)})
}

// recordPoll leases rec's source for owner "test" and records rec.
func recordPoll(t testing.TB, s *Store, rec dynamo.PollRecord) dynamo.PollResult {
	t.Helper()
	ctx := context.Background()
	if _, err := s.LeaseSource(ctx, rec.SourceID, "test", rec.At, time.Minute); err != nil {
		t.Fatalf("LeaseSource %s: %v", rec.SourceID, err)
	}
	rec.Owner = "test"
	res, err := s.RecordPoll(ctx, rec, decideFlat(rec.At))
	if err != nil {
		t.Fatalf("RecordPoll %s: %v", rec.SourceID, err)
	}
	return res
}

// decideFlat schedules the next poll an hour on and logs the outcome.
func decideFlat(at time.Time) func(dynamo.PollResult) dynamo.PollUpdate {
	return func(r dynamo.PollResult) dynamo.PollUpdate {
		status := dynamo.StatusUnchanged
		if r.Version != nil {
			status = dynamo.StatusChanged
		}
		return dynamo.PollUpdate{
			State: dynamo.PollState{LastPoll: at, NextPoll: at.Add(time.Hour), LastStatus: status},
			Log:   dynamo.PollLogEntry{At: at, Status: status, Duration: time.Millisecond, NewItems: len(r.NewItems)},
		}
	}
}
