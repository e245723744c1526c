package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// View is what readers see of one source, for the stores' tests of
// versions written in batches (each store's batch_test.go), which compare
// it before, during and after such a version: that readers see the
// version whole or not at all.
type View struct {
	Versions  int      // how many versions
	Newest    string   // the newest version's hash
	Archive   []string // the ids of the archive's items
	Stories   int      // the items a detector of stories reads
	Aggregate int      // the items an aggregate of every source reads
	Paged     int      // items on the archived page of numbers 1 to 1000
	Last      int64    // the highest item number that page names
	AggPaged  int      // items on the aggregate's page of numbers 1 to 1000
	AggLast   int64    // the highest aggregate number handed out
}

// Look reads the View of source id; story items are those first seen
// since storiesSince. It fails t unless the newest version rebuilds to its
// hash.
func Look(t *testing.T, s dynamo.Store, id string, storiesSince time.Time) View {
	t.Helper()
	ctx := context.Background()
	var v View
	vs, err := s.Versions(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	v.Versions = len(vs)
	if len(vs) > 0 {
		v.Newest = vs[0].Hash
		doc, _, err := s.Document(ctx, id, 1)
		if err != nil || dynamo.ContentHash(doc) != vs[0].Hash {
			t.Fatalf("the newest version does not rebuild to its hash: %v", err)
		}
	}
	items, err := s.Items(ctx, dynamo.ItemQuery{SourceID: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		v.Archive = append(v.Archive, it.Item.ID)
	}
	if err := s.StoryItems(ctx, storiesSince, func(dynamo.StoryItem) error { v.Stories++; return nil }); err != nil {
		t.Fatal(err)
	}
	agg, err := s.Aggregate(ctx, dynamo.AggregateQuery{})
	if err != nil {
		t.Fatal(err)
	}
	v.Aggregate = len(agg)
	page, err := s.Page(ctx, dynamo.PageQuery{SourceID: id, From: 1, To: 1000})
	if err != nil {
		t.Fatal(err)
	}
	v.Paged, v.Last = len(page.Items), page.Last
	ap, err := s.AggregatePage(ctx, dynamo.AggregatePageQuery{Number: 1, Size: 1000, IncludeDuplicates: true})
	if err != nil {
		t.Fatal(err)
	}
	v.AggPaged, v.AggLast = len(ap.Items), ap.Last
	return v
}

// Same reports whether two views are equal.
func (v View) Same(o View) bool {
	return v.Versions == o.Versions && v.Newest == o.Newest && slices.Equal(v.Archive, o.Archive) &&
		v.Stories == o.Stories && v.Aggregate == o.Aggregate && v.Paged == o.Paged && v.Last == o.Last &&
		v.AggPaged == o.AggPaged && v.AggLast == o.AggLast
}

func (v View) String() string {
	return fmt.Sprintf("%d versions (newest %.8s), %d archived, %d story items, %d aggregated, %d paged (last %d), %d on the aggregate's page (last %d)",
		v.Versions, v.Newest, len(v.Archive), v.Stories, v.Aggregate, v.Paged, v.Last, v.AggPaged, v.AggLast)
}
