package dedup

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// Config says how long a story stays open to new copies and how strict the
// decision is.
type Config struct {
	// Window: a new item joins a story when it is decided a copy of one
	// of the story's items first seen at most this long before it. Any
	// copy counts, not only the first, so a story carried for days stays
	// open while copies keep coming.
	Window time.Duration
	// MinSimilarity is the least weighted Jaccard similarity of two
	// items' terms for the text rule (Thresholds.Text); 0 means the tuned
	// default. The other rules keep their tuned thresholds.
	MinSimilarity float64
}

// DefaultWindow is the default Window: wire stories are picked up within
// hours, and a few days cover weekends and slow sources, while a longer
// window only lets daily and weekly templates meet their earlier editions.
const DefaultWindow = 3 * 24 * time.Hour

// DefaultConfig returns DefaultWindow and the tuned thresholds.
func DefaultConfig() Config { return Config{Window: DefaultWindow} }

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	if c.Window <= 0 {
		return fmt.Errorf("dedup: window must be positive, not %s: %w", c.Window, dynamo.ErrInvalid)
	}
	if c.MinSimilarity < 0 || c.MinSimilarity > 1 {
		return fmt.Errorf("dedup: minimum similarity must be from 0 to 1, not %g: %w", c.MinSimilarity, dynamo.ErrInvalid)
	}
	return nil
}

// thresholds returns the decision's thresholds for c.
func (c Config) thresholds() Thresholds {
	th := DefaultThresholds
	if c.MinSimilarity > 0 {
		th.Text = c.MinSimilarity
	}
	return th
}

// Stories groups items into stories: a new item is decided against the
// candidates the window proposes, and joins the story of the earliest one
// it is a copy of. The poller calls CatchUp and Detect inside the store
// transaction that records a poll, serialized with every other poll that
// stores new items (dynamo.PollRecord.Stories), and Commit once it has
// committed.
//
// The rules, where the spec is silent (docs/DEDUP.md):
//   - A story's primary is its earliest copy; every later copy names it.
//   - A new item joins, among the stories with a copy it is decided one
//     story with, the one whose primary was first seen earliest (ties:
//     the best score, then the smallest primary key). The copy it matched
//     must be of another source and first seen at most Window before it.
//   - A source never duplicates itself: copies of its own items, and of
//     stories it started, are not recorded (its archive should list what
//     it published), and such an item starts no second story either: it
//     is held as a copy of its own story.
//   - Items without a content term are neither copies nor primaries.
//
// Every method is safe for concurrent use.
type Stories struct {
	cfg Config
	th  Thresholds
	lsh lshConfig
	win *Window

	mu        sync.Mutex
	stories   map[uint32]*story // live stories by id
	byPrimary map[string]uint32 // primaryKey(primary) → story id
	learners  map[string]*SourceAffixes
	nextStory uint32
	newest    int64 // latest first seen committed, Unix nanoseconds
	expiring  []storyExpiry
	seq       int64 // the highest StoryItem.Seq held: what the store has told
}

type story struct {
	primary dynamo.ItemKey
	seen    int64 // the primary's first seen
	last    int64 // the latest first seen of a copy held
}

// storyExpiry queues a story's check for expiry at a copy's first seen.
type storyExpiry struct {
	at int64
	id uint32
}

// NewStories returns a detector with an empty window.
func NewStories(cfg Config) (*Stories, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Stories{
		cfg: cfg, th: cfg.thresholds(), lsh: defaultLSH, win: NewWindow(),
		stories: make(map[uint32]*story), byPrimary: make(map[string]uint32),
		learners: make(map[string]*SourceAffixes), nextStory: 1,
	}, nil
}

// Config returns the detector's configuration.
func (s *Stories) Config() Config { return s.cfg }

// Batch is Detect's answer for one batch of items, for Commit.
type Batch struct {
	items    []dynamo.StoryItem
	profiles []Profile
	keys     [][]uint32
	story    []uint32 // the story each item joins; 0: a new one, or none
	dups     []dynamo.Duplicate
	skipped  []bool // no content term: neither copy nor primary
}

// Duplicates returns the copies the batch holds, to record with the poll.
func (b *Batch) Duplicates() []dynamo.Duplicate { return b.dups }

// match is the best decision found for an item so far.
type match struct {
	story             uint32
	primary, matched  dynamo.ItemKey
	primarySeen       int64
	decision          Decision
	ok, ownStoryMatch bool
}

func (m *match) consider(c match) {
	if !m.ok || cmp.Or(
		cmp.Compare(c.primarySeen, m.primarySeen),
		-cmp.Compare(c.decision.Score, m.decision.Score),
		cmp.Compare(primaryKey(c.primary), primaryKey(m.primary)),
	) < 0 {
		*m = c
	}
}

// Detect decides which of items (normally one source's new items from one
// poll, oldest first) are copies of a story, among the stories held and
// the batch's earlier items. It changes nothing, so it is safe inside a
// transaction that may roll back.
func (s *Stories) Detect(items []dynamo.StoryItem) *Batch {
	b := &Batch{items: items, profiles: make([]Profile, len(items)), keys: make([][]uint32, len(items)),
		story: make([]uint32, len(items)), skipped: make([]bool, len(items))}
	s.mu.Lock()
	for i, it := range items {
		b.profiles[i] = NewProfile(it.Title, it.Description, it.TitlePrefix, s.learners[it.Key.SourceID])
	}
	s.mu.Unlock()
	for i, it := range items {
		p := b.profiles[i]
		if p.Empty() {
			b.skipped[i] = true
			continue
		}
		b.keys[i] = s.lsh.keys(p, s.th)
		m := s.bestMatch(it, p, b.keys[i])
		s.matchBatch(&m, b, i)
		if m.ok {
			b.story[i] = m.story
			if !m.ownStoryMatch {
				b.dups = append(b.dups, dynamo.Duplicate{Item: it.Key, Primary: m.primary, Matched: m.matched, Rule: string(m.decision.Rule), Score: m.decision.Score})
			}
		}
	}
	return b
}

// bestMatch decides the item against the window's candidates. Stories are
// looked up after the search, whose callback runs under the window's lock
// (Commit takes the two locks the other way round).
func (s *Stories) bestMatch(it dynamo.StoryItem, p Profile, keys []uint32) match {
	since := it.FirstSeen.Add(-s.cfg.Window)
	var found []match
	s.win.Search(keys, since, it.Key.SourceID, func(c *Candidate) {
		if d := s.th.Compare(p, c.Profile); d.Same {
			found = append(found, match{story: c.Story, decision: d, matched: dynamo.ItemKey{SourceID: c.SourceID, ItemID: c.ItemID()}})
		}
	})
	var m match
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range found {
		st, ok := s.stories[c.story]
		if !ok {
			continue // its story ended (its primary's source was purged)
		}
		c.primary, c.primarySeen, c.ok = st.primary, st.seen, true
		c.ownStoryMatch = st.primary.SourceID == it.Key.SourceID
		m.consider(c)
	}
	return m
}

// matchBatch decides item i against the batch's earlier items of other
// sources, which are not in the window yet.
func (s *Stories) matchBatch(m *match, b *Batch, i int) {
	it := b.items[i]
	since := unixNano(it.FirstSeen.Add(-s.cfg.Window))
	for j := range i {
		o := b.items[j]
		if b.skipped[j] || o.Key.SourceID == it.Key.SourceID || unixNano(o.FirstSeen) < since {
			continue
		}
		d := s.th.Compare(b.profiles[i], b.profiles[j])
		if !d.Same {
			continue
		}
		c := match{story: b.story[j], primary: o.Key, primarySeen: unixNano(o.FirstSeen), matched: o.Key, decision: d, ok: true}
		if c.story != 0 { // j joined a held story
			s.mu.Lock()
			st, ok := s.stories[c.story]
			s.mu.Unlock()
			if !ok {
				continue
			}
			c.primary, c.primarySeen = st.primary, st.seen
		} else if dup := b.dupOf(j); dup != nil { // j joined an earlier item of the batch
			c.primary, c.primarySeen = dup.Primary, unixNano(b.itemOf(dup.Primary).FirstSeen)
		}
		c.ownStoryMatch = c.primary.SourceID == it.Key.SourceID
		m.consider(c)
	}
}

func (b *Batch) dupOf(i int) *dynamo.Duplicate {
	for k := range b.dups {
		if b.dups[k].Item == b.items[i].Key {
			return &b.dups[k]
		}
	}
	return nil
}

func (b *Batch) itemOf(key dynamo.ItemKey) dynamo.StoryItem {
	for _, it := range b.items {
		if it.Key == key {
			return it
		}
	}
	return dynamo.StoryItem{}
}

// Commit holds the batch's items in the window, once they are stored with
// the numbers up to seq (PollResult.StoriesSeq; 0 if the store did not
// number them): each joins its story or starts one. It also learns the
// sources' title affixes from them and expires what fell out of the window.
// Items already held (caught up from the store by another poll's
// StoredSince before this Commit) are skipped.
func (s *Stories) Commit(b *Batch, seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq = max(s.seq, seq)
	started := map[dynamo.ItemKey]uint32{} // primaries of this batch → their new story
	for i, it := range b.items {
		s.learner(it.Key.SourceID).Observe(it.Title)
		if b.skipped[i] || s.win.holds(it.Key) {
			continue
		}
		id := b.story[i]
		if id == 0 {
			if dup := b.dupOf(i); dup != nil {
				id = started[dup.Primary]
			}
		}
		if _, live := s.stories[id]; !live {
			id = s.startStoryLocked(it.Key, unixNano(it.FirstSeen))
			started[it.Key] = id
		}
		s.holdLocked(it, b.profiles[i], b.keys[i], id)
	}
	s.expireLocked()
}

// Seq returns the highest store number of the items held: what to ask the
// store for the items stored after (PollRecord.StoriesAfter).
func (s *Stories) Seq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// CatchUp holds items other polls stored (PollResult.StoredSince), as they
// were recorded, like Load. The poller calls it in decide, before Detect.
func (s *Stories) CatchUp(items []dynamo.StoryItem) {
	for _, it := range items {
		s.load(it)
	}
}

func (s *Stories) learner(sourceID string) *SourceAffixes {
	a := s.learners[sourceID]
	if a == nil {
		a = &SourceAffixes{}
		s.learners[sourceID] = a
	}
	return a
}

func (s *Stories) startStoryLocked(primary dynamo.ItemKey, seen int64) uint32 {
	id := s.nextStory
	s.nextStory++
	if s.nextStory == 0 {
		s.nextStory = 1 // 0 means "no story"; ids wrap after 4 billion stories
	}
	s.stories[id] = &story{primary: primary, seen: seen, last: seen}
	s.byPrimary[primaryKey(primary)] = id
	return id
}

func (s *Stories) holdLocked(it dynamo.StoryItem, p Profile, keys []uint32, id uint32) {
	seen := unixNano(it.FirstSeen)
	if !s.win.Add(Entry{Key: it.Key, FirstSeen: it.FirstSeen, Story: id, Profile: p, Keys: keys}) {
		return
	}
	st := s.stories[id]
	st.last = max(st.last, seen)
	s.expiring = append(s.expiring, storyExpiry{at: seen, id: id})
	s.newest = max(s.newest, seen)
}

// expireLocked drops the window's entries first seen before the newest
// committed first seen less Window, and the stories left without a copy
// in the window. The queue is in commit order, about first-seen order: a
// story is dropped once its latest copy is out of the window.
func (s *Stories) expireLocked() {
	cutoff := s.newest - int64(s.cfg.Window)
	s.win.Expire(time.Unix(0, cutoff))
	n := 0
	for n < len(s.expiring) && s.expiring[n].at < cutoff {
		e := s.expiring[n]
		if st, ok := s.stories[e.id]; ok && st.last < cutoff {
			delete(s.byPrimary, primaryKey(st.primary))
			delete(s.stories, e.id)
		}
		n++
	}
	s.expiring = append(s.expiring[:0], s.expiring[n:]...)
}

// ItemSource is where a detector reloads its window from: the archive's
// items first seen at or after since, oldest first, with the primary
// recorded for each duplicate.
type ItemSource interface {
	StoryItems(ctx context.Context, since time.Time, fn func(dynamo.StoryItem) error) error
}

// Load holds the items first seen since then, oldest first, as they were
// recorded: a recorded duplicate joins its primary's story, any other item
// starts one. On start, with since = now - Window, it rebuilds the window;
// later it catches up with items that other processes stored. Items it
// already holds are skipped.
func (s *Stories) Load(ctx context.Context, src ItemSource, since time.Time) error {
	err := src.StoryItems(ctx, since, func(it dynamo.StoryItem) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.load(it)
		return nil
	})
	if err != nil {
		return fmt.Errorf("dedup: load items since %s: %w", since.Format(time.RFC3339), err)
	}
	return nil
}

func (s *Stories) load(it dynamo.StoryItem) {
	s.mu.Lock()
	learner := s.learner(it.Key.SourceID)
	p := NewProfile(it.Title, it.Description, it.TitlePrefix, learner)
	s.seq = max(s.seq, it.Seq)
	s.mu.Unlock()
	if p.Empty() {
		s.observe(it)
		return
	}
	keys := s.lsh.keys(p, s.th)
	// An item recorded as no copy either started its story or repeated
	// one its own source started (which is not recorded): which one, the
	// decision says again, as it did when the item was new.
	var own match
	if it.DuplicateOf == nil {
		if m := s.bestMatch(it, p, keys); m.ok && m.ownStoryMatch {
			own = m
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.win.holds(it.Key) {
		return
	}
	learner.Observe(it.Title)
	id := own.story
	if _, live := s.stories[id]; !live {
		primary := it.Key
		if it.DuplicateOf != nil {
			primary = *it.DuplicateOf
		}
		var ok bool
		if id, ok = s.byPrimary[primaryKey(primary)]; !ok {
			// A primary first seen before the window (or this item's own
			// story): its story starts here, named after it.
			id = s.startStoryLocked(primary, unixNano(it.FirstSeen))
		}
	}
	s.holdLocked(it, p, keys, id)
	s.expireLocked()
}

func (s *Stories) observe(it dynamo.StoryItem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.learner(it.Key.SourceID).Observe(it.Title)
}

// ForgetSource drops a source's items, for when its archive is purged:
// they are no longer copies to match, and the stories it started end.
func (s *Stories) ForgetSource(sourceID string) {
	s.win.ForgetSource(sourceID)
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, st := range s.stories {
		if st.primary.SourceID == sourceID {
			delete(s.byPrimary, primaryKey(st.primary))
			delete(s.stories, id)
		}
	}
	delete(s.learners, sourceID)
}

// StoriesStats reports the detector's size.
type StoriesStats struct {
	WindowStats
	Stories int
}

// Stats reports the detector's size.
func (s *Stories) Stats() StoriesStats {
	st := StoriesStats{WindowStats: s.win.Stats()}
	s.mu.Lock()
	st.Stories = len(s.stories)
	s.mu.Unlock()
	return st
}

func primaryKey(k dynamo.ItemKey) string { return k.SourceID + "\x00" + k.ItemID }

// SimilarityOfDistance is the weighted Jaccard similarity that a Hamming
// distance of k bits between 64-bit SimHash fingerprints (issue 7's
// detector) estimates, so that its k can still say how strict to be: the
// fingerprints of two texts whose term vectors are at angle θ differ in
// 64·θ/π bits on average, so k bits estimate a cosine c = cos(π·k/64), and
// for two sets of one size, cosine c is Jaccard c/(2−c). k = 9, issue 7's
// default, gives 0.82; k = 16 gives 0.55. It is at least 0.01.
func SimilarityOfDistance(k int) float64 {
	c := math.Cos(math.Pi * float64(min(max(k, 0), 64)) / 64)
	return max(0.01, c/(2-c))
}
