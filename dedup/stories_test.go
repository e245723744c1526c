package dedup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

const (
	kenyaTitle       = "Explosion on bus in Kenya capital kills at least 5"
	kenyaTitleCopy   = "Reuters: Explosion on bus in Kenya capital kills at least five"
	kenyaDescription = "An explosion on a crowded minibus in Nairobi's central business district killed at least five people and injured 12 on Monday evening, police said. The cause of the blast was not immediately known."
	kenyaDescCopy    = "An explosion on a crowded minibus in Nairobi's central business district killed at least five people and injured 12 on Monday evening, police officials said. The cause of the blast was not immediately known."
	plotNotice       = "Plot 12 is free again; ask at the shed."
	underTwelve      = "Congratulations to our under-12 team on winning the county cup!"
)

func newStories(t *testing.T, window time.Duration) *Stories {
	t.Helper()
	s, err := NewStories(Config{Window: window})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// epoch is the tests' origin of time.
var epoch = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func storyItem(source, id, title, description, prefix string, at time.Time) dynamo.StoryItem {
	return dynamo.StoryItem{Key: dynamo.ItemKey{SourceID: source, ItemID: id}, FirstSeen: at, Title: title, Description: description, TitlePrefix: prefix}
}

// commit runs what the poller does for one poll's new items.
func commit(s *Stories, items ...dynamo.StoryItem) []dynamo.Duplicate {
	b := s.Detect(items)
	s.Commit(b, 0)
	return b.Duplicates()
}

func TestStoriesIssueExamples(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    dynamo.StoryItem
		collide bool
	}{
		{"the Kenya pair: one story",
			storyItem("wire", "k1", kenyaTitle, kenyaDescription, "", epoch),
			storyItem("reuters", "k2", kenyaTitleCopy, kenyaDescCopy, "Reuters:", epoch.Add(time.Hour)), true},
		{"plot 12 and the under-12 team: two stories",
			storyItem("allotments", "p1", "", plotNotice, "", epoch),
			storyItem("club", "c1", "", underTwelve, "", epoch.Add(time.Hour)), false},
		{"plot 12 and the under-12 team as titles: two stories",
			storyItem("allotments", "p1", plotNotice, "", "", epoch),
			storyItem("club", "c1", underTwelve, "", "", epoch.Add(time.Hour)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStories(t, DefaultWindow)
			if dups := commit(s, tc.a); len(dups) != 0 {
				t.Fatalf("the first item is a copy: %v", dups)
			}
			dups := commit(s, tc.b)
			if !tc.collide {
				if len(dups) != 0 {
					t.Errorf("recorded as one story: %+v", dups)
				}
				return
			}
			if len(dups) != 1 || dups[0].Primary != tc.a.Key || dups[0].Matched != tc.a.Key || dups[0].Item != tc.b.Key {
				t.Fatalf("duplicates %+v, want %s a copy of %s", dups, tc.b.Key, tc.a.Key)
			}
			if dups[0].Rule != string(RuleText) || dups[0].Score < 0.9 {
				t.Errorf("decided by %s with score %.2f, want the text rule above 0.9", dups[0].Rule, dups[0].Score)
			}
		})
	}
}

// A story is a cluster: a copy that arrives after the primary left the
// window still joins it through a later copy, and names the primary.
func TestStoriesLateCopyJoinsThroughALaterCopy(t *testing.T) {
	s := newStories(t, 48*time.Hour)
	day := 24 * time.Hour
	a := storyItem("wire", "a", kenyaTitle, kenyaDescription, "", epoch)
	b := storyItem("reuters", "b", kenyaTitleCopy, kenyaDescCopy, "Reuters:", epoch.Add(36*time.Hour))
	c := storyItem("apnews", "c", kenyaTitle+" (AP)", kenyaDescription, "", epoch.Add(3*day))
	commit(s, a)
	if dups := commit(s, b); len(dups) != 1 || dups[0].Primary != a.Key {
		t.Fatalf("b: %+v", dups)
	}
	dups := commit(s, c)
	if len(dups) != 1 || dups[0].Primary != a.Key || dups[0].Matched != b.Key {
		t.Fatalf("c, 3 days after a and 1.5 after b: %+v, want a copy of a matched through b", dups)
	}
	// Four days after b, the story is closed: a new copy starts another.
	d := storyItem("globaltimes", "d", kenyaTitle, kenyaDescription, "", epoch.Add(3*day+50*time.Hour))
	if dups := commit(s, d); len(dups) != 0 {
		t.Errorf("a copy after the window closed joined: %+v", dups)
	}
}

func TestStoriesRules(t *testing.T) {
	h := func(n int) time.Time { return epoch.Add(time.Duration(n) * time.Hour) }
	copyOf := func(source, id string, at time.Time) dynamo.StoryItem {
		return storyItem(source, id, kenyaTitle, kenyaDescription, "", at)
	}
	t.Run("a source does not duplicate itself", func(t *testing.T) {
		s := newStories(t, DefaultWindow)
		commit(s, copyOf("wire", "1", h(0)))
		if dups := commit(s, copyOf("wire", "2", h(1))); len(dups) != 0 {
			t.Errorf("%+v", dups)
		}
		// A copy by another source, then the first source's repost: the
		// repost is its own story's, not recorded.
		commit(s, copyOf("reuters", "3", h(2)))
		if dups := commit(s, copyOf("wire", "4", h(3))); len(dups) != 0 {
			t.Errorf("a repost of the source's own story recorded: %+v", dups)
		}
	})
	t.Run("items of one batch from different sources", func(t *testing.T) {
		s := newStories(t, DefaultWindow)
		dups := commit(s, copyOf("wire", "1", h(0)), copyOf("reuters", "2", h(0)), copyOf("apnews", "3", h(1)))
		want := []dynamo.ItemKey{{SourceID: "reuters", ItemID: "2"}, {SourceID: "apnews", ItemID: "3"}}
		if len(dups) != 2 || dups[0].Item != want[0] || dups[1].Item != want[1] || dups[0].Primary.ItemID != "1" || dups[1].Primary.ItemID != "1" {
			t.Fatalf("%+v", dups)
		}
		// Later copies name the batch's primary too.
		if dups := commit(s, copyOf("globaltimes", "4", h(2))); len(dups) != 1 || dups[0].Primary.ItemID != "1" {
			t.Errorf("%+v", dups)
		}
	})
	t.Run("the earliest story wins", func(t *testing.T) {
		s := newStories(t, DefaultWindow)
		commit(s, copyOf("wire", "1", h(0)))
		commit(s, copyOf("wire2", "2", h(1))) // a copy: joins story 1
		dups := commit(s, copyOf("apnews", "3", h(2)))
		if len(dups) != 1 || dups[0].Primary.ItemID != "1" {
			t.Errorf("%+v", dups)
		}
	})
	t.Run("no text, no story", func(t *testing.T) {
		s := newStories(t, DefaultWindow)
		commit(s, storyItem("a", "1", "It is what it is", "<p> </p>", "", h(0)))
		if dups := commit(s, storyItem("b", "2", "It is what it is", "", "", h(1))); len(dups) != 0 {
			t.Errorf("%+v", dups)
		}
	})
	t.Run("different stories stay apart", func(t *testing.T) {
		s := newStories(t, DefaultWindow)
		commit(s, storyItem("wire", "1", "Death toll from Nairobi bus explosion rises to 7",
			"The death toll from Monday's explosion on a minibus in Nairobi's central business district has risen to seven after two of the injured died in hospital, police said on Tuesday.", "", h(0)))
		if dups := commit(s, copyOf("reuters", "2", h(1))); len(dups) != 0 {
			t.Errorf("a sequel taken for a copy: %+v", dups)
		}
	})
}

func TestStoriesDetectChangesNothingUntilCommit(t *testing.T) {
	s := newStories(t, DefaultWindow)
	a := storyItem("wire", "1", kenyaTitle, kenyaDescription, "", epoch)
	s.Detect([]dynamo.StoryItem{a})
	if dups := s.Detect([]dynamo.StoryItem{storyItem("reuters", "2", kenyaTitleCopy, kenyaDescCopy, "Reuters:", epoch.Add(time.Hour))}).Duplicates(); len(dups) != 0 {
		t.Errorf("an item never committed became a primary: %+v", dups)
	}
	if st := s.Stats(); st.Entries != 0 || st.Stories != 0 {
		t.Errorf("stats after Detect alone: %+v", st)
	}
}

// A source's own affixes are learned from its titles: once "- Ridgeway
// Gazette" ends enough of them, a short copy with it matches one without.
func TestStoriesLearnSourceAffixes(t *testing.T) {
	s := newStories(t, DefaultWindow)
	short := "Ridgeway marathon route announced"
	commit(s, storyItem("gazette", "g", short, "", "", epoch))
	first := storyItem("agg", "a0", short+" - Ridgeway Gazette", "", "", epoch.Add(time.Minute))
	if dups := s.Detect([]dynamo.StoryItem{first}).Duplicates(); len(dups) != 0 {
		t.Fatalf("matched before the suffix was learned: %+v", dups)
	}
	for i, title := range []string{"Heavy rain expected on Friday", "Council freezes parking charges", "New library opens", "School wins award"} {
		commit(s, storyItem("agg", fmt.Sprint("t", i), title+" - Ridgeway Gazette", "", "", epoch.Add(time.Duration(i+2)*time.Minute)))
	}
	if dups := commit(s, first); len(dups) != 1 || dups[0].Rule != string(RuleShort) {
		t.Errorf("after learning the suffix: %+v", dups)
	}
}

type itemSlice []dynamo.StoryItem

func (s itemSlice) StoryItems(ctx context.Context, since time.Time, fn func(dynamo.StoryItem) error) error {
	for _, it := range s {
		if it.FirstSeen.Before(since) {
			continue
		}
		if err := fn(it); err != nil {
			return err
		}
	}
	return nil
}

// Load rebuilds the stories as they were recorded, and loading a range
// already held adds nothing.
func TestStoriesLoadRebuildsRecordedStories(t *testing.T) {
	set := loadPairs(t)
	live := newStories(t, DefaultWindow)
	var stored itemSlice
	n := 0
	for _, g := range set.Groups {
		// A part not read yet is left out, as in every test that decides:
		// no decision is run on it until it is read (pairs_test.go).
		if unread[g.Half] {
			continue
		}
		for _, it := range g.Items {
			item := storyItem(it.Source, fmt.Sprint(n), it.Title, it.Description, set.Sources[it.Source], epoch.Add(time.Duration(n)*time.Second))
			n++
			b := live.Detect([]dynamo.StoryItem{item})
			live.Commit(b, 0)
			if dups := b.Duplicates(); len(dups) == 1 {
				item.DuplicateOf = &dups[0].Primary
			}
			stored = append(stored, item)
		}
	}
	loaded := newStories(t, DefaultWindow)
	ctx := context.Background()
	if err := loaded.Load(ctx, stored, epoch); err != nil {
		t.Fatal(err)
	}
	if err := loaded.Load(ctx, stored, epoch.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, want := loaded.Stats(), live.Stats(); got.Entries != want.Entries || got.Stories != want.Stories {
		t.Fatalf("loaded %+v, live %+v", got, want)
	}
	// Both answer alike for a copy of every stored item.
	for i, it := range stored {
		q := it
		q.Key = dynamo.ItemKey{SourceID: "new-source", ItemID: "q"}
		q.FirstSeen = epoch.Add(time.Duration(n+i) * time.Second)
		q.DuplicateOf = nil
		got, want := loaded.Detect([]dynamo.StoryItem{q}).Duplicates(), live.Detect([]dynamo.StoryItem{q}).Duplicates()
		if !slices.Equal(got, want) {
			t.Fatalf("after Load, a copy of %q: %+v, live detector %+v", it.Title, got, want)
		}
	}
}

func TestStoriesLoadReportsErrors(t *testing.T) {
	s := newStories(t, DefaultWindow)
	broken := errors.New("disk on fire")
	err := s.Load(context.Background(), failingItems{broken}, epoch)
	if !errors.Is(err, broken) {
		t.Errorf("Load = %v, want it to wrap %v", err, broken)
	}
}

type failingItems struct{ err error }

func (f failingItems) StoryItems(context.Context, time.Time, func(dynamo.StoryItem) error) error {
	return f.err
}

func TestStoriesForgetSource(t *testing.T) {
	s := newStories(t, DefaultWindow)
	commit(s, storyItem("wire", "1", kenyaTitle, kenyaDescription, "", epoch))
	s.ForgetSource("wire")
	if dups := commit(s, storyItem("reuters", "2", kenyaTitleCopy, kenyaDescCopy, "Reuters:", epoch.Add(time.Hour))); len(dups) != 0 {
		t.Errorf("a copy of a purged source's item recorded: %+v", dups)
	}
}

func TestConfig(t *testing.T) {
	for _, cfg := range []Config{{}, {Window: -time.Hour}, {Window: time.Hour, MinSimilarity: 1.5}, {Window: time.Hour, MinSimilarity: -0.1}} {
		if _, err := NewStories(cfg); !errors.Is(err, dynamo.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", cfg, err)
		}
	}
	s, err := NewStories(Config{Window: time.Hour, MinSimilarity: 0.9})
	if err != nil || s.th.Text != 0.9 || s.th.Facts != DefaultThresholds.Facts {
		t.Errorf("MinSimilarity 0.9: %v, thresholds %+v", err, s.th)
	}
}

// TestStoriesConcurrentPolls runs polls of many sources at once (run with
// -race): whatever the interleaving, every item is held once.
func TestStoriesConcurrentPolls(t *testing.T) {
	s := newStories(t, DefaultWindow)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				commit(s, storyItem(fmt.Sprint("src", g), fmt.Sprint(i), fmt.Sprintf("%s, story %d", kenyaTitle, i%10), kenyaDescription, "", epoch.Add(time.Duration(i)*time.Minute)))
			}
		}()
	}
	wg.Wait()
	if st := s.Stats(); st.Entries != 400 {
		t.Errorf("%+v, want 400 entries", st)
	}
}

// Items other polls stored come in through CatchUp with their recorded
// primary and their store number; the batch of a poll whose items another
// poll's catch-up already held is not held twice.
func TestStoriesCatchUpAndCommit(t *testing.T) {
	s := newStories(t, DefaultWindow)
	a := storyItem("wire", "a", kenyaTitle, kenyaDescription, "", epoch)
	s.Commit(s.Detect([]dynamo.StoryItem{a}), 5)
	if got := s.Seq(); got != 5 {
		t.Fatalf("Seq after committing number 5: %d", got)
	}
	caught := storyItem("reuters", "r", kenyaTitleCopy, kenyaDescCopy, "Reuters:", epoch.Add(time.Minute))
	caught.DuplicateOf, caught.Seq = &a.Key, 7
	s.CatchUp([]dynamo.StoryItem{caught})
	if got := s.Seq(); got != 7 {
		t.Errorf("Seq after catching up number 7: %d", got)
	}
	// A later copy names the story's primary, whichever copy it matched.
	later := storyItem("apnews", "p", kenyaTitle+" (AP)", kenyaDescription, "", epoch.Add(time.Hour))
	b := s.Detect([]dynamo.StoryItem{later})
	if dups := b.Duplicates(); len(dups) != 1 || dups[0].Primary != a.Key {
		t.Fatalf("%+v", dups)
	}
	// Another poll's catch-up held the item before this poll's Commit.
	held := later
	held.DuplicateOf, held.Seq = &a.Key, 8
	s.CatchUp([]dynamo.StoryItem{held})
	s.Commit(b, 8)
	if st := s.Stats(); st.Entries != 3 || st.Stories != 1 {
		t.Errorf("%+v, want 3 entries of 1 story", st)
	}
}

func TestSimilarityOfDistance(t *testing.T) {
	for _, tc := range []struct {
		k        int
		min, max float64
	}{
		{0, 1, 1}, {9, 0.82, 0.83}, {16, 0.54, 0.55}, {32, 0.01, 0.01}, {64, 0.01, 0.01}, {-1, 1, 1}, {99, 0.01, 0.01},
	} {
		if got := SimilarityOfDistance(tc.k); got < tc.min || got > tc.max {
			t.Errorf("SimilarityOfDistance(%d) = %.3f, want %.2f to %.2f", tc.k, got, tc.min, tc.max)
		}
	}
}
