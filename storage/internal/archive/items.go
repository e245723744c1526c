package archive

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// revisionColumns are the columns of a revision r an item is made of, its
// first_seen (copied from the item) included, its source_id not.
const revisionColumns = `r.item_key, r.doc_id, r.title, r.link, r.description, r.plain_text,
	r.image, r.extensions, r.media, r.id_from_content, r.first_seen`

// ItemColumns is what ScanItem reads: the revision r, the item i, its
// duplicate record d, then one column the caller adds (the item's index
// attribute, its position in the version, or its number).
const ItemColumns = `r.source_id, ` + revisionColumns + `, coalesce(i.last_seen, s.last_version_at),
	d.primary_source, d.primary_item, coalesce(d.rule, ''), coalesce(d.score, 0), d.matched_source, d.matched_item`

// ItemJoins joins a revision r to its source s, item i and duplicate
// record d, the item found by the key's text (PostgreSQL's items).
var ItemJoins = ItemJoinsOn("i.item_id = r.item_key")

// ItemJoinsOn is ItemJoins with the item i matched to the revision r by
// match: a store whose items are keyed otherwise (SQLite's by the key's
// bytes, migration 0020) says how.
func ItemJoinsOn(match string) string {
	return `JOIN sources s ON s.id = r.source_id
	JOIN items i ON i.source_id = r.source_id AND ` + match + `
	LEFT JOIN duplicates d ON d.source_id = r.source_id AND d.item_id = r.item_key`
}

// ItemShape is what an item query reads of each item: Columns (then the
// caller's one column), the Joins of a revision r they need, and Scan,
// which reads such a row.
type ItemShape struct {
	Columns, Joins string
	Scan           func(Scanner) (dynamo.ArchivedItem, error)
}

// ItemShapeOf is the shape of an item query (dynamo.ItemQuery): every
// column of ArchivedItem (ItemColumns, ItemJoins, ScanItem), or for a
// query of items only (ItemsOnly) the revision's own columns, no join, and
// the query's source id rather than a column of each row.
func ItemShapeOf(q dynamo.ItemQuery) ItemShape {
	if q.ItemsOnly {
		scan := func(row Scanner) (dynamo.ArchivedItem, error) { return scanRevision(row, q.SourceID) }
		return ItemShape{Columns: revisionColumns, Scan: scan}
	}
	return ItemShape{Columns: ItemColumns, Joins: ItemJoins, Scan: ScanItem}
}

// ScanItem reads a row of ItemColumns and the caller's column, which it
// leaves in Item.Index.
func ScanItem(row Scanner) (dynamo.ArchivedItem, error) {
	r := new(itemRow)
	a, it := &r.a, &r.a.Item
	err := row.Scan(&a.SourceID, &r.key, &r.docID, &it.Title, &it.Link, &it.Description, &it.Text,
		&r.image, &r.extensions, &r.media, &it.IDFromContent, Time(&a.FirstSeen), Time(&a.LastSeen),
		&r.psrc, &r.pitem, &a.DuplicateRule, &a.DuplicateScore, &r.msrc, &r.mitem, &r.extra)
	if err != nil {
		return r.a, err
	}
	if err := r.decode(); err != nil {
		return r.a, err
	}
	a.DuplicateOf, a.DuplicateMatched = itemKey(r.psrc, r.pitem), itemKey(r.msrc, r.mitem)
	return r.a, nil
}

// scanRevision reads a row of revisionColumns of source sourceID and the
// caller's column, which it leaves in Item.Index.
func scanRevision(row Scanner, sourceID string) (dynamo.ArchivedItem, error) {
	r := new(itemRow)
	a, it := &r.a, &r.a.Item
	a.SourceID = sourceID
	err := row.Scan(&r.key, &r.docID, &it.Title, &it.Link, &it.Description, &it.Text,
		&r.image, &r.extensions, &r.media, &it.IDFromContent, Time(&a.FirstSeen), &r.extra)
	if err != nil {
		return r.a, err
	}
	return r.a, r.decode()
}

// decode makes the scanned revision's item: its id, index attribute and
// JSON columns.
func (r *itemRow) decode() error {
	it := &r.a.Item
	it.ID, it.Index = r.key, int(r.extra)
	if r.docID != nil {
		it.ID = *r.docID
	}
	if r.image != nil {
		if err := json.Unmarshal(r.image, &it.Image); err != nil {
			return fmt.Errorf("item %s image: %w", r.key, err)
		}
	}
	if r.extensions != nil {
		if err := json.Unmarshal(r.extensions, &it.Extensions); err != nil {
			return fmt.Errorf("item %s extensions: %w", r.key, err)
		}
	}
	return ReadMedia(r.media, it)
}

// itemRow is where ScanItem reads a row: every destination in one
// allocation, where a variable of each, escaping to Scan, took one each
// (a fifth of an archive answer's allocations).
type itemRow struct {
	a                               dynamo.ArchivedItem
	key                             string
	docID, psrc, pitem, msrc, mitem *string
	image, extensions, media        []byte
	extra                           int64
}

// CollectItems collects the items an item query (dynamo.ItemQuery) of at
// most max items (0: no bound) hands out through each, a store's EachItem:
// how both stores' Items are made of their EachItem.
func CollectItems(max int, each func(fn func(*dynamo.ArchivedItem) error) error) ([]dynamo.ArchivedItem, error) {
	var items []dynamo.ArchivedItem
	if max > 0 {
		items = make([]dynamo.ArchivedItem, 0, min(max, 1000))
	}
	err := each(func(it *dynamo.ArchivedItem) error {
		items = append(items, *it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// itemKey is the key of a nullable pair of columns, nil when either is
// NULL.
func itemKey(source, item *string) *dynamo.ItemKey {
	if source == nil || item == nil {
		return nil
	}
	return &dynamo.ItemKey{SourceID: *source, ItemID: *item}
}

// StoryItemColumns is what ScanStoryItem reads: an item i, its latest
// revision r, its source s and its duplicate record d. StoryItemJoins
// leaves out the items of a version not yet published (first_seq beyond
// the source's last_seq, docs/STORAGE.md "Large versions").
var StoryItemColumns = StoryItemColumnsWith("i.first_seen")

// StoryItemColumnsWith is StoryItemColumns with the item's first-seen time
// read from firstSeen: a store whose items keep no copy of it (SQLite's,
// migration 0020) reads the revision's, r.first_seen.
func StoryItemColumnsWith(firstSeen string) string {
	return `i.source_id, i.item_id, ` + firstSeen + `, r.title, r.description, s.title_prefix,
	d.primary_source, d.primary_item, coalesce(i.story_seq, 0)`
}

// StoryItemJoins joins an item i to what StoryItemColumns reads.
const StoryItemJoins = `JOIN item_revisions r ON r.rev_id = i.latest_rev
	JOIN sources s ON s.id = i.source_id AND i.first_seq <= s.last_seq
	LEFT JOIN duplicates d ON d.source_id = i.source_id AND d.item_id = i.item_id`

// ScanStoryItem reads a row of StoryItemColumns.
func ScanStoryItem(row Scanner) (dynamo.StoryItem, error) {
	var it dynamo.StoryItem
	var psrc, pitem *string
	err := row.Scan(&it.Key.SourceID, &it.Key.ItemID, Time(&it.FirstSeen), &it.Title, &it.Description, &it.TitlePrefix,
		&psrc, &pitem, &it.Seq)
	it.DuplicateOf = itemKey(psrc, pitem)
	return it, err
}

// AlsoIn names, for each of items, the duplicates recorded of it, from the
// rows (primary_source, primary_item, source_id, item_id) of the
// duplicates of ItemKeys(items).
func AlsoIn(items []dynamo.AggregatedItem, rows Rows) error {
	byKey := map[dynamo.ItemKey]*dynamo.AggregatedItem{}
	for i := range items {
		byKey[dynamo.ItemKey{SourceID: items[i].SourceID, ItemID: items[i].Item.ID}] = &items[i]
	}
	for rows.Next() {
		var p, dup dynamo.ItemKey
		if err := rows.Scan(&p.SourceID, &p.ItemID, &dup.SourceID, &dup.ItemID); err != nil {
			return fmt.Errorf("duplicates: %w", err)
		}
		if it := byKey[p]; it != nil {
			it.AlsoIn = append(it.AlsoIn, dup)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("duplicates: %w", err)
	}
	return nil
}

// ItemKeys are the keys of items, in their order.
func ItemKeys(items []dynamo.AggregatedItem) []dynamo.ItemKey {
	keys := make([]dynamo.ItemKey, len(items))
	for i, it := range items {
		keys[i] = dynamo.ItemKey{SourceID: it.SourceID, ItemID: it.Item.ID}
	}
	return keys
}

// Aggregated wraps archive items as aggregated ones.
func Aggregated(items []dynamo.ArchivedItem) []dynamo.AggregatedItem {
	out := make([]dynamo.AggregatedItem, len(items))
	for i, it := range items {
		out[i].ArchivedItem = it
	}
	return out
}

// SeenBetween adds to a WHERE clause on item_revisions r the bounds of when
// the items were first seen: at or after since, before until; a zero time
// is no bound. Each bound is an argument appended to args, written as at
// writes times and named in the SQL by param, which is given the
// argument's number.
func SeenBetween(where string, args []any, since, until time.Time, at func(time.Time) any, param func(n int) string) (string, []any) {
	if !since.IsZero() {
		args = append(args, at(since))
		where += " AND r.first_seen >= " + param(len(args))
	}
	if !until.IsZero() {
		args = append(args, at(until))
		where += " AND r.first_seen < " + param(len(args))
	}
	return where, args
}

// NumberedParam is PostgreSQL's placeholder for argument n, for
// SeenBetween.
func NumberedParam(n int) string { return "$" + strconv.Itoa(n) }

// SeqOf turns a version index (1 = newest) of a collection of last
// versions into its sequence number.
func SeqOf(sourceID string, index, last int) (int, error) {
	if index < 1 || index > last {
		return 0, fmt.Errorf("version %d of %s: %w", index, sourceID, dynamo.ErrNotFound)
	}
	return last - index + 1, nil
}

// VersionColumns is what ScanVersion reads of the versions table, in its
// order.
const VersionColumns = `seq, seen_at, hash, title, item_count, added, removed`

// ScanVersion reads a row of VersionColumns of a collection of last
// versions.
func ScanVersion(row Scanner, sourceID string, last int) (dynamo.Version, error) {
	v := dynamo.Version{SourceID: sourceID}
	err := row.Scan(&v.Seq, Time(&v.SeenAt), Hash(&v.Hash), &v.Title, &v.Items, &v.Added, &v.Removed)
	v.Index = last - v.Seq + 1
	return v, err
}

// ScanHead reads a version without its items: the columns url, rss_id,
// stamp, the channel's JSON, seen_at, hash, title, item_count, added and
// removed, then the destinations after, into v and the document it
// returns.
func ScanHead(row Scanner, v *dynamo.Version, after ...any) (*dynamo.Resource, error) {
	doc := &dynamo.Resource{}
	var channel []byte
	dest := append([]any{&doc.URL, &doc.RSSID, Time(&doc.Timestamp), &channel, Time(&v.SeenAt), Hash(&v.Hash),
		&v.Title, &v.Items, &v.Added, &v.Removed}, after...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(channel, &doc.Channel); err != nil {
		return nil, fmt.Errorf("channel: %w", err)
	}
	return doc, nil
}

// NumberPage turns the items of a page, read with their numbers in
// Item.Index (ScanItem's extra column), highest first, into the page's
// items: each its number, and its index attribute its place on the page.
func NumberPage(items []dynamo.ArchivedItem) {
	for i := range items {
		items[i].Number, items[i].Item.Index = int64(items[i].Item.Index), i+1
	}
}
