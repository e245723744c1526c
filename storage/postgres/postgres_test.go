package postgres

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

func TestVersionsRebuildExactly(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	addSource(t, s, "a")

	a, b, c := item(1, "Alpha"), item(2, "Beta"), item(3, "Gamma")
	b2 := b
	b2.Description, b2.Text = "<p>Beta, corrected</p>", "Beta, corrected"
	a.Image = &dynamo.Image{URL: "http://127.0.0.1/a.png", Title: "a"}
	a.Extensions = []dynamo.Extension{{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "date", Value: "2026-03-01T10:00:00Z"}}

	docs := []*dynamo.Resource{
		doc("a", t0, a, b),
		doc("a", t0.Add(time.Hour), c, a, b2), // c new, b's description edited
		doc("a", t0.Add(2*time.Hour), a, b),   // back to the first content
	}
	docs[1].Channel.Image = &dynamo.Image{URL: "http://127.0.0.1/logo.png", Link: "http://127.0.0.1/", Title: "logo"}
	docs[2].Items[1].Index = 7 // an index attribute that is not the position
	for i, d := range docs {
		res := record(t, s, "a", d.Timestamp, d)
		if res.Version == nil || res.Version.Seq != i+1 {
			t.Fatalf("poll %d: version %+v, want seq %d", i+1, res.Version, i+1)
		}
	}
	if res := record(t, s, "a", t0.Add(3*time.Hour), doc("a", t0.Add(3*time.Hour), a, b)); res.Version != nil {
		t.Fatalf("unchanged content stored version %+v", res.Version)
	}

	for i, want := range docs {
		index := len(docs) - i
		got, v, err := s.Document(ctx, "a", index)
		if err != nil {
			t.Fatalf("Document(%d): %v", index, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Document(%d) =\n%s\nwant\n%s", index, got.XML(), want.XML())
		}
		if v.Hash != dynamo.ContentHash(want) || v.Seq != i+1 || v.Index != index {
			t.Errorf("Document(%d) version %+v", index, v)
		}
	}
	if _, _, err := s.Document(ctx, "a", 4); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("Document(4) error %v, want ErrNotFound", err)
	}
}

func TestRecordPollResult(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	addSource(t, s, "a")
	a, b, c := item(1, "Alpha"), item(2, "Beta"), item(3, "Gamma")

	res := record(t, s, "a", t0, doc("a", t0, a, b))
	if got := ids(res.NewItems); !reflect.DeepEqual(got, []string{a.ID, b.ID}) {
		t.Errorf("first poll new items %v", got)
	}
	res = record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), c, a))
	if got := ids(res.NewItems); !reflect.DeepEqual(got, []string{c.ID}) || res.Seen != 2 {
		t.Errorf("second poll new items %v, seen %d", got, res.Seen)
	}
	if v := res.Version; v.Added != 1 || v.Removed != 1 || v.Items != 2 {
		t.Errorf("second version %+v, want 1 added, 1 removed, 2 items", v)
	}

	vs, err := s.Versions(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Seq != 2 || vs[0].Index != 1 || vs[1].Seq != 1 || vs[1].Index != 2 {
		t.Errorf("Versions = %+v", vs)
	}

	src, err := s.Source(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	sum := src.Summary
	if sum.Versions != 2 || sum.Items != 3 || sum.Title != "a news" || !sum.LastVersionAt.Equal(t0.Add(time.Hour)) ||
		sum.Polls["changed"] != 2 || sum.LeaseOwner != "" {
		t.Errorf("summary %+v", sum)
	}
	if !src.State.NextPoll.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("next poll %v", src.State.NextPoll)
	}
}

func TestArchiveOrderAndLastSeen(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	addSource(t, s, "a")
	a, b, c, d := item(1, "Alpha"), item(2, "Beta"), item(3, "Gamma"), item(4, "Delta")
	record(t, s, "a", t0, doc("a", t0, a, b))
	record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), c, d, a))

	got, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{c.ID, d.ID, a.ID, b.ID}; !reflect.DeepEqual(ids(got), want) {
		t.Errorf("archive %v, want %v", ids(got), want)
	}
	for _, it := range got {
		wantLast := t0.Add(time.Hour)
		if it.Item.ID == b.ID {
			wantLast = t0
		}
		if !it.LastSeen.Equal(wantLast) {
			t.Errorf("item %s last seen %v, want %v", it.Item.Title, it.LastSeen, wantLast)
		}
	}
	got, err = s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Max: 2})
	if err != nil || len(got) != 2 {
		t.Errorf("Max 2: %d items, %v", len(got), err)
	}
	got, err = s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Version: 2})
	if want := []string{a.ID, b.ID}; err != nil || !reflect.DeepEqual(ids(got), want) {
		t.Errorf("version 2: %v, %v; want %v", ids(got), err, want)
	}
	if _, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Version: 3}); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("version 3: %v, want ErrNotFound", err)
	}
	if _, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "nope"}); !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("unknown collection: %v, want ErrNotFound", err)
	}
}

func ids(items []dynamo.ArchivedItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Item.ID)
	}
	return out
}
