package postgres

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// ArchiveAnswer reads what Source, Head (of the newest version) and
// EachItem read, in that order, for every archive query; an unknown source
// is ErrNotFound without start, a collection without versions has no head,
// and an error from fn ends the walk.
func TestArchiveAnswerReadsAsItsMethods(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	addSource(t, s, "a")
	addSource(t, s, "empty")
	record(t, s, "a", t0, doc("a", t0, item(1, "Storm hits coast"), item(2, "Local fair")))
	record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), item(3, "Bridge closed"), item(2, "Local fair"), item(4, "Storm warning")))

	answer := func(q dynamo.ItemQuery) (*dynamo.Source, *dynamo.Resource, []dynamo.ArchivedItem, error) {
		var src *dynamo.Source
		var head *dynamo.Resource
		var items []dynamo.ArchivedItem
		err := s.ArchiveAnswer(ctx, q, func(s *dynamo.Source, h *dynamo.Resource) error {
			if len(items) > 0 {
				t.Errorf("start after an item")
			}
			src, head = s, h
			return nil
		}, func(it *dynamo.ArchivedItem) error {
			if src == nil {
				t.Errorf("an item before start")
			}
			items = append(items, *it)
			return nil
		})
		return src, head, items, err
	}
	for _, q := range []dynamo.ItemQuery{
		{SourceID: "a"},
		{SourceID: "a", ItemsOnly: true},
		{SourceID: "a", Max: 2, ItemsOnly: true},
		{SourceID: "a", Max: 2, Conditions: []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "storm"}}},
		{SourceID: "a", Since: t0.Add(time.Minute)},
		{SourceID: "empty", Max: 5, ItemsOnly: true},
	} {
		src, head, items, err := answer(q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		wantSrc, err := s.Source(ctx, q.SourceID)
		if err != nil {
			t.Fatal(err)
		}
		var wantHead *dynamo.Resource
		if wantSrc.Summary.Versions > 0 {
			if wantHead, _, err = s.Head(ctx, q.SourceID, 1); err != nil {
				t.Fatal(err)
			}
		}
		wantItems, err := s.Items(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(src, wantSrc) {
			t.Errorf("%+v: source\n%+v, want\n%+v", q, src, wantSrc)
		}
		if !reflect.DeepEqual(head, wantHead) {
			t.Errorf("%+v: head %+v, want %+v", q, head, wantHead)
		}
		if len(items) != len(wantItems) || (len(items) > 0 && !reflect.DeepEqual(items, wantItems)) {
			t.Errorf("%+v: items\n%+v, want\n%+v", q, items, wantItems)
		}
	}
	if head := func() *dynamo.Resource { _, h, _, _ := answer(dynamo.ItemQuery{SourceID: "empty"}); return h }(); head != nil {
		t.Errorf("a collection without versions has head %+v", head)
	}

	started := false
	err := s.ArchiveAnswer(ctx, dynamo.ItemQuery{SourceID: "nope"}, func(*dynamo.Source, *dynamo.Resource) error {
		started = true
		return nil
	}, func(*dynamo.ArchivedItem) error { return nil })
	if !errors.Is(err, dynamo.ErrNotFound) || started {
		t.Errorf("unknown source: %v, started %v", err, started)
	}

	stop := errors.New("stop")
	n := 0
	err = s.ArchiveAnswer(ctx, dynamo.ItemQuery{SourceID: "a"}, func(*dynamo.Source, *dynamo.Resource) error { return nil },
		func(*dynamo.ArchivedItem) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("fn's error: %v after %d items", err, n)
	}
	if err := s.ArchiveAnswer(ctx, dynamo.ItemQuery{SourceID: "a"}, func(*dynamo.Source, *dynamo.Resource) error { return stop },
		func(*dynamo.ArchivedItem) error { t.Error("an item after start failed"); return nil }); !errors.Is(err, stop) {
		t.Errorf("start's error: %v", err)
	}
	if err := s.ArchiveAnswer(ctx, dynamo.ItemQuery{SourceID: "a", Version: 1}, func(*dynamo.Source, *dynamo.Resource) error { return nil },
		func(*dynamo.ArchivedItem) error { return nil }); !errors.Is(err, dynamo.ErrInvalid) {
		t.Errorf("a version query: %v", err)
	}
	// The pool's connection is whole after each: a plain read still works.
	if _, err := s.Source(ctx, "a"); err != nil {
		t.Fatal(err)
	}
}
