package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// t0 is the suite's clock origin, in whole seconds and UTC so that
// documents survive the XMLData round trip unchanged.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newSource returns an html source due at t0.
func newSource(id string) *dynamo.Source {
	return &dynamo.Source{ID: id, URL: "http://127.0.0.1/" + id, Kind: dynamo.KindHTML,
		Interval: dynamo.Duration(time.Hour), CreatedAt: t0, State: dynamo.PollState{NextPoll: t0}}
}

// addSource registers newSource(id).
func addSource(t *testing.T, s dynamo.Store, id string) *dynamo.Source {
	t.Helper()
	src := newSource(id)
	if err := s.CreateSource(context.Background(), src); err != nil {
		t.Fatalf("CreateSource(%s): %v", id, err)
	}
	return src
}

// item returns an item with a link of its own, so that its id is the
// link's and survives edits of its title and description.
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

// contentItem returns an item without a link of its own: its id comes from
// its title and description.
func contentItem(page, title, text string) dynamo.Item {
	return dynamo.Item{
		ID:            dynamo.ItemID(page, false, title, text),
		Title:         title,
		Link:          page,
		Description:   text,
		Text:          text,
		IDFromContent: true,
	}
}

// edited returns it with a new description under the same id.
func edited(it dynamo.Item, text string) dynamo.Item {
	it.Description, it.Text = "<p>"+text+"</p>", text
	return it
}

// doc returns a document of items, numbering their indexes 1..n.
func doc(source string, at time.Time, items ...dynamo.Item) *dynamo.Resource {
	r := &dynamo.Resource{URL: "http://127.0.0.1/" + source, RSSID: source, Timestamp: at,
		Channel: dynamo.Channel{Title: source + " news", Link: "http://127.0.0.1/" + source,
			Description: "What " + source + " publishes"}}
	for i, it := range items {
		it.Index = i + 1
		r.Items = append(r.Items, it)
	}
	return r
}

// record leases source id for owner "test" and stores d (nil: nothing was
// read) as the poll at at, logged by decideFlat.
func record(t *testing.T, s dynamo.Store, id string, at time.Time, d *dynamo.Resource) dynamo.PollResult {
	t.Helper()
	return recordWith(t, s, id, at, d, decideFlat(at))
}

// recordWith is record with a decide function of the caller's.
func recordWith(t *testing.T, s dynamo.Store, id string, at time.Time, d *dynamo.Resource, decide func(dynamo.PollResult) dynamo.PollUpdate) dynamo.PollResult {
	t.Helper()
	ctx := context.Background()
	if _, err := s.LeaseSource(ctx, id, "test", at, time.Minute); err != nil {
		t.Fatalf("LeaseSource(%s): %v", id, err)
	}
	res, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: "test", At: at, Document: d}, decide)
	if err != nil {
		t.Fatalf("RecordPoll(%s at %s): %v", id, at.Format(time.RFC3339), err)
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
			Log: dynamo.PollLogEntry{At: at, Status: status, Duration: time.Millisecond, NewItems: len(r.NewItems),
				HTTPStatus: 200, Bytes: 1 << 20},
		}
	}
}

// withDuplicates returns decideFlat(at) that also records dups.
func withDuplicates(at time.Time, dups ...dynamo.Duplicate) func(dynamo.PollResult) dynamo.PollUpdate {
	return func(r dynamo.PollResult) dynamo.PollUpdate {
		u := decideFlat(at)(r)
		u.Duplicates = dups
		return u
	}
}

// checkDocument reports how got differs from want: in its XMLData bytes,
// its timestamp as an instant, and the derived item fields that XMLData
// does not carry.
func checkDocument(t *testing.T, what string, got, want *dynamo.Resource) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: nil document", what)
		return
	}
	if g, w := got.XML(), want.XML(); !bytes.Equal(g, w) {
		t.Errorf("%s =\n%s\nwant\n%s", what, g, w)
		return
	}
	if !got.Timestamp.Equal(want.Timestamp) {
		t.Errorf("%s timestamp %v, want %v", what, got.Timestamp, want.Timestamp)
	}
	for i := range want.Items {
		checkDerived(t, fmt.Sprintf("%s item %d", what, i+1), got.Items[i], want.Items[i])
	}
}

// checkItem reports how an item read back differs from the one stored.
func checkItem(t *testing.T, what string, got, want dynamo.Item) {
	t.Helper()
	g := &dynamo.Resource{Items: []dynamo.Item{got}}
	w := &dynamo.Resource{Items: []dynamo.Item{want}}
	if gx, wx := g.XML(), w.XML(); !bytes.Equal(gx, wx) {
		t.Errorf("%s =\n%s\nwant\n%s", what, gx, wx)
	}
	checkDerived(t, what, got, want)
}

func checkDerived(t *testing.T, what string, got, want dynamo.Item) {
	t.Helper()
	if got.Text != want.Text || got.IDFromContent != want.IDFromContent {
		t.Errorf("%s: text %q, from content %v; want %q, %v", what, got.Text, got.IDFromContent, want.Text, want.IDFromContent)
	}
}

// itemIDs lists the ids of archived items, in order.
func itemIDs(items []dynamo.ArchivedItem) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.Item.ID
	}
	return ids
}

// idsOf lists the ids of items, in order.
func idsOf(items ...dynamo.Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

// checkIDs reports a difference between two lists of item ids.
func checkIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: ids\n %v\nwant\n %v", what, got, want)
	}
}

// mustItems runs an item query that must succeed.
func mustItems(t *testing.T, s dynamo.Store, q dynamo.ItemQuery) []dynamo.ArchivedItem {
	t.Helper()
	items, err := s.Items(context.Background(), q)
	if err != nil {
		t.Fatalf("Items(%+v): %v", q, err)
	}
	return items
}

// mustVersions lists a collection's versions, which must exist.
func mustVersions(t *testing.T, s dynamo.Store, id string) []dynamo.Version {
	t.Helper()
	vs, err := s.Versions(context.Background(), id)
	if err != nil {
		t.Fatalf("Versions(%s): %v", id, err)
	}
	return vs
}

// mustSource reads a source that must exist.
func mustSource(t *testing.T, s dynamo.Store, id string) *dynamo.Source {
	t.Helper()
	src, err := s.Source(context.Background(), id)
	if err != nil {
		t.Fatalf("Source(%s): %v", id, err)
	}
	return src
}

// mustStats reads the store's counts.
func mustStats(t *testing.T, s dynamo.Store) dynamo.Stats {
	t.Helper()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	return st
}

// wantErr reports err unless it is target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}

// sourceIDs lists the ids of sources, in order.
func sourceIDs(list []dynamo.Source) []string {
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}

// checkConfig reports how a source's configuration differs from want's.
func checkConfig(t *testing.T, what string, got, want *dynamo.Source) {
	t.Helper()
	g, w := *got, *want
	if !g.CreatedAt.Equal(w.CreatedAt) {
		t.Errorf("%s: created %v, want %v", what, g.CreatedAt, w.CreatedAt)
	}
	g.CreatedAt, w.CreatedAt = time.Time{}, time.Time{}
	g.State, w.State = dynamo.PollState{}, dynamo.PollState{}
	g.Summary, w.Summary = dynamo.SourceSummary{}, dynamo.SourceSummary{}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: config\n %+v\nwant\n %+v", what, g, w)
	}
}

// checkState reports how a poll state differs from want: times compare as
// instants and the schedule as JSON values.
func checkState(t *testing.T, what string, got, want dynamo.PollState) {
	t.Helper()
	times := []struct {
		name    string
		got, wt time.Time
	}{
		{"last poll", got.LastPoll, want.LastPoll},
		{"next poll", got.NextPoll, want.NextPoll},
		{"last change", got.LastChange, want.LastChange},
	}
	for _, tm := range times {
		if !tm.got.Equal(tm.wt) {
			t.Errorf("%s: %s %v, want %v", what, tm.name, tm.got, tm.wt)
		}
	}
	if !sameJSON(got.Schedule, want.Schedule) {
		t.Errorf("%s: schedule %s, want %s", what, got.Schedule, want.Schedule)
	}
	got.LastPoll, got.NextPoll, got.LastChange, got.Schedule = time.Time{}, time.Time{}, time.Time{}, nil
	want.LastPoll, want.NextPoll, want.LastChange, want.Schedule = time.Time{}, time.Time{}, time.Time{}, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: state\n %+v\nwant\n %+v", what, got, want)
	}
}

// sameJSON reports whether two JSON texts hold the same value; empty means
// no value.
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
