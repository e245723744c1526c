package archive

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// revisionColumnsWith are the columns of a revision r an item is made of,
// its first_seen (copied from the item) included, its source_id not, with
// description read as the description column (r.description, or what a
// store's Markup reads in its place).
func revisionColumnsWith(description string) string {
	return `r.item_key, r.doc_id, r.title, r.link, ` + description + `, r.plain_text,
	r.image, r.extensions, r.media, r.id_from_content, r.first_seen`
}

// ItemColumns is what ScanItem reads: the revision r, the item i, its
// duplicate record d, then one column the caller adds (the item's index
// attribute, its position in the version, or its number).
var ItemColumns = itemColumnsWith("r.description")

// itemColumnsWith is ItemColumns with description read as the description
// column.
func itemColumnsWith(description string) string {
	return `r.source_id, ` + revisionColumnsWith(description) + `, coalesce(i.last_seen, s.last_version_at),
	d.primary_source, d.primary_item, coalesce(d.rule, ''), coalesce(d.score, 0), d.matched_source, d.matched_item`
}

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
// which reads such a row into a new item (EachItem reads them all into
// one).
type ItemShape struct {
	Columns, Joins string
	Scan           func(Scanner) (dynamo.ArchivedItem, error)
	// full: every column of ArchivedItem; else the revision's own, of
	// source sourceID.
	full     bool
	sourceID string
	markup   *Markup
}

// Markup is how a store keeps a revision's description other than as its
// text (SQLite: operations rebuilding it from the plain text, migration
// 0013): Column is read in place of r.description, as bytes good until the
// row is decoded, and Decode makes the description of them and the plain
// text. Decoded so, rather than by an SQL function making the description
// column, the driver copies neither text into the function nor its result
// back out, for every row.
type Markup struct {
	Column string
	Decode func(stored []byte, plain string) (string, error)
}

// ItemShapeOf is the shape of an item query (dynamo.ItemQuery): every
// column of ArchivedItem (ItemColumns, ItemJoins, ScanItem), or for a
// query of items only (ItemsOnly) the revision's own columns, no join, and
// the query's source id rather than a column of each row.
func ItemShapeOf(q dynamo.ItemQuery) ItemShape { return ItemShapeWith(q, nil) }

// ItemShapeWith is ItemShapeOf reading each description as m says (nil:
// the column r.description). With m, rows must be read through
// database/sql's *sql.Rows (the stored bytes are a sql.RawBytes).
func ItemShapeWith(q dynamo.ItemQuery, m *Markup) ItemShape {
	description := "r.description"
	if m != nil {
		description = m.Column
	}
	shape := ItemShape{full: !q.ItemsOnly, sourceID: q.SourceID, markup: m}
	if shape.full {
		shape.Columns, shape.Joins = itemColumnsWith(description), ItemJoins
	} else {
		shape.Columns = revisionColumnsWith(description)
	}
	shape.Scan = func(row Scanner) (dynamo.ArchivedItem, error) {
		r := new(itemRow)
		err := shape.read(row, r, shape.dest(r))
		return r.a, err
	}
	return shape
}

// ScanItem reads a row of ItemColumns and the caller's column, which it
// leaves in Item.Index.
var ScanItem = ItemShapeOf(dynamo.ItemQuery{}).Scan

// EachItem reads every row of rows, of shape's columns and the caller's
// one, and hands each item to fn, stopping at the first error. Every row
// is read into one item, so the item fn gets is good until it returns: fn
// copies what it keeps (CollectItems keeps *it). A new item for each row,
// and a copy of it for fn, took three allocations of an item per row.
func EachItem(rows Rows, shape ItemShape, fn func(*dynamo.ArchivedItem) error) error {
	r := new(itemRow)
	dest := shape.dest(r)
	for rows.Next() {
		if err := shape.read(rows, r, dest); err != nil {
			return err
		}
		if err := fn(&r.a); err != nil {
			return err
		}
	}
	return rows.Err()
}

// dest is where shape's row is scanned: into r.
func (shape ItemShape) dest(r *itemRow) []any {
	a, it := &r.a, &r.a.Item
	var description any = &it.Description
	if shape.markup != nil {
		description = &r.stored
	}
	var dest []any
	if shape.full {
		dest = append(dest, &a.SourceID)
	}
	dest = append(dest, &r.key, &r.docID, &it.Title, &it.Link, description, &it.Text,
		&r.image, &r.extensions, &r.media, &it.IDFromContent, Time(&a.FirstSeen))
	if shape.full {
		dest = append(dest, Time(&a.LastSeen), &r.psrc, &r.pitem, &a.DuplicateRule, &a.DuplicateScore, &r.msrc, &r.mitem)
	}
	return append(dest, &r.extra)
}

// read scans a row into r, emptied first, through dest (shape.dest(r)),
// and decodes it; the caller's column is left in Item.Index.
func (shape ItemShape) read(row Scanner, r *itemRow, dest []any) error {
	*r = itemRow{}
	if !shape.full {
		r.a.SourceID = shape.sourceID
	}
	if err := row.Scan(dest...); err != nil {
		return err
	}
	if shape.markup != nil {
		d, err := shape.markup.Decode(r.stored, r.a.Item.Text)
		if err != nil {
			return fmt.Errorf("item %s description: %w", r.key, err)
		}
		r.a.Item.Description = d
	}
	if err := r.decode(); err != nil {
		return err
	}
	if shape.full {
		r.a.DuplicateOf, r.a.DuplicateMatched = itemKey(r.psrc, r.pitem), itemKey(r.msrc, r.mitem)
	}
	return nil
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

// itemRow is where an item's row is scanned: every destination in one
// allocation, where a variable of each, escaping to Scan, took one each
// (a fifth of an archive answer's allocations).
type itemRow struct {
	a                               dynamo.ArchivedItem
	key                             string
	docID, psrc, pitem, msrc, mitem *string
	image, extensions, media        []byte
	stored                          sql.RawBytes // the description's Markup
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
