package postgres

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// An item without a link of its own gets its id from its content; when its
// description is edited, the archive recognizes it by its title instead of
// listing it twice, and each version still rebuilds with its own id.
func TestItemRecognizedByTitle(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	addSource(t, s, "a")
	contentItem := func(title, desc string) dynamo.Item {
		return dynamo.Item{ID: dynamo.ItemID("", false, title, desc), Title: title, Link: "http://127.0.0.1/a",
			Description: desc, Text: desc, IDFromContent: true}
	}
	v1 := doc("a", t0, contentItem("Notice", "closed monday"), item(1, "Other"))
	v2 := doc("a", t0.Add(time.Hour), contentItem("Notice", "closed monday and tuesday"), item(1, "Other"))
	record(t, s, "a", t0, v1)
	if res := record(t, s, "a", t0.Add(time.Hour), v2); len(res.NewItems) != 0 {
		t.Errorf("edited item counted as new: %v", ids(res.NewItems))
	}
	archive, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(archive) != 2 || archive[0].Item.Description != "closed monday and tuesday" {
		t.Errorf("archive = %+v", archive)
	}
	for i, want := range []*dynamo.Resource{v2, v1} {
		got, _, err := s.Document(ctx, "a", i+1)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Document(%d) = %s, %v", i+1, got.XML(), err)
		}
	}
}

func TestAggregateDuplicatesAndStats(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	for _, id := range []string{"a", "b"} {
		addSource(t, s, id)
	}
	src, _ := s.Source(ctx, "b")
	src.Category = "sport"
	s.UpdateSource(ctx, src)

	story, other := item(1, "Storm hits coast"), item(2, "Local fair")
	copyOf := item(3, "Storm hits the coast")
	record(t, s, "a", t0, doc("a", t0, story, other))

	at := t0.Add(time.Hour)
	if _, err := s.LeaseSource(ctx, "b", "p", at, time.Minute); err != nil {
		t.Fatal(err)
	}
	dup := dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: "b", ItemID: copyOf.ID},
		Primary: dynamo.ItemKey{SourceID: "a", ItemID: story.ID}, Matched: dynamo.ItemKey{SourceID: "a", ItemID: story.ID},
		Rule: "text", Score: 0.8125}
	_, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "b", Owner: "p", At: at, Document: doc("b", at, copyOf)},
		func(r dynamo.PollResult) dynamo.PollUpdate {
			u := decideFlat(at)(r)
			u.Duplicates = []dynamo.Duplicate{dup}
			return u
		})
	if err != nil {
		t.Fatal(err)
	}

	once, err := s.Aggregate(ctx, dynamo.AggregateQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(once) != 2 || once[0].Item.ID != story.ID || !reflect.DeepEqual(once[0].AlsoIn, []dynamo.ItemKey{dup.Item}) {
		t.Errorf("each story once: %+v", once)
	}
	all, err := s.Aggregate(ctx, dynamo.AggregateQuery{IncludeDuplicates: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].Item.ID != copyOf.ID || *all[0].DuplicateOf != dup.Primary || all[0].DuplicateRule != "text" ||
		all[0].DuplicateScore != 0.8125 {
		t.Errorf("with duplicates: %+v", all)
	}
	sport, err := s.Aggregate(ctx, dynamo.AggregateQuery{Category: "sport", IncludeDuplicates: true,
		Conditions: []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "STORM"}}})
	if err != nil || len(sport) != 1 || sport[0].SourceID != "b" {
		t.Errorf("category and condition: %+v, %v", sport, err)
	}

	var items []dynamo.StoryItem
	err = s.StoryItems(ctx, t0.Add(time.Minute), func(e dynamo.StoryItem) error {
		items = append(items, e)
		return nil
	})
	if err != nil || len(items) != 1 || items[0].Key != dup.Item || items[0].Title != copyOf.Title ||
		items[0].DuplicateOf == nil || *items[0].DuplicateOf != dup.Primary {
		t.Errorf("StoryItems since the second poll: %+v, %v", items, err)
	}

	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Sources != 2 || st.Versions != 2 || st.Items != 3 || st.Duplicates != 1 || st.Polls["changed"] != 2 ||
		len(st.PerSource) != 2 || st.PerSource[1].Duplicates != 1 || st.PerSource[1].DuplicateShare != 1 {
		t.Errorf("Stats = %+v", st)
	}
}
