package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// lastSeq returns the number of versions of a collection, or ErrNotFound.
func (s *Store) lastSeq(ctx context.Context, sourceID string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, "SELECT last_seq FROM sources WHERE id = $1", sourceID).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("collection %s: %w", sourceID, dynamo.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("collection %s: %w", sourceID, err)
	}
	return n, nil
}

// seqOf turns a version index (1 = newest) into a sequence number.
func seqOf(sourceID string, index, last int) (int, error) {
	if index < 1 || index > last {
		return 0, fmt.Errorf("version %d of %s: %w", index, sourceID, dynamo.ErrNotFound)
	}
	return last - index + 1, nil
}

// Versions lists a collection's versions, newest first.
func (s *Store) Versions(ctx context.Context, sourceID string) ([]dynamo.Version, error) {
	last, err := s.lastSeq(ctx, sourceID)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, seen_at, hash, title, item_count, added, removed
		FROM versions WHERE source_id = $1 ORDER BY seq DESC`, sourceID)
	if err != nil {
		return nil, fmt.Errorf("versions of %s: %w", sourceID, err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (dynamo.Version, error) {
		v := dynamo.Version{SourceID: sourceID}
		err := row.Scan(&v.Seq, &v.SeenAt, &v.Hash, &v.Title, &v.Items, &v.Added, &v.Removed)
		v.SeenAt, v.Index = v.SeenAt.UTC(), last-v.Seq+1
		return v, err
	})
	if err != nil {
		return nil, fmt.Errorf("versions of %s: %w", sourceID, err)
	}
	return list, nil
}

// Document rebuilds version index (1 = the newest) from its revisions.
func (s *Store) Document(ctx context.Context, sourceID string, index int) (*dynamo.Resource, *dynamo.Version, error) {
	last, err := s.lastSeq(ctx, sourceID)
	if err != nil {
		return nil, nil, err
	}
	seq, err := seqOf(sourceID, index, last)
	if err != nil {
		return nil, nil, err
	}
	doc := &dynamo.Resource{}
	v := &dynamo.Version{SourceID: sourceID, Seq: seq, Index: index}
	var channel, revs []byte
	var indexes []int32
	err = s.pool.QueryRow(ctx, `SELECT url, rss_id, stamp, channel, seen_at, hash, title, item_count, added, removed,
			revs, indexes
		FROM versions WHERE source_id = $1 AND seq = $2`, sourceID, seq).Scan(
		&doc.URL, &doc.RSSID, &doc.Timestamp, &channel, &v.SeenAt, &v.Hash, &v.Title, &v.Items, &v.Added, &v.Removed,
		&revs, &indexes)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, fmt.Errorf("version %d of %s: %w", index, sourceID, dynamo.ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("version %d of %s: %w", index, sourceID, err)
	}
	doc.Timestamp, v.SeenAt = doc.Timestamp.UTC(), v.SeenAt.UTC()
	if err := json.Unmarshal(channel, &doc.Channel); err != nil {
		return nil, nil, fmt.Errorf("version %d of %s: channel: %w", index, sourceID, err)
	}
	q, err := versionQuery(sourceID, revs, indexes, nil, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("version %d of %s: %w", index, sourceID, err)
	}
	items, err := s.queryItems(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("version %d of %s: %w", index, sourceID, err)
	}
	for _, it := range items {
		doc.Items = append(doc.Items, it.Item)
	}
	return doc, v, nil
}

// itemColumns is what scanItem reads: the revision r, the item i, its
// duplicate record d and the item's index attribute.
const itemColumns = `r.source_id, r.item_key, r.doc_id, r.title, r.link, r.description, r.plain_text,
	r.image, r.extensions, r.media, r.id_from_content, i.first_seen, coalesce(i.last_seen, s.last_version_at),
	d.primary_source, d.primary_item, coalesce(d.rule, ''), coalesce(d.score, 0), d.matched_source, d.matched_item`

// itemJoins joins a revision r to its source, item and duplicate record.
const itemJoins = `JOIN sources s ON s.id = r.source_id
	JOIN items i ON i.source_id = r.source_id AND i.item_id = r.item_key
	LEFT JOIN duplicates d ON d.source_id = r.source_id AND d.item_id = r.item_key`

type query struct {
	sql  string
	args []any
}

// versionQuery selects the items of one version (its packed revisions and
// index attributes) that match conds, in page order.
func versionQuery(sourceID string, packed []byte, indexes []int32, conds []dynamo.Condition, limit int) (query, error) {
	revs, err := archive.UnpackRevs(packed)
	if err != nil {
		return query{}, err
	}
	where, args, err := conditionSQL(conds, []any{sourceID, limitArg(limit), revs, indexes})
	if err != nil {
		return query{}, err
	}
	return query{`SELECT ` + itemColumns + `, coalesce(($4::int[])[u.pos], u.pos)
		FROM unnest($3::int8[]) WITH ORDINALITY AS u(rev, pos)
		JOIN item_revisions r ON r.rev_id = u.rev ` + itemJoins + `
		WHERE r.source_id = $1 AND ` + where + `
		ORDER BY u.pos LIMIT $2`, args}, nil
}

// limitArg turns "0 means no limit" into SQL's LIMIT NULL.
func limitArg(limit int) any {
	if limit <= 0 {
		return nil
	}
	return limit
}

func (s *Store) queryItems(ctx context.Context, q query) ([]dynamo.ArchivedItem, error) {
	rows, err := s.pool.Query(ctx, q.sql, q.args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (dynamo.ArchivedItem, error) { return scanItem(row) })
}

func scanItem(row pgx.Row) (dynamo.ArchivedItem, error) {
	var (
		a                  dynamo.ArchivedItem
		key                string
		docID, psrc, pitem *string
		msrc, mitem        *string
		image, extensions  []byte
		mediaJSON          []byte
		index              int64
	)
	it := &a.Item
	err := row.Scan(&a.SourceID, &key, &docID, &it.Title, &it.Link, &it.Description, &it.Text,
		&image, &extensions, &mediaJSON, &it.IDFromContent, &a.FirstSeen, &a.LastSeen,
		&psrc, &pitem, &a.DuplicateRule, &a.DuplicateScore, &msrc, &mitem, &index)
	if err != nil {
		return a, err
	}
	it.ID, it.Index = key, int(index)
	if docID != nil {
		it.ID = *docID
	}
	if image != nil {
		if err := json.Unmarshal(image, &it.Image); err != nil {
			return a, fmt.Errorf("item %s image: %w", key, err)
		}
	}
	if extensions != nil {
		if err := json.Unmarshal(extensions, &it.Extensions); err != nil {
			return a, fmt.Errorf("item %s extensions: %w", key, err)
		}
	}
	if err := archive.ReadMedia(mediaJSON, it); err != nil {
		return a, err
	}
	if psrc != nil && pitem != nil {
		a.DuplicateOf = &dynamo.ItemKey{SourceID: *psrc, ItemID: *pitem}
	}
	if msrc != nil && mitem != nil {
		a.DuplicateMatched = &dynamo.ItemKey{SourceID: *msrc, ItemID: *mitem}
	}
	a.FirstSeen, a.LastSeen = a.FirstSeen.UTC(), a.LastSeen.UTC()
	return a, nil
}

// Items answers archive and version queries: conditions run in the
// database against the trigram-indexed folded fields. In the archive (no
// Version) each item comes with its latest content and the index attribute
// it had in the version that first held it, the position by which the
// archive orders items first seen together.
func (s *Store) Items(ctx context.Context, q dynamo.ItemQuery) ([]dynamo.ArchivedItem, error) {
	last, err := s.lastSeq(ctx, q.SourceID)
	if err != nil {
		return nil, err
	}
	var sq query
	if q.Version == 0 {
		sq, err = archiveQuery(q)
	} else {
		sq, err = s.versionItemsQuery(ctx, q, last)
	}
	if err != nil {
		return nil, fmt.Errorf("items of %s: %w", q.SourceID, err)
	}
	items, err := s.queryItems(ctx, sq)
	if err != nil {
		return nil, fmt.Errorf("items of %s: %w", q.SourceID, err)
	}
	return items, nil
}

// versionItemsQuery compiles a query on version q.Version of a collection
// of last versions.
func (s *Store) versionItemsQuery(ctx context.Context, q dynamo.ItemQuery, last int) (query, error) {
	seq, err := seqOf(q.SourceID, q.Version, last)
	if err != nil {
		return query{}, err
	}
	var revs []byte
	var indexes []int32
	err = s.pool.QueryRow(ctx, "SELECT revs, indexes FROM versions WHERE source_id = $1 AND seq = $2",
		q.SourceID, seq).Scan(&revs, &indexes)
	if errors.Is(err, pgx.ErrNoRows) {
		return query{}, fmt.Errorf("version %d: %w", q.Version, dynamo.ErrNotFound)
	}
	if err != nil {
		return query{}, fmt.Errorf("version %d: %w", q.Version, err)
	}
	return versionQuery(q.SourceID, revs, indexes, q.Conditions, q.Max)
}

// archiveQuery compiles a query on the whole archive of a collection.
func archiveQuery(q dynamo.ItemQuery) (query, error) {
	where, args, err := conditionSQL(q.Conditions, []any{q.SourceID, limitArg(q.Max)})
	if err != nil {
		return query{}, err
	}
	where, args = seenBetween(where, args, q.Since, q.Until)
	// The joins come after the limit, so that they cost per item answered
	// rather than per item matched.
	return query{`SELECT ` + itemColumns + `, r.first_index FROM (
			SELECT * FROM item_revisions r WHERE r.source_id = $1 AND r.latest
				AND r.rev_id <= (SELECT published_rev FROM sources WHERE id = $1) AND ` + where + `
			ORDER BY ` + archiveOrder(q.Conditions, false) + ` LIMIT $2) AS r ` + itemJoins + `
		ORDER BY r.first_seen DESC, r.first_pos`, args}, nil
}

// Aggregate answers queries across collections (docs/API.md, aggregate items): newest first by
// first seen, each story once (duplicates left out, their sources named in
// AlsoIn) unless IncludeDuplicates.
func (s *Store) Aggregate(ctx context.Context, q dynamo.AggregateQuery) ([]dynamo.AggregatedItem, error) {
	where, args, err := conditionSQL(q.Conditions, []any{q.Category, limitArg(q.Max)})
	if err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	where, args = seenBetween(where, args, q.Since, q.Until)
	if !q.IncludeDuplicates {
		where += " AND NOT EXISTS (SELECT 1 FROM duplicates d WHERE d.source_id = r.source_id AND d.item_id = r.item_key)"
	}
	items, err := s.queryItems(ctx, query{`SELECT ` + itemColumns + `, r.first_index FROM (
			SELECT * FROM item_revisions r
			WHERE r.latest AND ($1 = '' OR r.source_id IN (SELECT id FROM sources WHERE category = $1))
				AND r.rev_id <= (SELECT published_rev FROM sources p WHERE p.id = r.source_id) AND ` + where + `
			ORDER BY ` + archiveOrder(q.Conditions, true) + ` LIMIT $2) AS r ` + itemJoins + `
		ORDER BY r.first_seen DESC, r.source_id, r.first_pos`, args})
	if err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	out := make([]dynamo.AggregatedItem, len(items))
	for i, it := range items {
		out[i].ArchivedItem = it
	}
	if err := s.alsoIn(ctx, out); err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	return out, nil
}

// alsoIn names, for each item, the duplicates recorded of it.
func (s *Store) alsoIn(ctx context.Context, items []dynamo.AggregatedItem) error {
	if len(items) == 0 {
		return nil
	}
	byKey := map[dynamo.ItemKey]*dynamo.AggregatedItem{}
	var srcs, ids []string
	for i := range items {
		k := dynamo.ItemKey{SourceID: items[i].SourceID, ItemID: items[i].Item.ID}
		byKey[k] = &items[i]
		srcs, ids = append(srcs, k.SourceID), append(ids, k.ItemID)
	}
	rows, err := s.pool.Query(ctx, `SELECT d.primary_source, d.primary_item, d.source_id, d.item_id
		FROM duplicates d JOIN unnest($1::text[], $2::text[]) AS p(s, i) ON d.primary_source = p.s AND d.primary_item = p.i
		ORDER BY d.source_id, d.item_id`, srcs, ids)
	if err != nil {
		return fmt.Errorf("duplicates: %w", err)
	}
	var p, dup dynamo.ItemKey
	_, err = pgx.ForEachRow(rows, []any{&p.SourceID, &p.ItemID, &dup.SourceID, &dup.ItemID}, func() error {
		if it := byKey[p]; it != nil {
			it.AlsoIn = append(it.AlsoIn, dup)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("duplicates: %w", err)
	}
	return nil
}

// storyItemColumns is what scanStoryItem reads: an item i, its latest
// revision r, its source s and its duplicate record d. storyItemJoins
// leaves out the items of a version not yet published (first_seq beyond
// the source's last_seq, docs/STORAGE.md "Large versions").
const storyItemColumns = `i.source_id, i.item_id, i.first_seen, r.title, r.description, s.title_prefix,
	d.primary_source, d.primary_item, coalesce(i.story_seq, 0)`

const storyItemJoins = `JOIN item_revisions r ON r.rev_id = i.latest_rev
	JOIN sources s ON s.id = i.source_id AND i.first_seq <= s.last_seq
	LEFT JOIN duplicates d ON d.source_id = i.source_id AND d.item_id = i.item_id`

func scanStoryItem(row pgx.Row) (dynamo.StoryItem, error) {
	var it dynamo.StoryItem
	var psrc, pitem *string
	err := row.Scan(&it.Key.SourceID, &it.Key.ItemID, &it.FirstSeen, &it.Title, &it.Description, &it.TitlePrefix,
		&psrc, &pitem, &it.Seq)
	if psrc != nil && pitem != nil {
		it.DuplicateOf = &dynamo.ItemKey{SourceID: *psrc, ItemID: *pitem}
	}
	it.FirstSeen = it.FirstSeen.UTC()
	return it, err
}

// StoryItems calls fn for every item first seen at or after since, oldest
// first: items numbered by RecordPoll in their numbers' order (the order
// their polls decided them), after those never numbered.
func (s *Store) StoryItems(ctx context.Context, since time.Time, fn func(dynamo.StoryItem) error) error {
	rows, err := s.pool.Query(ctx, `SELECT `+storyItemColumns+` FROM items i `+storyItemJoins+`
		WHERE i.first_seen >= $1
		ORDER BY i.story_seq IS NOT NULL, i.story_seq, i.first_seen, i.source_id, i.first_pos`, since)
	if err != nil {
		return fmt.Errorf("story items: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		it, err := scanStoryItem(rows)
		if err != nil {
			return fmt.Errorf("story items: %w", err)
		}
		if err := fn(it); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("story items: %w", err)
	}
	return nil
}

// Stats counts the store from the sources' summaries.
func (s *Store) Stats(ctx context.Context) (dynamo.Stats, error) { return archive.Stats(ctx, s) }

// seenBetween adds to a WHERE clause on item_revisions r the bounds of when
// the items were first seen: at or after since, before until; a zero time
// is no bound. The placeholders number after args.
func seenBetween(where string, args []any, since, until time.Time) (string, []any) {
	if !since.IsZero() {
		args = append(args, stamp(since))
		where += " AND r.first_seen >= $" + strconv.Itoa(len(args))
	}
	if !until.IsZero() {
		args = append(args, stamp(until))
		where += " AND r.first_seen < $" + strconv.Itoa(len(args))
	}
	return where, args
}
