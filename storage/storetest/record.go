package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// testVersionOnlyWhenContentChanges stores a version when the content hash
// differs from the latest version's, and only then.
func testVersionOnlyWhenContentChanges(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	a, b := item(1, "Alpha"), item(2, "Beta")
	first := doc("a", t0, a, b)
	if res := record(t, s, "a", t0, first); res.Version == nil || res.Version.Seq != 1 {
		t.Fatalf("first document: version %+v, want seq 1", res.Version)
	}

	// Another fetch time, image and extensions: the same content.
	same := doc("a", t0.Add(time.Hour), a, b)
	same.Channel.Image = &dynamo.Image{URL: "http://127.0.0.1/logo.png", Title: "logo"}
	same.Items[0].Extensions = []dynamo.Extension{{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "date", Value: "2026-03-01T10:00:00Z"}}
	res := record(t, s, "a", t0.Add(time.Hour), same)
	if res.Version != nil || len(res.NewItems) != 0 || res.Seen != 2 {
		t.Errorf("same content: result %+v, want no version, no new items, 2 seen", res)
	}
	got, _, err := s.Document(ctx, "a", 1)
	if err != nil {
		t.Fatalf("Document: %v", err)
	}
	checkDocument(t, "latest version after an unchanged poll", got, first)

	edits := []struct {
		name string
		edit func(*dynamo.Resource)
	}{
		{"channel title", func(d *dynamo.Resource) { d.Channel.Title += "!" }},
		{"channel link", func(d *dynamo.Resource) { d.Channel.Link += "/" }},
		{"channel description", func(d *dynamo.Resource) { d.Channel.Description += "." }},
		{"item title", func(d *dynamo.Resource) { d.Items[0].Title += "!" }},
		{"item link", func(d *dynamo.Resource) { d.Items[1].Link += "?x" }},
		{"item description", func(d *dynamo.Resource) { d.Items[1].Description += "<p>more</p>" }},
		{"page order", func(d *dynamo.Resource) { d.Items[0], d.Items[1] = d.Items[1], d.Items[0] }},
		{"back to the first content", func(d *dynamo.Resource) {}},
	}
	for i, e := range edits {
		at := t0.Add(time.Duration(i+2) * time.Hour)
		d := doc("a", at, a, b)
		e.edit(d)
		res := record(t, s, "a", at, d)
		if res.Version == nil || res.Version.Seq != i+2 {
			t.Errorf("%s: version %+v, want seq %d", e.name, res.Version, i+2)
		}
	}
	if vs := mustVersions(t, s, "a"); len(vs) != len(edits)+1 {
		t.Errorf("%d versions, want %d", len(vs), len(edits)+1)
	}
}

// testRecordPollWritesUpdate checks what decide sees and that what it
// returns is written with the version, and that the lease is released.
func testRecordPollWritesUpdate(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	if _, err := s.LeaseSource(ctx, "a", "p", t0, time.Minute); err != nil {
		t.Fatalf("LeaseSource: %v", err)
	}
	a, b, c := item(1, "Alpha"), item(2, "Beta"), item(3, "Gamma")
	d := doc("a", t0, c, a, b)
	upd := dynamo.PollUpdate{
		State: dynamo.PollState{ETag: `"e1"`, LastModified: "Sun, 01 Mar 2026 12:00:00 GMT", BodyHash: "bh",
			LastPoll: t0, NextPoll: t0.Add(2 * time.Hour), LastChange: t0, LastStatus: dynamo.StatusChanged,
			Schedule: json.RawMessage(`{"rates":[1,2,3]}`)},
		Log: dynamo.PollLogEntry{At: t0, Status: dynamo.StatusChanged, Duration: 1500 * time.Millisecond},
	}
	var seen []dynamo.PollResult
	res, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "p", At: t0, Document: d},
		func(r dynamo.PollResult) dynamo.PollUpdate {
			seen = append(seen, r)
			u := upd
			u.Log.NewItems = len(r.NewItems)
			return u
		})
	if err != nil {
		t.Fatalf("RecordPoll: %v", err)
	}
	if len(seen) != 1 {
		t.Fatalf("decide called %d times, want once", len(seen))
	}
	for what, r := range map[string]dynamo.PollResult{"decide saw": seen[0], "RecordPoll returned": res} {
		if r.Seen != 3 || r.Version == nil {
			t.Fatalf("%s %+v, want a version and 3 seen", what, r)
		}
		checkIDs(t, what+" new items", itemIDs(r.NewItems), idsOf(c, a, b))
		for i, it := range r.NewItems {
			if it.SourceID != "a" || !it.FirstSeen.Equal(t0) {
				t.Errorf("%s new item %d: source %q first seen %v", what, i, it.SourceID, it.FirstSeen)
			}
			checkItem(t, fmt.Sprintf("%s new item %d", what, i), it.Item, d.Items[i])
		}
		v := r.Version
		if v.SourceID != "a" || v.Seq != 1 || v.Index != 1 || !v.SeenAt.Equal(t0) || v.Hash != dynamo.ContentHash(d) ||
			v.Title != "a news" || v.Items != 3 || v.Added != 3 || v.Removed != 0 {
			t.Errorf("%s version %+v", what, v)
		}
	}

	src := mustSource(t, s, "a")
	checkState(t, "state after RecordPoll", src.State, upd.State)
	sum := src.Summary
	if sum.Title != "a news" || sum.Versions != 1 || sum.Items != 3 || !sum.LastVersionAt.Equal(t0) ||
		sum.Polls["changed"] != 1 || sum.LeaseOwner != "" {
		t.Errorf("summary after RecordPoll %+v", sum)
	}
	polls, err := s.Polls(ctx, "a", 10)
	if err != nil {
		t.Fatalf("Polls: %v", err)
	}
	want := upd.Log
	want.SourceID, want.NewItems = "a", 3
	if len(polls) != 1 || !polls[0].At.Equal(want.At) || polls[0].Status != want.Status ||
		polls[0].Duration != want.Duration || polls[0].NewItems != 3 || polls[0].SourceID != "a" {
		t.Errorf("Polls = %+v, want [%+v]", polls, want)
	}
	// The lease was released: another owner takes the source at once.
	if _, err := s.LeaseSource(ctx, "a", "q", t0, time.Minute); err != nil {
		t.Errorf("LeaseSource by another owner after RecordPoll: %v", err)
	}
}

// testRecordPollWithoutDocument records a failed poll: state and log, no
// version.
func testRecordPollWithoutDocument(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	record(t, s, "a", t0, doc("a", t0, item(1, "One")))
	at := t0.Add(time.Hour)
	state := dynamo.PollState{LastPoll: at, NextPoll: at.Add(2 * time.Hour), LastChange: t0,
		LastStatus: dynamo.StatusError, Errors: 1, LastError: "connection refused",
		Warnings: []dynamo.Warning{{Line: 3, Message: "kept from the last page read"}}}
	res := recordWith(t, s, "a", at, nil, func(r dynamo.PollResult) dynamo.PollUpdate {
		if r.Version != nil || r.Seen != 0 || len(r.NewItems) != 0 {
			t.Errorf("decide saw %+v for a poll without document", r)
		}
		return dynamo.PollUpdate{State: state,
			Log: dynamo.PollLogEntry{At: at, Status: dynamo.StatusError, Error: "HTTP 503", HTTPStatus: 503}}
	})
	if res.Version != nil || res.Seen != 0 {
		t.Errorf("RecordPoll without document = %+v", res)
	}
	src := mustSource(t, s, "a")
	checkState(t, "state after a failed poll", src.State, state)
	if src.Summary.Versions != 1 || !src.Summary.LastVersionAt.Equal(t0) ||
		src.Summary.Polls["changed"] != 1 || src.Summary.Polls["error"] != 1 {
		t.Errorf("summary after a failed poll %+v", src.Summary)
	}
	polls, err := s.Polls(ctx, "a", 10)
	if err != nil {
		t.Fatalf("Polls: %v", err)
	}
	if len(polls) != 2 || polls[0].Status != dynamo.StatusError || polls[0].Error != "HTTP 503" ||
		polls[0].HTTPStatus != 503 || polls[0].Bytes != 0 {
		t.Errorf("Polls = %+v, want the error first", polls)
	}
}

// testRecordPollChecksLease refuses a poll whose owner lost the lease and
// writes nothing of it; an expired lease nobody took is still honoured.
func testRecordPollChecksLease(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	poll := func(owner string, at time.Time, d *dynamo.Resource) (dynamo.PollResult, error) {
		return s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: owner, At: at, Document: d}, decideFlat(at))
	}

	_, err := poll("p", t0, doc("a", t0, item(1, "One")))
	wantErr(t, "RecordPoll without a lease", err, dynamo.ErrLeaseLost)

	if _, err := s.LeaseSource(ctx, "a", "p", t0, time.Minute); err != nil {
		t.Fatalf("LeaseSource: %v", err)
	}
	at := t0.Add(5 * time.Minute) // the lease expired, but nobody took the source
	if res, err := poll("p", at, doc("a", at, item(1, "One"))); err != nil || res.Version == nil {
		t.Fatalf("RecordPoll on an expired, untaken lease: %+v, %v", res, err)
	}
	before := mustSource(t, s, "a")

	if _, err := s.LeaseSource(ctx, "a", "p", t0.Add(10*time.Minute), time.Minute); err != nil {
		t.Fatalf("LeaseSource(p): %v", err)
	}
	if _, err := s.LeaseSource(ctx, "a", "q", t0.Add(20*time.Minute), time.Minute); err != nil {
		t.Fatalf("LeaseSource(q) after p's lease expired: %v", err)
	}
	late := t0.Add(20 * time.Minute)
	_, err = poll("p", late, doc("a", late, item(2, "Two")))
	wantErr(t, "RecordPoll after another owner took the lease", err, dynamo.ErrLeaseLost)
	after := mustSource(t, s, "a")
	checkState(t, "state after a refused poll", after.State, before.State)
	if after.Summary.Versions != 1 || after.Summary.Items != 1 || after.Summary.LeaseOwner != "q" {
		t.Errorf("summary after a refused poll %+v, want 1 version, 1 item, leased by q", after.Summary)
	}
	if polls, err := s.Polls(ctx, "a", 10); err != nil || len(polls) != 1 {
		t.Errorf("Polls after a refused poll: %d entries, %v; want 1", len(polls), err)
	}
	if res, err := poll("q", late, doc("a", late, item(2, "Two"))); err != nil || res.Version == nil || res.Version.Seq != 2 {
		t.Errorf("RecordPoll by the new owner: %+v, %v", res, err)
	}

	_, err = s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "missing", Owner: "p", At: t0}, decideFlat(t0))
	if !errors.Is(err, dynamo.ErrLeaseLost) && !errors.Is(err, dynamo.ErrNotFound) {
		t.Errorf("RecordPoll of an unknown source: error %v, want ErrLeaseLost or ErrNotFound", err)
	}
}

// testConcurrentWritersSameContent races writers storing one content for
// one source: exactly one version results.
func testConcurrentWritersSameContent(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	record(t, s, "a", t0, doc("a", t0, item(1, "One")))
	if _, err := s.LeaseSource(ctx, "a", "w", t0.Add(time.Hour), time.Hour); err != nil {
		t.Fatalf("LeaseSource: %v", err)
	}
	at := t0.Add(time.Hour)
	d := doc("a", at, item(1, "One"), item(2, "Two"), item(3, "Three"))
	const writers = 8
	results := make([]dynamo.PollResult, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			results[i], errs[i] = s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "w", At: at, Document: d}, decideFlat(at))
		})
	}
	wg.Wait()
	created := 0
	for i := range writers {
		switch {
		case errs[i] != nil && !errors.Is(errs[i], dynamo.ErrLeaseLost):
			t.Errorf("writer %d: %v", i, errs[i])
		case errs[i] == nil && results[i].Version != nil:
			created++
		}
	}
	if created != 1 {
		t.Errorf("%d writers created a version, want 1", created)
	}
	vs := mustVersions(t, s, "a")
	if len(vs) != 2 {
		t.Fatalf("%d versions, want 2", len(vs))
	}
	got, _, err := s.Document(ctx, "a", 1)
	if err != nil {
		t.Fatalf("Document: %v", err)
	}
	checkDocument(t, "the racing writers' version", got, d)
	if n := len(mustItems(t, s, dynamo.ItemQuery{SourceID: "a"})); n != 3 {
		t.Errorf("archive holds %d items, want 3", n)
	}
}

// testConcurrentWritersManySources stores versions of several sources at
// once; each source's versions are all kept and whole.
func testConcurrentWritersManySources(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	const sources, versions = 6, 5
	for i := range sources {
		addSource(t, s, fmt.Sprintf("s%d", i))
	}
	docs := func(id string, v int) *dynamo.Resource {
		at := t0.Add(time.Duration(v) * time.Hour)
		var items []dynamo.Item
		for n := range v + 2 {
			items = append(items, item(n, fmt.Sprintf("%s story %d", id, n)))
		}
		return doc(id, at, items...)
	}
	errs := make(chan error, sources*versions)
	var wg sync.WaitGroup
	for i := range sources {
		id := fmt.Sprintf("s%d", i)
		owner := "w" + id
		wg.Go(func() {
			for v := range versions {
				d := docs(id, v)
				if _, err := s.LeaseSource(ctx, id, owner, d.Timestamp, time.Hour); err != nil {
					errs <- err
					return
				}
				res, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: owner, At: d.Timestamp, Document: d}, decideFlat(d.Timestamp))
				wantNew := 1 // each version adds one story
				if v == 0 {
					wantNew = len(d.Items)
				}
				if err == nil && (res.Version == nil || len(res.NewItems) != wantNew) {
					err = fmt.Errorf("%s version %d: result %+v", id, v, res)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range sources {
		id := fmt.Sprintf("s%d", i)
		if vs := mustVersions(t, s, id); len(vs) != versions {
			t.Errorf("%s: %d versions, want %d", id, len(vs), versions)
			continue
		}
		for v := range versions {
			got, _, err := s.Document(ctx, id, versions-v)
			if err != nil {
				t.Fatalf("Document(%s, %d): %v", id, versions-v, err)
			}
			checkDocument(t, fmt.Sprintf("%s version %d", id, v+1), got, docs(id, v))
		}
	}
}

// testItemWithoutOwnIDKnownByTitle recognizes an item whose id comes from
// its content by its title when its description changed (docs/STORAGE.md "Schema"): it is
// not new, and the archive lists it once, with its latest content.
func testItemWithoutOwnIDKnownByTitle(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	page := "http://127.0.0.1/a"
	x := contentItem(page, "Opening hours", "Monday to Friday")
	y := item(2, "Other news")
	d1 := doc("a", t0, x, y)
	record(t, s, "a", t0, d1)

	x2 := contentItem(page, "Opening hours", "Monday to Saturday")
	z := item(3, "Fresh news")
	at := t0.Add(time.Hour)
	d2 := doc("a", at, x2, y, z)
	res := record(t, s, "a", at, d2)
	checkIDs(t, "new items", itemIDs(res.NewItems), idsOf(z))
	if res.Version == nil || res.Version.Added != 1 || res.Version.Removed != 0 {
		t.Errorf("version %+v, want 1 added and 0 removed", res.Version)
	}

	archive := mustItems(t, s, dynamo.ItemQuery{SourceID: "a"})
	if len(archive) != 3 {
		t.Fatalf("archive holds %d items, want 3", len(archive))
	}
	for _, it := range archive {
		if it.Item.Title == "Opening hours" && (it.Item.Text != "Monday to Saturday" || !it.FirstSeen.Equal(t0)) {
			t.Errorf("archived edited item: text %q first seen %v; want the latest text, first seen %v",
				it.Item.Text, it.FirstSeen, t0)
		}
	}
	for index, want := range map[int]*dynamo.Resource{1: d2, 2: d1} {
		got, _, err := s.Document(ctx, "a", index)
		if err != nil {
			t.Fatalf("Document(%d): %v", index, err)
		}
		checkDocument(t, fmt.Sprintf("Document(%d)", index), got, want)
	}
}

// testItemsComeBack stores versions whose items leave the page and come
// back, and whose contents return to earlier ones, on the page and off
// it: each version rebuilds exactly, an item back on the page is not new
// and is seen again, and an earlier content is its earlier revision, so
// the archive shows each item's newest content with its first sighting.
func testItemsComeBack(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	a, b, c := item(1, "Alpha"), item(2, "Beta"), item(3, "Gamma")
	a2 := edited(a, "Alpha, corrected")
	docs := []*dynamo.Resource{
		doc("a", t0, a, b),
		doc("a", t0.Add(time.Hour), a2, c),             // a edited, b gone, c new
		doc("a", t0.Add(2*time.Hour), b, a, a2),        // b back, a's first content again, at two positions
		doc("a", t0.Add(3*time.Hour), c, b, a2),        // c back, a shows its second content
		doc("a", t0.Add(4*time.Hour), c, b, a2, c, a2), // positions repeated
	}
	wantNew := [][]dynamo.Item{{a, b}, {c}, nil, nil, nil}
	for i, d := range docs {
		res := record(t, s, "a", d.Timestamp, d)
		if res.Version == nil || res.Version.Seq != i+1 {
			t.Fatalf("storing version %d: %+v", i+1, res.Version)
		}
		checkIDs(t, fmt.Sprintf("version %d new items", i+1), itemIDs(res.NewItems), idsOf(wantNew[i]...))
	}
	for i, want := range docs {
		got, _, err := s.Document(ctx, "a", len(docs)-i)
		if err != nil {
			t.Fatalf("Document(%d): %v", len(docs)-i, err)
		}
		checkDocument(t, fmt.Sprintf("Document(%d)", len(docs)-i), got, want)
	}
	last := t0.Add(4 * time.Hour)
	want := map[string]struct {
		text      string
		firstSeen time.Time
	}{a.ID: {a2.Text, t0}, b.ID: {b.Text, t0}, c.ID: {c.Text, t0.Add(time.Hour)}}
	archive := mustItems(t, s, dynamo.ItemQuery{SourceID: "a"})
	if len(archive) != len(want) {
		t.Fatalf("archive ids %v, want %d items", itemIDs(archive), len(want))
	}
	for _, got := range archive {
		w := want[got.Item.ID]
		if got.Item.Text != w.text || !got.FirstSeen.Equal(w.firstSeen) || !got.LastSeen.Equal(last) {
			t.Errorf("archived %q: text %q, first seen %v, last seen %v; want %q, %v, %v",
				got.Item.Title, got.Item.Text, got.FirstSeen, got.LastSeen, w.text, w.firstSeen, last)
		}
	}
}

// testStorageGrowsWithContentNotPolls polls one content a hundred times
// without adding versions or items, then grows by exactly what is new.
func testStorageGrowsWithContentNotPolls(t *testing.T, s dynamo.Store) {
	addSource(t, s, "a")
	var items []dynamo.Item
	for n := range 20 {
		items = append(items, item(n, fmt.Sprintf("Story %d", n)))
	}
	for i := range 100 {
		at := t0.Add(time.Duration(i) * time.Minute)
		record(t, s, "a", at, doc("a", at, items...))
	}
	st := mustStats(t, s)
	if st.Versions != 1 || st.Items != 20 || st.Polls["changed"] != 1 || st.Polls["unchanged"] != 99 {
		t.Errorf("after 100 polls of one content: %d versions, %d items, polls %v; want 1, 20, 1 changed and 99 unchanged",
			st.Versions, st.Items, st.Polls)
	}
	for i := range 10 {
		at := t0.Add(time.Duration(200+i) * time.Minute)
		items = append([]dynamo.Item{item(100+i, fmt.Sprintf("Newer %d", i))}, items[:len(items)-1]...)
		record(t, s, "a", at, doc("a", at, items...))
	}
	st = mustStats(t, s)
	if st.Versions != 11 || st.Items != 30 {
		t.Errorf("after 10 versions each with one new item: %d versions, %d items; want 11 and 30", st.Versions, st.Items)
	}
}

// testRecordPollRefusesBadText refuses a document holding text that a
// store cannot keep faithfully (NUL, invalid UTF-8) with ErrInvalid, and
// writes nothing of the poll.
func testRecordPollRefusesBadText(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	addSource(t, s, "a")
	record(t, s, "a", t0, doc("a", t0, item(1, "One")))
	edits := map[string]func(*dynamo.Resource){
		"NUL in a title":               func(d *dynamo.Resource) { d.Items[0].Title = "nul\x00title" },
		"invalid UTF-8 in a text":      func(d *dynamo.Resource) { d.Items[1].Text = "bad \xc3\x28 text" },
		"invalid UTF-8 in the channel": func(d *dynamo.Resource) { d.Channel.Title = "bad\xff" },
		"NUL in an extension": func(d *dynamo.Resource) {
			d.Items[1].Extensions = []dynamo.Extension{{URI: dynamo.NamespaceDC, Prefix: "dc", LocalName: "subject", Value: "\x00"}}
		},
	}
	for name, edit := range edits {
		at := t0.Add(time.Hour)
		d := doc("a", at, item(1, "One"), item(2, "Two"))
		edit(d)
		if _, err := s.LeaseSource(ctx, "a", "p", at, time.Minute); err != nil {
			t.Fatalf("LeaseSource: %v", err)
		}
		_, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "p", At: at, Document: d}, decideFlat(at))
		wantErr(t, name, err, dynamo.ErrInvalid)
		if err := s.ReleaseLeases(ctx, "p"); err != nil {
			t.Fatalf("ReleaseLeases: %v", err)
		}
	}
	src := mustSource(t, s, "a")
	if src.Summary.Versions != 1 || src.Summary.Items != 1 || src.Summary.Polls["changed"] != 1 || len(src.Summary.Polls) != 1 {
		t.Errorf("summary after refused documents %+v, want the first poll only", src.Summary)
	}
}
