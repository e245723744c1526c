package archive

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// VersionTx is the SQL a store runs, inside the transaction that records a
// poll, to store one new version of one source; WriteVersion decides what
// to read and write.
type VersionTx interface {
	// Stored returns what the store holds of the source's items among
	// keys, by key, and the keys of the source's items that ever had each
	// of titles, most recently revised first, by title (none asked when
	// titles is empty). A store may ask both at once, and reserve the
	// ids of at most revisions revisions that InsertRevisions will store.
	Stored(ctx context.Context, keys, titles []string, revisions int) (map[string]Known, map[string][]string, error)
	// Revisions returns the ids of the stored revisions among the pairs
	// keys[i], hashes[i], by RevKey.
	Revisions(ctx context.Context, keys []string, hashes [][]byte) (map[string]int64, error)
	// InsertRevisions stores revs and adds their ids to ids, by RevKey.
	// Archive queries do not show them until the source's published
	// revision reaches them (StoreVersion).
	InsertRevisions(ctx context.Context, revs []Revision, ids map[string]int64) error
	// Previous returns the positions of version seq, in page order, and
	// when it was seen.
	Previous(ctx context.Context, seq int) (positions []Position, seenAt time.Time, err error)
	// LastNumber returns the source's highest item number (NewItem.Number),
	// 0 when it has no item.
	LastNumber(ctx context.Context) (int64, error)
	// StoreItems applies what the new version changes in the items. New
	// items are stored with the version's sequence number as their first,
	// which readers do not show until the source's last sequence number
	// reaches it (StoreVersion).
	StoreItems(ctx context.Context, ch ItemChanges) error
	// StoreVersion inserts the version and updates the source's summary,
	// its last sequence number and its published revision (at least
	// v.Published), which show the version's items and revisions.
	StoreVersion(ctx context.Context, v NewVersion) error
}

// Known is what a store holds of an item already stored.
type Known struct {
	FirstSeen  time.Time
	FirstPos   int // its position when first seen
	FirstIndex int // its index attribute when first seen
	LatestRev  int64
}

// Position is one position of a stored version: its item's key and the
// revision shown there, with what the revision copies of its item.
type Position struct {
	Key        string
	Hash       []byte // RevisionHash
	Rev        int64
	FirstSeen  time.Time
	FirstPos   int
	FirstIndex int
	Latest     bool // the revision the item shows (its items row's latest_rev)
}

// Revision is one item content to store, named within its item by Hash.
type Revision struct {
	Key        string
	Hash       []byte // RevisionHash
	Item       *dynamo.Item
	FirstSeen  time.Time
	FirstPos   int
	FirstIndex int
	Latest     bool // the revision at its item's first position, which the archive shows
}

// RevKey names a revision among a source's: its item's key and its hash.
func RevKey(key string, hash []byte) string { return key + "\x00" + string(hash) }

// ItemChanges is what a new version changes in a source's items. Items that
// stay on the page cost no write.
type ItemChanges struct {
	New   []NewItem   // items first seen in this version
	Moved []MovedItem // stored items whose shown revision changed
	Back  []string    // stored items back on the page: no longer gone
	Gone  []string    // items of the previous version no longer on the page
	// GoneAt is when the gone items were last seen: when the previous
	// version was.
	GoneAt time.Time
}

// NewItem is an item first seen in the version being stored.
type NewItem struct {
	Key        string
	Rev        int64 // its first revision, which archive pages show
	Pos, Index int   // its position and index attribute
	// Number is the item's number in its source, following the source's
	// items stored before (dynamo.ArchivedItem.Number): one version's new
	// items are numbered from the bottom of the page up, so that the
	// highest number is the newest item of the archive's order.
	Number int64
}

// MovedItem is a stored item and the revision it now shows.
type MovedItem struct {
	Key string
	Rev int64
}

// NewVersion is the version to insert.
type NewVersion struct {
	Version  *dynamo.Version
	Doc      *dynamo.Resource
	Revs     []int64 // the revision of each position
	Indexes  []int   // the items' index attributes; nil when they are 1..n
	NewItems int     // items first seen in it
	// Published is the greatest of Revs: every revision of the source
	// stored for this version or before it has an id no greater (ids only
	// grow), so archive queries show the source's revisions up to it.
	Published int64
}

// WriteVersion stores doc as version seq of source, seen at at and named by
// its content hash, through the store's tx: it validates the document,
// finds each item's key (its id when the source has an item of that id;
// else, for an item whose id comes from its content, an earlier item with
// the same title, docs/STORAGE.md "Schema"; else its own id, as a new item), finds or stores
// the revision of each position, applies the item changes against the
// previous version and inserts the version. It returns the version and the
// items first seen in it, in page order.
func WriteVersion(ctx context.Context, tx VersionTx, source string, seq int, at time.Time, hash string, doc *dynamo.Resource) (*dynamo.Version, []dynamo.ArchivedItem, error) {
	if err := ValidDocument(doc); err != nil {
		return nil, nil, err
	}
	w := &versionWriter{source: source, seq: seq, at: at, hash: hash, doc: doc}
	if err := w.plan(ctx, tx); err != nil {
		return nil, nil, err
	}
	if len(w.missing) > 0 {
		if err := tx.InsertRevisions(ctx, w.missing, w.ids); err != nil {
			return nil, nil, err
		}
	}
	ch := w.changes()
	if err := storeItems(ctx, tx, ch); err != nil {
		return nil, nil, err
	}
	v, err := w.storeVersion(ctx, tx)
	if err != nil {
		return nil, nil, err
	}
	return v, w.newItems(), nil
}

// Batches runs the transactions of a version written in batches
// (StageVersion). Each call is its own transaction, so that other writes
// run between them; the store makes every one fail with ErrStagingLost
// once another writer has taken over the source's unpublished rows.
type Batches interface {
	// Read runs fn over a snapshot of the store that includes every
	// batch run before.
	Read(ctx context.Context, fn func(VersionTx) error) error
	// Batch runs fn in a short write transaction of its own.
	Batch(ctx context.Context, fn func(VersionTx) error) error
}

// ErrStagingLost is a batch's answer when another writer of the source
// deleted the rows staged for a version (docs/STORAGE.md, "Large
// versions"): the version must be written again, whole.
var ErrStagingLost = errors.New("the version's staged rows were taken over by another writer")

// Staged is a version whose revisions and new items are stored but not
// yet visible: Publish makes it the source's newest version.
type Staged struct {
	w    *versionWriter
	rest ItemChanges // what publishing changes in items stored before
}

// StageVersion does what WriteVersion does up to the version row, except
// for the changes to items stored before, in transactions of at most n
// rows each (b.Batch): first the new revisions, then the new items, stored
// under seq. Readers see none of them until Publish, in the store's final
// transaction, moves the source's last sequence number to seq and its
// published revision past them. Should the process stop between batches,
// the rows stay hidden until the next version of the source deletes them.
func StageVersion(ctx context.Context, b Batches, n int, source string, seq int, at time.Time, hash string, doc *dynamo.Resource) (*Staged, error) {
	if err := ValidDocument(doc); err != nil {
		return nil, err
	}
	w := &versionWriter{source: source, seq: seq, at: at, hash: hash, doc: doc}
	if err := b.Read(ctx, func(tx VersionTx) error { return w.plan(ctx, tx) }); err != nil {
		return nil, err
	}
	for part := range slices.Chunk(w.missing, n) {
		if err := b.Batch(ctx, func(tx VersionTx) error { return tx.InsertRevisions(ctx, part, w.ids) }); err != nil {
			return nil, err
		}
	}
	ch := w.changes()
	for part := range slices.Chunk(ch.New, n) {
		if err := b.Batch(ctx, func(tx VersionTx) error { return tx.StoreItems(ctx, ItemChanges{New: part}) }); err != nil {
			return nil, err
		}
	}
	ch.New = nil
	return &Staged{w: w, rest: ch}, nil
}

// Publish makes the staged version visible through tx, the store's final
// transaction, which must find the source's last sequence number still at
// the version's predecessor: the changes to items stored before, the
// version row and the source's summary. It returns what WriteVersion
// returns.
func (st *Staged) Publish(ctx context.Context, tx VersionTx) (*dynamo.Version, []dynamo.ArchivedItem, error) {
	if err := storeItems(ctx, tx, st.rest); err != nil {
		return nil, nil, err
	}
	v, err := st.w.storeVersion(ctx, tx)
	if err != nil {
		return nil, nil, err
	}
	return v, st.w.newItems(), nil
}

// versionWriter is one version being stored.
type versionWriter struct {
	source string
	seq    int
	at     time.Time
	hash   string
	doc    *dynamo.Resource

	keys    []string         // the item key of each position
	known   map[string]Known // items stored before, by key
	hashes  [][]byte         // the revision hash of each position
	ids     map[string]int64 // the stored revisions, by RevKey
	missing []Revision       // the revisions to insert

	prevKeys   []string  // the items of the previous version
	prevSeenAt time.Time // when the previous version was seen
	lastNumber int64     // the source's highest item number before
}

// plan reads what the version needs of the store: the previous version,
// the items' keys, what is known of them, the revisions stored and those
// to insert. The previous version comes first: a page mostly holds the
// items it held before, with the same content, so what its positions
// tell of their items and revisions is not asked again; only the items
// and contents it did not hold are looked up.
func (w *versionWriter) plan(ctx context.Context, tx VersionTx) error {
	w.known, w.ids = map[string]Known{}, map[string]int64{}
	if err := w.loadPrevious(ctx, tx); err != nil {
		return err
	}
	w.hashes = make([][]byte, len(w.doc.Items))
	for i := range w.doc.Items {
		w.hashes[i] = RevisionHash(&w.doc.Items[i])
	}
	if err := w.resolveKeys(ctx, tx); err != nil {
		return err
	}
	if err := w.findRevisions(ctx, tx); err != nil {
		return err
	}
	var err error
	w.lastNumber, err = tx.LastNumber(ctx)
	return err
}

func (w *versionWriter) resolveKeys(ctx context.Context, tx VersionTx) error {
	items := w.doc.Items
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	stored := func(key string) bool { _, ok := w.known[key]; return ok }
	// The titles of the items the previous version did not hold are asked
	// with them, before knowing which are stored (MatchStoredItems looks
	// at the titles of those that are not). A revision may be missing only
	// at a position whose item and content the previous version did not
	// show.
	missing := 0
	for i, it := range items {
		if _, ok := w.ids[RevKey(it.ID, w.hashes[i])]; !ok {
			missing++
		}
	}
	byTitle, err := w.loadKnown(ctx, tx, ids, dynamo.TitlesToMatch(items, stored), missing)
	if err != nil {
		return err
	}
	var matched []string
	w.keys, matched = dynamo.MatchStoredItems(items, stored, byTitle)
	_, err = w.loadKnown(ctx, tx, matched, nil, 0)
	return err
}

// loadKnown adds the stored items among keys to w.known, asking only for
// those not known yet, and returns the keys of the items that had each of
// titles; the store may reserve ids for revisions revisions with them.
func (w *versionWriter) loadKnown(ctx context.Context, tx VersionTx, keys, titles []string, revisions int) (map[string][]string, error) {
	var ask []string
	for _, k := range keys {
		if _, ok := w.known[k]; !ok {
			ask = append(ask, k)
		}
	}
	if len(ask) == 0 && len(titles) == 0 && revisions == 0 {
		return nil, nil
	}
	found, byTitle, err := tx.Stored(ctx, ask, titles, revisions)
	if err != nil {
		return nil, err
	}
	for k, v := range found {
		w.known[k] = v
	}
	return byTitle, nil
}

// findRevisions finds the stored revision of each position and lists the
// ones to insert.
func (w *versionWriter) findRevisions(ctx context.Context, tx VersionTx) error {
	items := w.doc.Items
	// Only the contents of stored items that the previous version did
	// not show are looked up: an item not stored has no revision.
	var keys []string
	var hashes [][]byte
	for i, key := range w.keys {
		if _, ok := w.ids[RevKey(key, w.hashes[i])]; !ok && w.isKnown(key) {
			keys, hashes = append(keys, key), append(hashes, w.hashes[i])
		}
	}
	if len(keys) > 0 {
		found, err := tx.Revisions(ctx, keys, hashes)
		if err != nil {
			return err
		}
		maps.Copy(w.ids, found)
	}
	queued := map[string]bool{}
	firstPos := map[string]int{}
	for i := range items {
		key := w.keys[i]
		if _, ok := firstPos[key]; !ok {
			firstPos[key] = i
		}
		rk := RevKey(key, w.hashes[i])
		if _, ok := w.ids[rk]; ok || queued[rk] {
			continue
		}
		queued[rk] = true
		r := Revision{Key: key, Hash: w.hashes[i], Item: &items[i], FirstSeen: w.at, FirstPos: firstPos[key],
			FirstIndex: items[firstPos[key]].Index, Latest: firstPos[key] == i}
		if k, ok := w.known[key]; ok {
			r.FirstSeen, r.FirstPos, r.FirstIndex = k.FirstSeen, k.FirstPos, k.FirstIndex
		}
		w.missing = append(w.missing, r)
	}
	return nil
}

// revs is the revision of each position, once every one is stored.
func (w *versionWriter) revs() []int64 {
	revs := make([]int64, len(w.doc.Items))
	for i := range revs {
		revs[i] = w.ids[RevKey(w.keys[i], w.hashes[i])]
	}
	return revs
}

// isKnown reports whether the source has an item of key.
func (w *versionWriter) isKnown(key string) bool {
	_, ok := w.known[key]
	return ok
}

// loadPrevious reads which items the previous version held and when it
// was seen, and takes what its positions tell: the ids of their
// revisions, and what is known of each item shown there by the revision
// it shows (its items row's latest_rev, which the revision's latest flag
// marks: every version's write sets both to the revision at the item's
// first position, changes), as the store's items row would tell it.
func (w *versionWriter) loadPrevious(ctx context.Context, tx VersionTx) error {
	if w.seq == 1 {
		return nil
	}
	positions, seenAt, err := tx.Previous(ctx, w.seq-1)
	if err != nil {
		return err
	}
	w.prevSeenAt = seenAt
	for _, p := range positions {
		w.prevKeys = append(w.prevKeys, p.Key)
		w.ids[RevKey(p.Key, p.Hash)] = p.Rev
		if p.Latest {
			w.known[p.Key] = Known{FirstSeen: p.FirstSeen, FirstPos: p.FirstPos, FirstIndex: p.FirstIndex, LatestRev: p.Rev}
		}
	}
	return nil
}

// changes lists what the version changes in the items: new ones, those
// whose shown revision moved (the revision at an item's first position is
// the one the archive shows), those back on the page and those that left
// it.
func (w *versionWriter) changes() ItemChanges {
	revs := w.revs()
	cur, prev := Set(w.keys), Set(w.prevKeys)
	ch := ItemChanges{GoneAt: w.prevSeenAt}
	done := map[string]bool{}
	for i, key := range w.keys {
		if done[key] {
			continue
		}
		done[key] = true
		k, known := w.known[key]
		switch {
		case !known:
			ch.New = append(ch.New, NewItem{Key: key, Rev: revs[i], Pos: i, Index: w.doc.Items[i].Index})
		case k.LatestRev != revs[i]:
			ch.Moved = append(ch.Moved, MovedItem{Key: key, Rev: revs[i]})
		}
		if known && !prev[key] {
			ch.Back = append(ch.Back, key)
		}
	}
	for _, key := range w.prevKeys {
		if !cur[key] && !done[key] {
			done[key] = true
			ch.Gone = append(ch.Gone, key)
		}
	}
	for i := range ch.New {
		ch.New[i].Number = w.lastNumber + int64(len(ch.New)-i)
	}
	return ch
}

// storeItems applies ch, unless it changes nothing.
func storeItems(ctx context.Context, tx VersionTx, ch ItemChanges) error {
	if len(ch.New)+len(ch.Moved)+len(ch.Back)+len(ch.Gone) == 0 {
		return nil
	}
	return tx.StoreItems(ctx, ch)
}

// storeVersion inserts the version, counting what it added and removed
// against the previous version.
func (w *versionWriter) storeVersion(ctx context.Context, tx VersionTx) (*dynamo.Version, error) {
	prev, cur := Set(w.prevKeys), Set(w.keys)
	v := &dynamo.Version{SourceID: w.source, Seq: w.seq, Index: 1, SeenAt: w.at, Hash: w.hash,
		Title: w.doc.Channel.Title, Items: len(w.doc.Items)}
	for k := range cur {
		if !prev[k] {
			v.Added++
		}
	}
	for k := range prev {
		if !cur[k] {
			v.Removed++
		}
	}
	revs := w.revs()
	nv := NewVersion{Version: v, Doc: w.doc, Revs: revs, NewItems: len(w.newItems())}
	if len(revs) > 0 {
		nv.Published = slices.Max(revs)
	}
	plain := true
	indexes := make([]int, len(w.doc.Items))
	for i, it := range w.doc.Items {
		indexes[i] = it.Index
		plain = plain && it.Index == i+1
	}
	if !plain {
		nv.Indexes = indexes
	}
	if err := tx.StoreVersion(ctx, nv); err != nil {
		return nil, err
	}
	return v, nil
}

// newItems lists the items first seen in this version, in page order.
func (w *versionWriter) newItems() []dynamo.ArchivedItem {
	var out []dynamo.ArchivedItem
	seen := map[string]bool{}
	for i, key := range w.keys {
		if _, ok := w.known[key]; ok || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, dynamo.ArchivedItem{SourceID: w.source, Item: w.doc.Items[i], FirstSeen: w.at, LastSeen: w.at})
	}
	return out
}
