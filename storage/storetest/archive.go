package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// testDocumentRebuildsExactly stores versions that share items, edit them
// under the same id, carry images, enclosures, updated times, extensions, odd index attributes,
// repeated ids and markup, and rebuilds each version as it was stored.
func testDocumentRebuildsExactly(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	dc := func(name, value string) dynamo.Extension {
		return dynamo.Extension{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: name, Value: value}
	}
	a, b, c := item(1, "Alpha"), item(2, "Beta"), item(3, "Gamma")
	a.Image = &dynamo.Image{URL: "http://127.0.0.1/a.png", Link: "http://127.0.0.1/news/1", Title: "Alpha's picture"}
	a.Extensions = []dynamo.Extension{dc("date", "2026-03-01T10:00:00Z"), dc("creator", "Ann & Bob <ab@127.0.0.1>"),
		{URI: dynamo.NamespaceDynamo, Prefix: "dyn", LocalName: "note", Value: `"quoted" 'text'`},
		{URI: dynamo.NamespaceDC, Prefix: "dcx", LocalName: "subject", Value: "same namespace, other prefix"}}
	a.Enclosures = []dynamo.Enclosure{{URL: "http://127.0.0.1/a.mp3", Type: "audio/mpeg", Length: 5_000_000_000},
		{URL: "http://127.0.0.1/a.pdf?x=1&y=2"}}
	aLater := a
	aLater.Extensions = []dynamo.Extension{dc("date", "2026-03-01T11:30:00+01:00")}
	aLater.Updated = time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("", 3600))
	aLater.Enclosures = aLater.Enclosures[:1]
	unicode := item(4, "Ünïcödé — 東京 🎉 Ελληνικά")
	unicode.Description = `<p>Markup &amp; <a href="http://127.0.0.1/x?a=1&amp;b=2">links</a></p>`
	unicode.Text = "Markup & links"
	bare := item(5, "No description")
	bare.Description, bare.Text = "", ""
	twin := contentItem("http://127.0.0.1/a", "Twin", "same")

	v1 := doc("a", t0, a, b)
	v1.Channel.Extensions = []dynamo.Extension{dc("language", "de-AT"), dc("date", "2026-03-01T09:00:00Z")}
	v2 := doc("a", t0.Add(time.Hour), c, aLater, edited(b, "Beta, corrected"))
	v2.Channel.Image = &dynamo.Image{URL: "http://127.0.0.1/logo.png", Link: "http://127.0.0.1/", Title: "logo"}
	v3 := doc("a", t0.Add(2*time.Hour), a, b) // the first content again
	v3.Items[1].Index = 7                     // an index attribute that is not the position
	v4 := doc("a", t0.Add(3*time.Hour), unicode, twin, bare, twin, a)
	v4.URL = "http://127.0.0.1/a?page=1&sort=new"
	v4.Channel.Title = "Renamed <channel> & co"
	v5 := doc("a", t0.Add(4*time.Hour))
	v5.Timestamp = t0.Add(4*time.Hour + 30*time.Second) // fetched later than seen, in whole seconds
	restyled := unicode                                 // new markup, the same plain text
	restyled.Description = "<div>Markup &amp; links</div>"
	v6 := doc("a", t0.Add(5*time.Hour), restyled, bare)
	docs := []*dynamo.Resource{v1, v2, v3, v4, v5, v6}
	for i, d := range docs {
		res := record(t, s, "a", t0.Add(time.Duration(i)*time.Hour), d)
		if res.Version == nil || res.Version.Seq != i+1 {
			t.Fatalf("storing version %d: %+v", i+1, res.Version)
		}
	}

	for i, want := range docs {
		index := len(docs) - i
		got, v, err := s.Document(ctx, "a", index)
		if err != nil {
			t.Fatalf("Document(%d): %v", index, err)
		}
		checkDocument(t, fmt.Sprintf("Document(%d)", index), got, want)
		if v == nil || v.Seq != i+1 || v.Index != index || v.Hash != dynamo.ContentHash(want) ||
			!v.SeenAt.Equal(t0.Add(time.Duration(i)*time.Hour)) || v.Items != len(want.Items) {
			t.Errorf("Document(%d) version %+v", index, v)
		}
	}
	for _, index := range []int{0, -1, len(docs) + 1} {
		_, _, err := s.Document(ctx, "a", index)
		wantErr(t, fmt.Sprintf("Document(a, %d)", index), err, dynamo.ErrNotFound)
	}
	_, _, err := s.Document(ctx, "missing", 1)
	wantErr(t, "Document(missing, 1)", err, dynamo.ErrNotFound)

	// Head is Document without the items.
	for index := 1; index <= len(docs); index++ {
		full, fullV, err := s.Document(ctx, "a", index)
		if err != nil {
			t.Fatalf("Document(%d): %v", index, err)
		}
		head, v, err := s.Head(ctx, "a", index)
		if err != nil {
			t.Fatalf("Head(%d): %v", index, err)
		}
		full.Items = nil
		if !reflect.DeepEqual(head, full) || !reflect.DeepEqual(v, fullV) {
			t.Errorf("Head(%d) = %+v %+v, want %+v %+v", index, head, v, full, fullV)
		}
	}
	for _, index := range []int{0, -1, len(docs) + 1} {
		_, _, err := s.Head(ctx, "a", index)
		wantErr(t, fmt.Sprintf("Head(a, %d)", index), err, dynamo.ErrNotFound)
	}
	_, _, err = s.Head(ctx, "missing", 1)
	wantErr(t, "Head(missing, 1)", err, dynamo.ErrNotFound)
}

// testVersions lists versions newest first with what each added and
// removed.
func testVersions(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	if vs := mustVersions(t, s, "a"); len(vs) != 0 {
		t.Errorf("a source without polls has versions %+v", vs)
	}
	a, b, c, d, e := item(1, "A"), item(2, "B"), item(3, "C"), item(4, "D"), item(5, "E")
	docs := []*dynamo.Resource{
		doc("a", t0, a, b, c),
		doc("a", t0.Add(time.Hour), d, a, edited(b, "B edited")), // +d −c
		doc("a", t0.Add(2*time.Hour), e, c, d),                   // +e +c −a −b
	}
	docs[2].Channel.Title = "a renamed"
	for _, dd := range docs {
		record(t, s, "a", dd.Timestamp, dd)
	}
	want := []dynamo.Version{
		{SourceID: "a", Seq: 3, Index: 1, SeenAt: t0.Add(2 * time.Hour), Hash: dynamo.ContentHash(docs[2]), Title: "a renamed", Items: 3, Added: 2, Removed: 2},
		{SourceID: "a", Seq: 2, Index: 2, SeenAt: t0.Add(time.Hour), Hash: dynamo.ContentHash(docs[1]), Title: "a news", Items: 3, Added: 1, Removed: 1},
		{SourceID: "a", Seq: 1, Index: 3, SeenAt: t0, Hash: dynamo.ContentHash(docs[0]), Title: "a news", Items: 3, Added: 3, Removed: 0},
	}
	got := mustVersions(t, s, "a")
	if len(got) != len(want) {
		t.Fatalf("Versions = %+v, want %+v", got, want)
	}
	for i := range want {
		g := got[i]
		if !g.SeenAt.Equal(want[i].SeenAt) {
			t.Errorf("version %d seen at %v, want %v", i+1, g.SeenAt, want[i].SeenAt)
		}
		g.SeenAt = want[i].SeenAt
		if g != want[i] {
			t.Errorf("Versions()[%d] = %+v, want %+v", i, g, want[i])
		}
	}
	_, err := s.Versions(ctx, "missing")
	wantErr(t, "Versions(missing)", err, dynamo.ErrNotFound)
}

// archiveFixture stores three versions: the archive is e f d a b c (newest
// first by first seen, then page order), b with its edited description.
type archiveFixture struct {
	a, b, c, d, e, f dynamo.Item
	bEdited          dynamo.Item
	docs             []*dynamo.Resource
}

func storeArchiveFixture(t *testing.T, s dynamo.Store) archiveFixture {
	t.Helper()
	addSource(t, s, "a")
	fx := archiveFixture{a: item(1, "Apple harvest"), b: item(2, "Bridge closed"), c: item(3, "City council"),
		d: item(4, "Dam repaired"), e: item(5, "Election day"), f: item(6, "Festival opens")}
	fx.bEdited = edited(fx.b, "Bridge closed, corrected")
	fx.docs = []*dynamo.Resource{
		doc("a", t0, fx.a, fx.b, fx.c),
		doc("a", t0.Add(time.Hour), fx.d, fx.a, fx.bEdited),
		doc("a", t0.Add(2*time.Hour), fx.e, fx.f, fx.d, fx.a),
	}
	for _, d := range fx.docs {
		record(t, s, "a", d.Timestamp, d)
	}
	return fx
}

// testArchiveItems lists each item once, newest first by first seen and
// then page order, with its latest content and when it was first and last
// seen.
func testArchiveItems(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	fx := storeArchiveFixture(t, s)
	archive := mustItems(t, s, dynamo.ItemQuery{SourceID: "a"})
	want := []struct {
		item                dynamo.Item
		firstSeen, lastSeen time.Time
	}{
		{fx.e, t0.Add(2 * time.Hour), t0.Add(2 * time.Hour)},
		{fx.f, t0.Add(2 * time.Hour), t0.Add(2 * time.Hour)},
		{fx.d, t0.Add(time.Hour), t0.Add(2 * time.Hour)},
		{fx.a, t0, t0.Add(2 * time.Hour)},
		{fx.bEdited, t0, t0.Add(time.Hour)},
		{fx.c, t0, t0},
	}
	if len(archive) != len(want) {
		t.Fatalf("archive ids %v, want %d items", itemIDs(archive), len(want))
	}
	for i, w := range want {
		got := archive[i]
		if got.Item.ID != w.item.ID {
			t.Errorf("archive[%d] is %q (%s), want %q", i, got.Item.Title, got.Item.ID, w.item.Title)
			continue
		}
		if got.SourceID != "a" || !got.FirstSeen.Equal(w.firstSeen) || !got.LastSeen.Equal(w.lastSeen) {
			t.Errorf("archive[%d] %q: source %q, first seen %v, last seen %v; want first %v, last %v",
				i, w.item.Title, got.SourceID, got.FirstSeen, got.LastSeen, w.firstSeen, w.lastSeen)
		}
		if got.Item.Title != w.item.Title || got.Item.Link != w.item.Link || got.Item.Description != w.item.Description {
			t.Errorf("archive[%d] content %q %q %q, want %q %q %q", i, got.Item.Title, got.Item.Link,
				got.Item.Description, w.item.Title, w.item.Link, w.item.Description)
		}
		checkDerived(t, fmt.Sprintf("archive[%d]", i), got.Item, w.item)
		if got.DuplicateOf != nil {
			t.Errorf("archive[%d] duplicate of %+v, want none", i, got.DuplicateOf)
		}
	}
	for _, max := range []int{1, 4, 6, 100} {
		got := mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Max: max})
		checkIDs(t, fmt.Sprintf("archive max %d", max), itemIDs(got), itemIDs(archive)[:min(max, len(archive))])
	}
	// When they were first seen: at or after Since, before Until; the same
	// bounds across collections.
	for _, r := range []struct {
		since, until time.Time
		want         []dynamo.Item
	}{
		{t0.Add(time.Hour), time.Time{}, []dynamo.Item{fx.e, fx.f, fx.d}},
		{time.Time{}, t0.Add(time.Hour), []dynamo.Item{fx.a, fx.bEdited, fx.c}},
		{t0.Add(time.Hour), t0.Add(2 * time.Hour), []dynamo.Item{fx.d}},
		{t0.Add(3 * time.Hour), time.Time{}, nil},
	} {
		var want []string
		for _, it := range r.want {
			want = append(want, it.ID)
		}
		what := fmt.Sprintf("archive first seen in [%v, %v)", r.since, r.until)
		checkIDs(t, what, itemIDs(mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Since: r.since, Until: r.until})), want)
		agg, err := s.Aggregate(ctx, dynamo.AggregateQuery{Since: r.since, Until: r.until, IncludeDuplicates: true})
		if err != nil {
			t.Fatalf("Aggregate %s: %v", what, err)
		}
		var got []string
		for _, it := range agg {
			if it.SourceID == "a" {
				got = append(got, it.Item.ID)
			}
			if (!r.since.IsZero() && it.FirstSeen.Before(r.since)) || (!r.until.IsZero() && !it.FirstSeen.Before(r.until)) {
				t.Errorf("aggregate %s: %s first seen %v", what, it.Item.ID, it.FirstSeen)
			}
		}
		checkIDs(t, "aggregate "+what, got, want)
	}
	_, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "missing"})
	wantErr(t, "Items(missing)", err, dynamo.ErrNotFound)
}

// testEachItem walks the items Items answers, in its order, for archive
// and version queries; an error of fn stops the walk at that item and
// comes back from EachItem; an unknown collection is ErrNotFound.
func testEachItem(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	storeArchiveFixture(t, s)
	for _, q := range []dynamo.ItemQuery{
		{SourceID: "a"},
		{SourceID: "a", Max: 4},
		{SourceID: "a", Version: 2},
		{SourceID: "a", Version: 1, Max: 1},
		{SourceID: "a", Since: t0.Add(time.Hour)},
	} {
		var walked []dynamo.ArchivedItem
		err := s.EachItem(ctx, q, func(it *dynamo.ArchivedItem) error {
			walked = append(walked, *it)
			return nil
		})
		if err != nil {
			t.Fatalf("EachItem(%+v): %v", q, err)
		}
		want := mustItems(t, s, q)
		if len(want) == 0 || !reflect.DeepEqual(walked, want) {
			t.Errorf("EachItem(%+v) walked %v, Items answered %v (want the same, not none)", q, itemIDs(walked), itemIDs(want))
		}
		checkItemsOnly(t, s, q)
	}
	stop := errors.New("enough")
	calls := 0
	err := s.EachItem(ctx, dynamo.ItemQuery{SourceID: "a"}, func(*dynamo.ArchivedItem) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("EachItem stopped by fn: %d calls, error %v; want 1 call and fn's error", calls, err)
	}
	err = s.EachItem(ctx, dynamo.ItemQuery{SourceID: "missing"}, func(*dynamo.ArchivedItem) error { return nil })
	wantErr(t, "EachItem(missing)", err, dynamo.ErrNotFound)
}

// testVersionItems answers queries on one version with that version's
// items, in page order and with the content they had in it.
func testVersionItems(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	fx := storeArchiveFixture(t, s)
	for i, d := range fx.docs {
		index := len(fx.docs) - i
		got := mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Version: index})
		if len(got) != len(d.Items) {
			t.Errorf("version %d: ids %v, want %v", index, itemIDs(got), idsOf(d.Items...))
			continue
		}
		for j := range d.Items {
			checkItem(t, fmt.Sprintf("version %d item %d", index, j+1), got[j].Item, d.Items[j])
		}
		limited := mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Version: index, Max: 2})
		checkIDs(t, fmt.Sprintf("version %d max 2", index), itemIDs(limited), idsOf(d.Items[:2]...))
	}
	corrected := []dynamo.Condition{{Field: dynamo.FieldDescription, Value: "CORRECTED"}}
	checkIDs(t, "version 2 description 'corrected'",
		itemIDs(mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Version: 2, Conditions: corrected})), idsOf(fx.b))
	checkIDs(t, "version 3 description 'corrected'",
		itemIDs(mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Version: 3, Conditions: corrected})), nil)
	checkIDs(t, "archive description 'corrected'",
		itemIDs(mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Conditions: corrected})), idsOf(fx.b))
	for _, index := range []int{-1, 4} {
		_, err := s.Items(ctx, dynamo.ItemQuery{SourceID: "a", Version: index})
		wantErr(t, fmt.Sprintf("Items(version %d)", index), err, dynamo.ErrNotFound)
	}
}

// testConditionsLeftToRight checks named cases of the condition language:
// fields, case, markup, and and/or read left to right.
func testConditionsLeftToRight(t *testing.T, s dynamo.Store) {
	fx := storeArchiveFixture(t, s)
	title := func(v string) dynamo.Condition { return dynamo.Condition{Field: dynamo.FieldTitle, Value: v} }
	or := func(c dynamo.Condition) dynamo.Condition { c.Or = true; return c }
	cases := []struct {
		name  string
		conds []dynamo.Condition
		want  []dynamo.Item
	}{
		{"title, any case", []dynamo.Condition{title("ELECTION")}, []dynamo.Item{fx.e}},
		{"link", []dynamo.Condition{{Field: dynamo.FieldLink, Value: "/news/4"}}, []dynamo.Item{fx.d}},
		{"description matches text, not markup", []dynamo.Condition{{Field: dynamo.FieldDescription, Value: "<p>"}}, nil},
		{"description text", []dynamo.Condition{{Field: dynamo.FieldDescription, Value: "opens body"}}, []dynamo.Item{fx.f}},
		{"and", []dynamo.Condition{title("a"), title("r")}, []dynamo.Item{fx.d, fx.a}},
		{"or", []dynamo.Condition{title("apple"), or(title("city"))}, []dynamo.Item{fx.a, fx.c}},
		// ((festival OR dam) AND repaired): the or binds first because it comes first.
		{"or then and", []dynamo.Condition{title("festival"), or(title("dam")), title("repaired")}, []dynamo.Item{fx.d}},
		// ((dam AND repaired) OR festival)
		{"and then or", []dynamo.Condition{title("dam"), title("repaired"), or(title("festival"))}, []dynamo.Item{fx.f, fx.d}},
		{"no match", []dynamo.Condition{title("zebra")}, nil},
		{"empty value matches all", []dynamo.Condition{title("")}, []dynamo.Item{fx.e, fx.f, fx.d, fx.a, fx.b, fx.c}},
	}
	for _, tc := range cases {
		got := mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Conditions: tc.conds})
		checkIDs(t, tc.name, itemIDs(got), idsOf(tc.want...))
	}
}

// conditionWords are the titles, links and texts of the items that random
// conditions are matched against: Unicode case pairs, characters that are
// special in SQL patterns, and characters whose case folding is not one to
// one.
var conditionWords = []string{
	"Straße", "STRASSE", "Ärger", "ärger", "ΣΊΣΥΦΟΣ", "σίσυφος", "İstanbul", "ıi", "100% sicher", "a_b", `back\slash`,
	"naïve café", "CAFÉ", "ﬁle", "東京", "🎉 party", "Ωmega", "K Kelvin", "ǅemal", "plain", "news", "NEWS", "'quote'", `"dq"`,
}

// testConditionsAgreeWithMatch compares the store's answers to
// dynamo.Match, the reference semantics, for random condition chains over
// the archive and within a version.
func testConditionsAgreeWithMatch(t *testing.T, s dynamo.Store) {
	addSource(t, s, "a")
	rng := rand.New(rand.NewPCG(1, 2)) // fixed, so that a failure repeats
	word := func() string { return conditionWords[rng.IntN(len(conditionWords))] }
	var items []dynamo.Item
	for n := range 40 {
		it := item(n, word()+" "+word())
		it.Link += "/" + word()
		it.Text = word() + " " + word()
		it.Description = "<p>" + it.Text + "</p>"
		items = append(items, it)
	}
	// Two versions: half the items, then the other half and a few old ones.
	record(t, s, "a", t0, doc("a", t0, items[:20]...))
	second := append(slices.Clone(items[20:]), items[3], items[7])
	record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), second...))

	archive := mustItems(t, s, dynamo.ItemQuery{SourceID: "a"})
	version1 := mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Version: 1})
	if len(archive) != 40 || len(version1) != 22 {
		t.Fatalf("archive holds %d items and version 1 %d, want 40 and 22", len(archive), len(version1))
	}
	fields := []dynamo.Field{dynamo.FieldTitle, dynamo.FieldLink, dynamo.FieldDescription}
	for q := range 200 {
		conds := make([]dynamo.Condition, 1+rng.IntN(4))
		for i := range conds {
			conds[i] = dynamo.Condition{Or: rng.IntN(3) == 0, Field: fields[rng.IntN(len(fields))], Value: fragment(rng, word())}
		}
		max := 0
		if rng.IntN(4) == 0 {
			max = 1 + rng.IntN(5)
		}
		for _, tc := range []struct {
			version int
			all     []dynamo.ArchivedItem
		}{{0, archive}, {1, version1}} {
			var want []string
			for _, it := range tc.all {
				if dynamo.Match(conds, &it.Item) && (max == 0 || len(want) < max) {
					want = append(want, it.Item.ID)
				}
			}
			got := mustItems(t, s, dynamo.ItemQuery{SourceID: "a", Version: tc.version, Conditions: conds, Max: max})
			if !slices.Equal(itemIDs(got), want) {
				t.Errorf("query %d (version %d, max %d, conditions %+v): %d items, want %d", q, tc.version, max, conds, len(got), len(want))
			}
		}
	}
}

// fragment returns a random piece of w, in a random case.
func fragment(rng *rand.Rand, w string) string {
	runes := []rune(w)
	i := rng.IntN(len(runes))
	j := i + 1 + rng.IntN(len(runes)-i)
	f := string(runes[i:j])
	switch rng.IntN(3) {
	case 0:
		return dynamo.FoldCase(f)
	case 1:
		return strings.ToUpper(f)
	}
	return f
}

// testAggregate reads across collections: newest first, each story once
// with the sources that also carried it, or every copy when duplicates are
// included; by category and with conditions.
func testAggregate(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for id, category := range map[string]string{"a": "news", "b": "news", "c": "sport", "d": "news"} {
		src := newSource(id)
		src.Category = category
		if err := s.CreateSource(ctx, src); err != nil {
			t.Fatalf("CreateSource(%s): %v", id, err)
		}
	}
	a1, a2 := item(1, "Storm hits coast"), item(2, "Local election")
	b1 := item(11, "Storm hits the coast")
	c1 := item(21, "Cup final tonight")
	d1 := item(31, "Storm has hit the coast")
	record(t, s, "a", t0, doc("a", t0, a1, a2))
	primary := dynamo.ItemKey{SourceID: "a", ItemID: a1.ID}
	dup := dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: "b", ItemID: b1.ID}, Primary: primary, Matched: primary,
		Rule: "text", Score: 0.875}
	recordWith(t, s, "b", t0.Add(time.Hour), doc("b", t0.Add(time.Hour), b1), withDuplicates(t0.Add(time.Hour), dup))
	record(t, s, "c", t0.Add(2*time.Hour), doc("c", t0.Add(2*time.Hour), c1))
	// A later copy decided against b's copy names the story's primary.
	dup2 := dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: "d", ItemID: d1.ID}, Primary: primary, Matched: dup.Item,
		Rule: "short-identical", Score: 1}
	recordWith(t, s, "d", t0.Add(-time.Hour), doc("d", t0.Add(-time.Hour), d1), withDuplicates(t0.Add(-time.Hour), dup2))

	storm := []dynamo.Condition{{Field: dynamo.FieldTitle, Value: "STORM"}}
	cases := []struct {
		name string
		q    dynamo.AggregateQuery
		want []dynamo.Item
	}{
		{"every story once", dynamo.AggregateQuery{}, []dynamo.Item{c1, a1, a2}},
		{"every copy", dynamo.AggregateQuery{IncludeDuplicates: true}, []dynamo.Item{c1, b1, a1, a2, d1}},
		{"category", dynamo.AggregateQuery{Category: "news"}, []dynamo.Item{a1, a2}},
		{"category, every copy", dynamo.AggregateQuery{Category: "news", IncludeDuplicates: true}, []dynamo.Item{b1, a1, a2, d1}},
		{"other category", dynamo.AggregateQuery{Category: "sport"}, []dynamo.Item{c1}},
		{"unknown category", dynamo.AggregateQuery{Category: "none"}, nil},
		{"conditions", dynamo.AggregateQuery{Conditions: storm}, []dynamo.Item{a1}},
		{"conditions, every copy", dynamo.AggregateQuery{Conditions: storm, IncludeDuplicates: true}, []dynamo.Item{b1, a1, d1}},
		{"max", dynamo.AggregateQuery{Max: 2}, []dynamo.Item{c1, a1}},
	}
	for _, tc := range cases {
		got, err := s.Aggregate(ctx, tc.q)
		if err != nil {
			t.Fatalf("Aggregate(%s): %v", tc.name, err)
		}
		ids := make([]string, len(got))
		for i, it := range got {
			ids[i] = it.Item.ID
		}
		checkIDs(t, "Aggregate "+tc.name, ids, idsOf(tc.want...))
		for _, it := range got {
			// Naming the other copies is only required when they are folded.
			wantAlso := it.Item.ID == a1.ID
			for _, d := range []dynamo.Duplicate{dup, dup2} {
				if got := slices.Contains(it.AlsoIn, d.Item); got != wantAlso && !(wantAlso && tc.q.IncludeDuplicates) {
					t.Errorf("Aggregate %s: %q also in %v", tc.name, it.Item.Title, it.AlsoIn)
				}
			}
			for _, d := range []dynamo.Duplicate{dup, dup2} {
				if it.Item.ID == d.Item.ItemID {
					checkDuplicate(t, "Aggregate "+tc.name, it.ArchivedItem, d)
				}
			}
		}
	}

	// The duplicate's own archive says what it duplicates.
	bItems := mustItems(t, s, dynamo.ItemQuery{SourceID: "b"})
	if len(bItems) != 1 {
		t.Fatalf("archive of b = %+v", bItems)
	}
	checkDuplicate(t, "archive of b", bItems[0], dup)
	checkItemsOnly(t, s, dynamo.ItemQuery{SourceID: "b"})
	if sum := mustSource(t, s, "b").Summary; sum.Duplicates != 1 {
		t.Errorf("summary of b counts %d duplicates, want 1", sum.Duplicates)
	}

	// Purging the source of the copy a duplicate was decided against keeps
	// the duplicate, without the copy.
	if err := s.DeleteSource(ctx, "b", true); err != nil {
		t.Fatalf("DeleteSource(b, purge): %v", err)
	}
	dItems := mustItems(t, s, dynamo.ItemQuery{SourceID: "d"})
	if len(dItems) != 1 || dItems[0].DuplicateOf == nil || *dItems[0].DuplicateOf != primary || dItems[0].DuplicateMatched != nil {
		t.Errorf("archive of d after purging b = %+v, want a copy of %+v decided against no copy", dItems, primary)
	}

	// Purging the primary's source leaves the story with its other copy.
	if err := s.DeleteSource(ctx, "a", true); err != nil {
		t.Fatalf("DeleteSource(a, purge): %v", err)
	}
	got, err := s.Aggregate(ctx, dynamo.AggregateQuery{Category: "news"})
	if err != nil {
		t.Fatalf("Aggregate after purge: %v", err)
	}
	if len(got) != 1 || got[0].Item.ID != d1.ID {
		t.Errorf("Aggregate after purging the primary = %+v, want d's copy", got)
	}
}

// checkItemsOnly checks that q asked for items only (ItemsOnly) answers
// its items as q does, without their last seen time and duplicate record.
func checkItemsOnly(t *testing.T, s dynamo.Store, q dynamo.ItemQuery) {
	t.Helper()
	want := mustItems(t, s, q)
	for i := range want {
		a := &want[i]
		a.LastSeen, a.DuplicateOf, a.DuplicateRule, a.DuplicateScore, a.DuplicateMatched = time.Time{}, nil, "", 0, nil
	}
	q.ItemsOnly = true
	if got := mustItems(t, s, q); len(got) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("Items(%+v) = %+v, want %+v", q, got, want)
	}
}

// checkDuplicate reports an archived item that does not carry the
// duplicate record want.
func checkDuplicate(t *testing.T, what string, got dynamo.ArchivedItem, want dynamo.Duplicate) {
	t.Helper()
	if got.DuplicateOf == nil || *got.DuplicateOf != want.Primary || got.DuplicateRule != want.Rule ||
		got.DuplicateScore != want.Score || got.DuplicateMatched == nil || *got.DuplicateMatched != want.Matched {
		t.Errorf("%s: %q is a copy of %+v (rule %q, score %g, matched %+v), want %+v",
			what, got.Item.Title, got.DuplicateOf, got.DuplicateRule, got.DuplicateScore, got.DuplicateMatched, want)
	}
}

// testStoryItems lists what a detector of stories reads of the items first
// seen since a time, oldest first, with their recorded primaries and their
// sources' title prefixes.
func testStoryItems(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		src := newSource(id)
		src.TitlePrefix = "[" + id + "]"
		if err := s.CreateSource(ctx, src); err != nil {
			t.Fatalf("CreateSource(%s): %v", id, err)
		}
	}
	a1, a2, b1, c1 := item(1, "One"), item(2, "Two"), item(3, "Three"), item(4, "Four")
	record(t, s, "a", t0, doc("a", t0, a1, a2))
	primary := dynamo.ItemKey{SourceID: "a", ItemID: a1.ID}
	dup := dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: "b", ItemID: b1.ID}, Primary: primary, Matched: primary, Rule: "text", Score: 0.7}
	recordWith(t, s, "b", t0.Add(time.Hour), doc("b", t0.Add(time.Hour), b1), withDuplicates(t0.Add(time.Hour), dup))
	record(t, s, "c", t0.Add(2*time.Hour), doc("c", t0.Add(2*time.Hour), c1))
	// An unchanged item in a later version is not seen anew.
	record(t, s, "a", t0.Add(3*time.Hour), doc("a", t0.Add(3*time.Hour), a1))

	collect := func(since time.Time) []dynamo.StoryItem {
		var out []dynamo.StoryItem
		err := s.StoryItems(ctx, since, func(it dynamo.StoryItem) error {
			out = append(out, it)
			return nil
		})
		if err != nil {
			t.Fatalf("StoryItems(%v): %v", since, err)
		}
		return out
	}
	storyItem := func(src string, it dynamo.Item, at time.Time, of *dynamo.ItemKey) dynamo.StoryItem {
		return dynamo.StoryItem{Key: dynamo.ItemKey{SourceID: src, ItemID: it.ID}, FirstSeen: at, Title: it.Title,
			Description: it.Description, TitlePrefix: "[" + src + "]", DuplicateOf: of}
	}
	all := []dynamo.StoryItem{storyItem("a", a1, t0, nil), storyItem("a", a2, t0, nil),
		storyItem("b", b1, t0.Add(time.Hour), &primary), storyItem("c", c1, t0.Add(2*time.Hour), nil)}
	for _, tc := range []struct {
		since time.Time
		want  []dynamo.StoryItem
	}{
		{time.Time{}, all},
		{t0, all},
		{t0.Add(time.Second), all[2:]},
		{t0.Add(time.Hour), all[2:]},
		{t0.Add(3 * time.Hour), nil},
	} {
		got := collect(tc.since)
		if len(got) != len(tc.want) {
			t.Errorf("StoryItems since %v = %+v, want %+v", tc.since, got, tc.want)
			continue
		}
		for i := range got {
			if !sameStoryItem(got[i], tc.want[i]) {
				t.Errorf("StoryItems since %v [%d] = %+v, want %+v", tc.since, i, got[i], tc.want[i])
			}
		}
	}
	stop := errors.New("stop")
	calls := 0
	err := s.StoryItems(ctx, time.Time{}, func(dynamo.StoryItem) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("StoryItems with a failing fn: %v after %d calls, want the fn's error after 1", err, calls)
	}
}

func sameStoryItem(a, b dynamo.StoryItem) bool {
	samePrimary := a.DuplicateOf == nil && b.DuplicateOf == nil ||
		a.DuplicateOf != nil && b.DuplicateOf != nil && *a.DuplicateOf == *b.DuplicateOf
	return a.Key == b.Key && a.FirstSeen.Equal(b.FirstSeen) && a.Title == b.Title && a.Description == b.Description &&
		a.TitlePrefix == b.TitlePrefix && samePrimary && a.Seq == b.Seq
}

// recordStories records a poll that asks for story numbers, with decide
// called on what the store hands it.
func recordStories(t *testing.T, s dynamo.Store, id string, at time.Time, d *dynamo.Resource, after int64, decide func(dynamo.PollResult)) dynamo.PollResult {
	return recordStoriesSince(t, s, id, at, d, after, time.Time{}, decide)
}

// recordStoriesSince is recordStories, handed only items first seen at or
// after since.
func recordStoriesSince(t *testing.T, s dynamo.Store, id string, at time.Time, d *dynamo.Resource, after int64, since time.Time, decide func(dynamo.PollResult)) dynamo.PollResult {
	t.Helper()
	ctx := context.Background()
	if _, err := s.LeaseSource(ctx, id, "test", at, time.Minute); err != nil {
		t.Errorf("LeaseSource(%s): %v", id, err)
		return dynamo.PollResult{}
	}
	rec := dynamo.PollRecord{SourceID: id, Owner: "test", At: at, Document: d, Stories: true, StoriesAfter: after, StoriesSince: since}
	res, err := s.RecordPoll(ctx, rec, func(r dynamo.PollResult) dynamo.PollUpdate {
		decide(r)
		return decideFlat(at)(r)
	})
	if err != nil {
		t.Errorf("RecordPoll(%s with stories): %v", id, err)
	}
	return res
}

// testStoryNumbers checks that polls asking for it number their new items
// in the order they commit, and are handed the items other polls stored
// after the number they give, first seen since the time they give.
func testStoryNumbers(t *testing.T, s dynamo.Store) {
	for _, id := range []string{"a", "b", "c", "d"} {
		addSource(t, s, id)
	}
	a1, a2, b1, c1 := item(1, "One"), item(2, "Two"), item(3, "Three"), item(4, "Four")
	var seen []dynamo.StoryItem
	keep := func(r dynamo.PollResult) { seen = r.StoredSince }
	ra := recordStories(t, s, "a", t0, doc("a", t0, a1, a2), 0, keep)
	if len(seen) != 0 || ra.StoriesSeq < 2 {
		t.Fatalf("first poll: handed %+v, numbered up to %d", seen, ra.StoriesSeq)
	}
	rb := recordStories(t, s, "b", t0.Add(time.Hour), doc("b", t0.Add(time.Hour), b1), 0, keep)
	if len(seen) != 2 || seen[0].Key.ItemID != a1.ID || seen[1].Key.ItemID != a2.ID || seen[1].Seq != ra.StoriesSeq || rb.StoriesSeq <= ra.StoriesSeq {
		t.Fatalf("second poll after 0: handed %+v, numbered %d (first %d)", seen, rb.StoriesSeq, ra.StoriesSeq)
	}
	recordStories(t, s, "c", t0.Add(2*time.Hour), doc("c", t0.Add(2*time.Hour), c1), ra.StoriesSeq, keep)
	if len(seen) != 1 || seen[0].Key.ItemID != b1.ID || seen[0].Seq != rb.StoriesSeq {
		t.Fatalf("third poll after %d: handed %+v", ra.StoriesSeq, seen)
	}
	// A poll storing nothing new is handed nothing and numbers nothing.
	seen = nil
	rn := recordStories(t, s, "a", t0.Add(3*time.Hour), doc("a", t0.Add(3*time.Hour), a1, a2), 0, keep)
	if seen != nil || rn.StoriesSeq != 0 {
		t.Errorf("a poll without new items: handed %+v, numbered %d", seen, rn.StoriesSeq)
	}
	// StoryItems reads the numbers back, in their order.
	var order []int64
	if err := s.StoryItems(context.Background(), time.Time{}, func(it dynamo.StoryItem) error {
		order = append(order, it.Seq)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(order) != 4 || !slices.IsSorted(order) || order[0] == 0 {
		t.Errorf("StoryItems numbers %v, want 4 increasing", order)
	}
	// Items first seen before the time given are not handed over.
	recordStoriesSince(t, s, "d", t0.Add(4*time.Hour), doc("d", t0.Add(4*time.Hour), item(5, "Five")), 0, t0.Add(30*time.Minute), keep)
	if len(seen) != 2 || seen[0].Key.ItemID != b1.ID || seen[1].Key.ItemID != c1.ID {
		t.Errorf("a poll after 0, since 30 minutes after the first: handed %+v, want b's and c's items", seen)
	}
}

// testStoryPollsSerialized records two story polls at once: whichever
// decides second must be handed the first one's items, as its decide runs
// after the first committed. Each decide waits a while, so that polls that
// were not serialized would overlap.
func testStoryPollsSerialized(t *testing.T, s dynamo.Store) {
	for round := range 3 {
		ids := [2]string{fmt.Sprint("x", round), fmt.Sprint("y", round)}
		for _, id := range ids {
			addSource(t, s, id)
		}
		at := t0.Add(time.Duration(round) * time.Hour)
		var mu sync.Mutex
		var handed []int
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				d := doc(id, at, item(100*round+10*i+1, "Story "+id), item(100*round+10*i+2, "Other "+id))
				recordStories(t, s, id, at, d, 0, func(r dynamo.PollResult) {
					time.Sleep(50 * time.Millisecond)
					n := 0
					for _, it := range r.StoredSince {
						if it.Key.SourceID == ids[1-i] {
							n++
						}
					}
					mu.Lock()
					handed = append(handed, n)
					mu.Unlock()
				})
			}()
		}
		close(start)
		wg.Wait()
		slices.Sort(handed)
		if len(handed) != 2 || handed[0] != 0 || handed[1] != 2 {
			t.Errorf("round %d: the two polls were handed %v of each other's items, want 0 and 2", round, handed)
		}
	}
}

// testStats counts the store and each collection.
func testStats(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	if st := mustStats(t, s); st.Sources != 0 || st.Versions != 0 || st.Items != 0 || len(st.PerSource) != 0 {
		t.Errorf("Stats of an empty store %+v", st)
	}
	for _, id := range []string{"a", "b", "c"} {
		addSource(t, s, id)
	}
	a1, a2, b1, b2, c1 := item(1, "A1"), item(2, "A2"), item(3, "B1"), item(4, "B2"), item(5, "C1")
	record(t, s, "a", t0, doc("a", t0, a1))
	record(t, s, "a", t0.Add(time.Hour), doc("a", t0.Add(time.Hour), a1, a2))
	record(t, s, "a", t0.Add(2*time.Hour), doc("a", t0.Add(2*time.Hour), a1, a2))
	record(t, s, "a", t0.Add(3*time.Hour), nil)
	dup := dynamo.Duplicate{Item: dynamo.ItemKey{SourceID: "b", ItemID: b1.ID}, Primary: dynamo.ItemKey{SourceID: "a", ItemID: a1.ID}, Matched: dynamo.ItemKey{SourceID: "a", ItemID: a1.ID}, Rule: "text", Score: 0.9}
	recordWith(t, s, "b", t0, doc("b", t0, b1, b2), withDuplicates(t0, dup))
	record(t, s, "c", t0, doc("c", t0, c1))
	if err := s.DeleteSource(ctx, "c", false); err != nil {
		t.Fatalf("DeleteSource(c): %v", err)
	}

	st := mustStats(t, s)
	if st.Sources != 2 || st.Versions != 4 || st.Items != 5 || st.Duplicates != 1 || st.DuplicateShare != 0.2 {
		t.Errorf("Stats: %d sources, %d versions, %d items, %d duplicates (share %v); want 2, 4, 5, 1 (0.2)",
			st.Sources, st.Versions, st.Items, st.Duplicates, st.DuplicateShare)
	}
	if st.Polls["changed"] != 4 || st.Polls["unchanged"] != 2 {
		t.Errorf("Stats polls %v, want 4 changed and 2 unchanged", st.Polls)
	}
	want := []dynamo.SourceStats{
		{ID: "a", Versions: 2, Items: 2, Polls: map[string]int{"changed": 2, "unchanged": 2}},
		{ID: "b", Versions: 1, Items: 2, Duplicates: 1, DuplicateShare: 0.5, Polls: map[string]int{"changed": 1}},
		{ID: "c", Versions: 1, Items: 1, Polls: map[string]int{"changed": 1}},
	}
	if len(st.PerSource) != len(want) {
		t.Fatalf("Stats per source %+v, want %+v", st.PerSource, want)
	}
	for i, w := range want {
		g := st.PerSource[i]
		if g.ID != w.ID || g.Versions != w.Versions || g.Items != w.Items || g.Duplicates != w.Duplicates ||
			g.DuplicateShare != w.DuplicateShare || fmt.Sprint(g.Polls) != fmt.Sprint(w.Polls) {
			t.Errorf("Stats per source [%d] = %+v, want %+v", i, g, w)
		}
	}
}

// testArchivePages reads pages of the archive by item numbers: numbered in
// the order first seen (one version's new items from the bottom of the page
// up), each item with the content it was first stored with, the page headed
// by the version that first held its last item while it is full; a full
// page stays the same through later versions and edits.
func testArchivePages(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	fx := storeArchiveFixture(t, s)
	page := func(from, to int64, conds ...dynamo.Condition) *dynamo.ArchivePage {
		t.Helper()
		p, err := s.Page(ctx, dynamo.PageQuery{SourceID: "a", From: from, To: to, Conditions: conds})
		if err != nil {
			t.Fatalf("Page(%d, %d, %v): %v", from, to, conds, err)
		}
		return p
	}
	check := func(what string, p *dynamo.ArchivePage, last, older int64, headSeq int, want ...dynamo.Item) {
		t.Helper()
		checkIDs(t, what, itemIDs(p.Items), idsOf(want...))
		if p.Last != last || p.Older != older {
			t.Errorf("%s: last %d, older %d; want %d, %d", what, p.Last, p.Older, last, older)
		}
		if p.Version == nil || p.Head == nil || p.Version.Seq != headSeq || p.Head.Channel.Title != "a news" {
			t.Errorf("%s: head %+v, version %+v; want version %d", what, p.Head, p.Version, headSeq)
		}
		for i, it := range p.Items {
			if i < len(want) && (it.Item.Description != want[i].Description || it.Item.Title != want[i].Title) {
				t.Errorf("%s: item %d is %q %q, want %q %q (as first stored)", what, i, it.Item.Title, it.Item.Description,
					want[i].Title, want[i].Description)
			}
			if i > 0 && it.Number >= p.Items[i-1].Number {
				t.Errorf("%s: numbers %d then %d, want them falling", what, p.Items[i-1].Number, it.Number)
			}
		}
	}
	// e f d a b c is the archive's order, numbered 6 down to 1.
	all := page(1, 6)
	check("page 1-6", all, 6, 0, 3, fx.e, fx.f, fx.d, fx.a, fx.b, fx.c)
	seen := []time.Duration{2 * time.Hour, 2 * time.Hour, time.Hour, 0, 0, 0}
	for i, it := range all.Items {
		if it.Number != int64(6-i) || !it.FirstSeen.Equal(t0.Add(seen[i])) {
			t.Errorf("page 1-6 item %d: number %d, first seen %v", i, it.Number, it.FirstSeen)
		}
	}
	checkIDs(t, "archive order", itemIDs(mustItems(t, s, dynamo.ItemQuery{SourceID: "a"})), itemIDs(all.Items))
	first := page(1, 3)
	check("page 1-3", first, 6, 0, 1, fx.a, fx.b, fx.c)
	check("page 4-6", page(4, 6), 6, 3, 3, fx.e, fx.f, fx.d)
	check("page 5-5", page(5, 5), 6, 4, 3, fx.f)
	check("page 4-9 (not full)", page(4, 9), 6, 3, 3, fx.e, fx.f, fx.d)
	check("page 7-9 (empty)", page(7, 9), 6, 6, 3)

	// Conditions match the content shown, the first stored, and Older is
	// the nearest older match.
	title := func(v string) dynamo.Condition { return dynamo.Condition{Field: dynamo.FieldTitle, Value: v} }
	desc := dynamo.Condition{Field: dynamo.FieldDescription, Value: "CORRECTED"}
	check("page 4-6 titled apple", page(4, 6, title("apple")), 6, 3, 3)
	check("page 4-6 titled bridge", page(4, 6, title("bridge")), 6, 2, 3)
	check("page 1-6 corrected", page(1, 6, desc), 6, 0, 3)
	check("page 1-6 titled apple or dam", page(1, 6, title("apple"), dynamo.Condition{Or: true, Field: dynamo.FieldTitle, Value: "DAM"}),
		6, 0, 3, fx.d, fx.a)

	// Later versions, new items and edits leave a full page as it was.
	g := item(7, "Gala tonight")
	record(t, s, "a", t0.Add(3*time.Hour), doc("a", t0.Add(3*time.Hour), g, edited(fx.e, "Election day, results"), fx.f))
	again := page(1, 3)
	if !reflect.DeepEqual(again.Items, first.Items) || again.Version.Seq != first.Version.Seq || !reflect.DeepEqual(again.Head, first.Head) {
		t.Errorf("page 1-3 changed after a new version:\n%+v\nwas\n%+v", again, first)
	}
	check("page 4-6 after an edit of e", page(4, 6), 7, 3, 3, fx.e, fx.f, fx.d)
	check("page 7-9 after g", page(7, 9), 7, 6, 4, g)

	for _, bad := range []dynamo.PageQuery{{SourceID: "a", From: 0, To: 3}, {SourceID: "a", From: 4, To: 3},
		{SourceID: "a", From: 1, To: 3, Conditions: []dynamo.Condition{{Field: "author", Value: "x"}}}} {
		_, err := s.Page(ctx, bad)
		wantErr(t, fmt.Sprintf("Page(%+v)", bad), err, dynamo.ErrInvalid)
	}
	_, err := s.Page(ctx, dynamo.PageQuery{SourceID: "missing", From: 1, To: 3})
	wantErr(t, "Page(missing)", err, dynamo.ErrNotFound)
	addSource(t, s, "empty")
	p, err := s.Page(ctx, dynamo.PageQuery{SourceID: "empty", From: 1, To: 3})
	if err != nil || len(p.Items) != 0 || p.Last != 0 || p.Older != 0 || p.Head != nil || p.Version != nil {
		t.Errorf("Page(empty) = %+v, %v; want nothing, no head", p, err)
	}
}
