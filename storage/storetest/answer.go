package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// archiveAnswerer is a store that reads an archive answer's source, newest
// head and items at once (both stores' ArchiveAnswer, which the API uses
// when a store has it).
type archiveAnswerer interface {
	ArchiveAnswer(ctx context.Context, q dynamo.ItemQuery, start func(*dynamo.Source, *dynamo.Resource) error, fn func(*dynamo.ArchivedItem) error) error
}

// answerSource is what an archive answer reads of a source
// (archive.AnswerSourceColumns).
func answerSource(s *dynamo.Source) *dynamo.Source {
	return &dynamo.Source{ID: s.ID, URL: s.URL, Paused: s.Paused, CreatedAt: s.CreatedAt, Title: s.Title,
		State:   dynamo.PollState{NextPoll: s.State.NextPoll},
		Summary: dynamo.SourceSummary{Title: s.Summary.Title, Versions: s.Summary.Versions, Items: s.Summary.Items, LastVersionAt: s.Summary.LastVersionAt}}
}

// answerHead is what an archive answer reads of the newest version's head:
// its URL, stamp and channel.
func answerHead(h *dynamo.Resource) *dynamo.Resource {
	if h == nil {
		return nil
	}
	return &dynamo.Resource{URL: h.URL, Timestamp: h.Timestamp, Channel: h.Channel}
}

// testArchiveAnswer: ArchiveAnswer reads what Source (the fields an answer
// reads), Head (of the newest version: its URL, stamp and channel) and
// EachItem read, in that order, for every archive query; an unknown source
// is ErrNotFound without start, a collection without versions has no
// head, and an error from start or fn ends the walk.
func testArchiveAnswer(t *testing.T, st dynamo.Store) {
	s, ok := st.(archiveAnswerer)
	if !ok {
		t.Skipf("%T reads no archive answer at once", st)
	}
	ctx := context.Background()
	addSource(t, st, "a")
	addSource(t, st, "empty")
	record(t, st, "a", t0, doc("a", t0, item(1, "Storm hits coast"), item(2, "Local fair")))
	record(t, st, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), item(3, "Bridge closed"), item(2, "Local fair"), item(4, "Storm warning")))

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
		wantSrc := mustSource(t, st, q.SourceID)
		var wantHead *dynamo.Resource
		if wantSrc.Summary.Versions > 0 {
			if wantHead, _, err = st.Head(ctx, q.SourceID, 1); err != nil {
				t.Fatal(err)
			}
		}
		wantItems := mustItems(t, st, q)
		if !reflect.DeepEqual(src, answerSource(wantSrc)) {
			t.Errorf("%+v: source\n%+v, want\n%+v", q, src, answerSource(wantSrc))
		}
		if !reflect.DeepEqual(head, answerHead(wantHead)) {
			t.Errorf("%+v: head %+v, want %+v", q, head, answerHead(wantHead))
		}
		if len(items) != len(wantItems) || (len(items) > 0 && !reflect.DeepEqual(items, wantItems)) {
			t.Errorf("%+v: items\n%+v, want\n%+v", q, items, wantItems)
		}
	}
	if _, h, _, _ := answer(dynamo.ItemQuery{SourceID: "empty"}); h != nil {
		t.Errorf("a collection without versions has head %+v", h)
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
	if err := s.ArchiveAnswer(ctx, dynamo.ItemQuery{SourceID: "a", Version: 1}, func(*dynamo.Source, *dynamo.Resource) error { return nil },
		func(*dynamo.ArchivedItem) error { return nil }); !errors.Is(err, dynamo.ErrInvalid) {
		t.Errorf("a version query: %v", err)
	}
	// The store is whole after each: a plain read still works.
	mustSource(t, st, "a")

	// Last: postgres.Replicated cannot tell start's error from a
	// replica's fault, so it tries the primary again and rests the
	// replica, sending the reads after it to the primary.
	if err := s.ArchiveAnswer(ctx, dynamo.ItemQuery{SourceID: "a"}, func(*dynamo.Source, *dynamo.Resource) error { return stop },
		func(*dynamo.ArchivedItem) error { t.Error("an item after start failed"); return nil }); !errors.Is(err, stop) {
		t.Errorf("start's error: %v", err)
	}
}
