package dynamo

import (
	"context"
	"time"
)

// Store keeps sources, their polling state and their versioned archive. The
// storage packages implement it twice (PostgreSQL, embedded SQLite) and one
// conformance suite holds both to the same behaviour.
//
// It is the union of smaller interfaces, so that each consumer can ask for
// only what it uses.
type Store interface {
	SourceStore
	PollStore
	ArchiveStore
	SettingStore
	WebSubStore
	// WatchChanges reports the ids of sources whose archive or configuration
	// changed, in this process or in any other sharing the same database, so
	// that caches can drop stale answers. The channel closes when ctx ends.
	WatchChanges(ctx context.Context) (<-chan Change, error)
	Close() error
}

// Change names a source whose archive or configuration changed.
type Change struct {
	SourceID string
}

// SourceStore registers and configures sources.
type SourceStore interface {
	// CreateSource stores a new source; ErrConflict if the id is taken by an
	// active source. Re-creating a removed source revives its kept archive.
	CreateSource(ctx context.Context, s *Source) error
	// Source returns one source, active or removed with its archive kept.
	Source(ctx context.Context, id string) (*Source, error)
	// Sources lists the active sources, ordered by id.
	Sources(ctx context.Context) ([]Source, error)
	// Collections lists every source that has an archive to serve, active or
	// removed-but-kept, ordered by id.
	Collections(ctx context.Context) ([]Source, error)
	// EachSource calls fn with each active source or, with collections,
	// each source that has an archive to serve (as Collections), ordered by
	// id, reading them as it goes instead of holding them all: listings of
	// any number of sources in bounded memory. An error from fn stops the
	// walk and is returned; the *Source is fn's to keep.
	EachSource(ctx context.Context, collections bool, fn func(*Source) error) error
	// UpdateSource changes a source's configuration (every field but State,
	// Summary and CreatedAt); ErrNotFound if there is no such active source.
	// A new URL also drops the state's ETag, Last-Modified and body hash,
	// which belong to the old address, so the next poll reads the new one
	// in full.
	UpdateSource(ctx context.Context, s *Source) error
	// DeleteSource stops polling a source. Its archive stays served unless
	// purge is set, in which case versions and items go too.
	DeleteSource(ctx context.Context, id string, purge bool) error
}

// PollStore hands out due sources to pollers and records what polls found.
type PollStore interface {
	// LeaseDue leases up to limit active, unpaused sources whose next poll is
	// at or before now and that nobody holds (an expired lease counts as
	// none), until now+ttl, oldest next poll first, within hosts' limits.
	// Each source is leased by one owner at a time, across processes, and a
	// source its owner is still polling is not handed out again.
	LeaseDue(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration, hosts LeaseHosts) ([]Source, error)
	// LeaseSource leases one source now, whether due or not (poll now);
	// ErrLeaseLost if another owner holds an unexpired lease on it.
	LeaseSource(ctx context.Context, id, owner string, now time.Time, ttl time.Duration) (*Source, error)
	// ReleaseLeases gives up every lease owner holds, for a clean shutdown.
	ReleaseLeases(ctx context.Context, owner string) error
	// RecordPoll applies one poll atomically. Inside one transaction it
	// checks that rec.Owner still holds the lease (ErrLeaseLost otherwise),
	// stores rec.Document as a new version when its ContentHash differs from
	// the latest version's, stores the items first seen, calls decide with
	// what was stored, and writes the returned state, poll log entry and
	// duplicates; then it releases the lease. Nothing is written when any step
	// fails. decide must be quick and must not touch the store.
	//
	// With rec.Stories, a poll that stored new items is serialized with
	// every other such poll of every process on the store, from before
	// decide until its commit: the store numbers the new items in that
	// order (StoryItem.Seq) and hands decide, in PollResult.StoredSince, the
	// items other polls stored with a number above rec.StoriesAfter, first
	// seen at or after rec.StoriesSince. A
	// detector deciding in decide thus knows every story stored before, and
	// none is stored while it decides: two copies of one story stored at the
	// same moment cannot both become primaries.
	RecordPoll(ctx context.Context, rec PollRecord, decide func(PollResult) PollUpdate) (PollResult, error)
	// SetNextPolls moves the next poll of the given sources, for policies that
	// plan polls across sources.
	SetNextPolls(ctx context.Context, next map[string]time.Time) error
	// Polls returns a source's most recent polls, newest first: at most
	// limit, or, for limit <= 0, every poll the store keeps.
	Polls(ctx context.Context, sourceID string, limit int) ([]PollLogEntry, error)
}

// LeaseHosts limits what LeaseDue hands out by the sources' hosts
// (HostKey of their URLs), so that a poller leases only what it is about
// to fetch rather than sources that would wait behind the per-host gap.
// The zero value sets no limit.
type LeaseHosts struct {
	OnePerHost bool     // at most one source per host
	Skip       []string // no source of these hosts (HostKey values)
}

// PollRecord is what one poll read.
type PollRecord struct {
	SourceID string
	Owner    string    // the lease holder
	At       time.Time // when the poll started
	// Document is the freshly read document, or nil when nothing new was
	// read (304, an unchanged body, or an error).
	Document *Resource
	// Stories asks for new items to be numbered and for the items other
	// polls stored after StoriesAfter and first seen at or after
	// StoriesSince (see RecordPoll), for a detector of stories.
	Stories      bool
	StoriesAfter int64
	StoriesSince time.Time
}

// PollResult is what RecordPoll stored.
type PollResult struct {
	Version  *Version       // the new version, nil when the content was not new
	NewItems []ArchivedItem // items not seen before in this source, in page order
	Seen     int            // items in the document read (its capacity, for policies)
	// With PollRecord.Stories and new items: StoredSince are the items
	// other polls stored after PollRecord.StoriesAfter (first seen at or
	// after StoriesSince), in the order stored, and StoriesSeq is the
	// number of this poll's last new item.
	StoredSince []StoryItem
	StoriesSeq  int64
}

// PollUpdate is what the poller writes in the same transaction, having seen
// the PollResult.
type PollUpdate struct {
	State      PollState
	Log        PollLogEntry
	Duplicates []Duplicate
}

// ArchiveStore reads the versioned archive.
type ArchiveStore interface {
	// Versions lists a collection's versions, newest first.
	Versions(ctx context.Context, sourceID string) ([]Version, error)
	// Document rebuilds version index (1 = the newest) exactly as it was
	// stored; ErrNotFound for an unknown collection or version.
	Document(ctx context.Context, sourceID string, index int) (*Resource, *Version, error)
	// Head returns version index like Document but without its items: the
	// document's URL, rssId, timestamp and channel. Answers that show a
	// collection's channel beside other items read only this.
	Head(ctx context.Context, sourceID string, index int) (*Resource, *Version, error)
	// Items answers archive and version queries (docs/API.md "Feeds").
	Items(ctx context.Context, q ItemQuery) ([]ArchivedItem, error)
	// EachItem answers the query Items does, handing fn each item as it is
	// read instead of collecting them, so that an answer of any length is
	// written in the memory of one item; fn's error stops the reading and
	// is returned, wrapped. The item is good until fn returns: a store
	// may read every row into the same one, and fn copies what it keeps.
	EachItem(ctx context.Context, q ItemQuery, fn func(*ArchivedItem) error) error
	// Page reads one page of a collection's archive by item numbers: the
	// pages of an archived feed (RFC 5005, docs/API.md "Archived feeds"),
	// which never change once full. It reads only the page's items, through
	// the numbers' index, whatever the archive's size.
	Page(ctx context.Context, q PageQuery) (*ArchivePage, error)
	// Aggregate answers queries across collections (docs/API.md "Decisions where the spec is silent", aggregate items).
	Aggregate(ctx context.Context, q AggregateQuery) ([]AggregatedItem, error)
	// AggregatePage reads one page of the aggregate's archived feed by the
	// aggregate numbers items get when published (AggregatedItem.Number):
	// like Page, a full page never changes (docs/API.md "Archived feeds").
	AggregatePage(ctx context.Context, q AggregatePageQuery) (*AggregatePage, error)
	// StoryItems calls fn for every item first seen at or after since,
	// oldest first, with what a detector of stories reads, to rebuild it.
	StoryItems(ctx context.Context, since time.Time, fn func(StoryItem) error) error
	// Stats counts sources, versions, items, duplicates and polls.
	Stats(ctx context.Context) (Stats, error)
}

// SettingStore keeps small named values shared by every process on the
// store: the global scheduling policy, discovery's per-domain patterns.
type SettingStore interface {
	// Setting returns a value, or ErrNotFound.
	Setting(ctx context.Context, key string) (string, error)
	PutSetting(ctx context.Context, key, value string) error
	// SettingsWithPrefix returns every value whose key starts with
	// prefix, by key: the records of one kind, such as revoked sessions.
	SettingsWithPrefix(ctx context.Context, prefix string) (map[string]string, error)
	// DeleteSetting deletes a value; deleting a missing key is no error.
	DeleteSetting(ctx context.Context, key string) error
}

// Version is one stored version of a collection.
type Version struct {
	SourceID string    `json:"source_id"`
	Seq      int       `json:"seq"`   // 1 = the first version ever stored; never changes
	Index    int       `json:"index"` // 1 = the newest, as in ?index=n; changes as versions are added
	SeenAt   time.Time `json:"seen_at,omitzero"`
	Hash     string    `json:"hash"` // ContentHash of the document
	Title    string    `json:"title"`
	Items    int       `json:"items"`
	Added    int       `json:"added"`   // items not in the previous version
	Removed  int       `json:"removed"` // items of the previous version not in this one
}

// PageQuery selects the items of a collection numbered From through To
// (ArchivedItem.Number) that match the conditions.
type PageQuery struct {
	SourceID   string
	From, To   int64 // 1 <= From <= To
	Conditions []Condition
}

// ArchivePage is what Page read, all from one snapshot of the store.
type ArchivePage struct {
	// Items are the matching items numbered From through To, the highest
	// number first (the archive's order), each with the content it had
	// when first stored: later edits of an item do not change the pages
	// that hold it.
	Items []ArchivedItem
	// Last is the collection's highest item number, the count of items it
	// ever had: 0 for none.
	Last int64
	// Older is the highest number below From of an item matching the
	// conditions (From-1 without conditions), 0 when there is none: where
	// a reader walking back finds the next item.
	Older int64
	// Head is the document of the version that first held item To (its
	// channel, URL and timestamp, without items), or the newest version's
	// when Last < To; nil when the collection has no version. Version is
	// that version.
	Head    *Resource
	Version *Version
}

// AggregatePageQuery selects page Number of the aggregate's archived feed:
// the items whose aggregate numbers run from (Number-1)·Size+1 through
// Number·Size, of the sources of Category ("" for every source), matching
// the conditions, each story once unless IncludeDuplicates.
type AggregatePageQuery struct {
	// Number is the page, from 1; 0 asks for the page just after the last
	// full one (the subscription document), found in the same snapshot.
	Number, Size      int64
	Category          string
	Conditions        []Condition
	IncludeDuplicates bool
}

// AggregatePage is what AggregatePage read, all from one snapshot.
type AggregatePage struct {
	Number int64 // the page read: the query's, or the current one's
	// Items are the matching items of the page, the highest number first,
	// each with the content it had when first stored, naming in AlsoIn only
	// the copies numbered up to the page's end: what the aggregate knew
	// when the page filled (copies arrive after their primary, so a full
	// page's list never grows).
	Items []AggregatedItem
	// Last is the highest aggregate number handed out: page n is full
	// once Last >= n·Size. Numbers of purged items are never reused.
	Last int64
	// Older is the highest number below the page of an item the query
	// selects, 0 for none: where a reader walking back goes next.
	Older int64
	// At is the latest first seen of the items numbered on the page,
	// whatever the query selects; zero when it has none. It dates a full
	// page, whose date must not change.
	At time.Time
}

// ItemKey names an item across collections.
type ItemKey struct {
	SourceID string `json:"source_id"`
	ItemID   string `json:"item_id"`
}

// ArchivedItem is an item as the archive knows it.
type ArchivedItem struct {
	SourceID string `json:"source_id"`
	Item     Item   `json:"item"`
	// Number counts the collection's items in the order first seen, from
	// 1, and never changes (items of one version: the lowest on the page
	// first). Set by Page only (by AggregatePage: the item's aggregate
	// number, counting every source's items in the order published); 0
	// elsewhere.
	Number    int64     `json:"number,omitempty"`
	FirstSeen time.Time `json:"first_seen,omitzero"`
	LastSeen  time.Time `json:"last_seen,omitzero"`
	// For a copy of another source's story: the story's primary (its
	// earliest copy), and the rule and score of the decision that made it
	// a copy, against DuplicateMatched (see Duplicate; nil when that copy
	// was purged since).
	DuplicateOf      *ItemKey `json:"duplicate_of,omitempty"`
	DuplicateRule    string   `json:"duplicate_rule,omitempty"`
	DuplicateScore   float64  `json:"duplicate_score,omitempty"`
	DuplicateMatched *ItemKey `json:"duplicate_matched,omitempty"`
}

// AggregatedItem is a story in an aggregate answer, with the other sources
// that carried it.
type AggregatedItem struct {
	ArchivedItem
	AlsoIn []ItemKey `json:"also_in,omitempty"`
}

// Duplicate records that Item is a copy of the story whose primary (its
// earliest copy) is Primary: the detector decided Item and Matched (a copy
// of the story, perhaps Primary) one story by Rule, with Score, a
// similarity from 0 to 1 (docs/DEDUP.md).
type Duplicate struct {
	Item    ItemKey
	Primary ItemKey
	Matched ItemKey
	Rule    string
	Score   float64
}

// StoryItem is what a detector of stories reads of a stored item.
type StoryItem struct {
	Key         ItemKey
	FirstSeen   time.Time
	Title       string
	Description string // HTML
	TitlePrefix string // its source's configured title prefix
	// DuplicateOf is the primary recorded for the item, nil for none.
	DuplicateOf *ItemKey
	// Seq numbers the items stored by polls that asked for it, in the
	// order stored (see RecordPoll); 0 for others.
	Seq int64
}

// ItemQuery selects items of one collection.
type ItemQuery struct {
	SourceID string
	// Version picks one version (1 = the newest); 0 means the whole archive,
	// each item once with its latest content, newest first by first seen and
	// then page order.
	Version    int
	Conditions []Condition
	Max        int // 0 means no limit
	// Since and Until, when set, keep the items first seen at or after
	// Since and before Until; whole-archive queries (Version 0) only.
	Since, Until time.Time
	// ItemsOnly asks for each item and when it was first seen only, as a
	// feed shows them: LastSeen and the duplicate record are left zero,
	// which spares the store reading them.
	ItemsOnly bool
}

// AggregateQuery selects items across collections.
type AggregateQuery struct {
	Category          string // "" for every source
	Conditions        []Condition
	Max               int
	IncludeDuplicates bool // show every copy, not each story once
	// Since and Until, when set, keep the items first seen at or after
	// Since and before Until.
	Since, Until time.Time
}

// Stats counts the whole store and each source.
type Stats struct {
	Sources        int            `json:"sources"`
	Versions       int            `json:"versions"`
	Items          int            `json:"items"`
	Duplicates     int            `json:"duplicates"`
	DuplicateShare float64        `json:"duplicate_share"`
	Polls          map[string]int `json:"polls"`
	PerSource      []SourceStats  `json:"per_source"`
}

// SourceStats counts one source.
type SourceStats struct {
	ID             string         `json:"id"`
	Versions       int            `json:"versions"`
	Items          int            `json:"items"`
	Duplicates     int            `json:"duplicates"`
	DuplicateShare float64        `json:"duplicate_share"`
	Polls          map[string]int `json:"polls"`
}
