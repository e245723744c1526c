package postgres

import (
	"context"
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
	if err != nil {
		return 0, fmt.Errorf("collection %s: %w", sourceID, notFound(err))
	}
	return n, nil
}

// Versions lists a collection's versions, newest first.
func (s *Store) Versions(ctx context.Context, sourceID string) ([]dynamo.Version, error) {
	last, err := s.lastSeq(ctx, sourceID)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+archive.VersionColumns+` FROM versions WHERE source_id = $1 ORDER BY seq DESC`, sourceID)
	list, err := collect(rows, err, func(row archive.Scanner) (dynamo.Version, error) { return archive.ScanVersion(row, sourceID, last) })
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
	seq, err := archive.SeqOf(sourceID, index, last)
	if err != nil {
		return nil, nil, err
	}
	v := &dynamo.Version{SourceID: sourceID, Seq: seq, Index: index}
	var revs []byte
	var indexes []int32
	doc, err := archive.ScanHead(s.pool.QueryRow(ctx, `SELECT url, rss_id, stamp, `+versionChannel("versions")+`, seen_at, hash, title, item_count,
			added, removed, revs, indexes
		FROM versions WHERE source_id = $1 AND seq = $2`, sourceID, seq), v, &revs, &indexes)
	if err != nil {
		return nil, nil, fmt.Errorf("version %d of %s: %w", index, sourceID, notFound(err))
	}
	shape := archive.ItemShapeOf(dynamo.ItemQuery{})
	q, err := versionQuery(shape, sourceID, revs, indexes, nil, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("version %d of %s: %w", index, sourceID, err)
	}
	err = s.eachItem(ctx, q, shape, func(it *dynamo.ArchivedItem) error {
		doc.Items = append(doc.Items, it.Item)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("version %d of %s: %w", index, sourceID, err)
	}
	return doc, v, nil
}

type query struct {
	sql  string
	args []any
}

// versionQuery selects the columns of shape of the items of one version
// (its packed revisions and index attributes) that match conds, in page
// order.
func versionQuery(shape archive.ItemShape, sourceID string, packed []byte, indexes []int32, conds []dynamo.Condition, limit int) (query, error) {
	revs, err := archive.UnpackRevs(packed)
	if err != nil {
		return query{}, err
	}
	where, args, err := conditionSQL(conds, []any{sourceID, limitArg(limit), revs, indexes})
	if err != nil {
		return query{}, err
	}
	return query{`SELECT ` + shape.Columns + `, coalesce(($4::int[])[u.pos], u.pos)
		FROM unnest($3::int8[]) WITH ORDINALITY AS u(rev, pos)
		JOIN item_revisions r ON r.rev_id = u.rev ` + shape.Joins + `
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

// eachItem runs an item query of shape's columns, handing fn each item as
// its row is read (archive.EachItem).
func (s *Store) eachItem(ctx context.Context, q query, shape archive.ItemShape, fn func(*dynamo.ArchivedItem) error) error {
	rows, err := s.pool.Query(ctx, q.sql, q.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return archive.EachItem(rows, shape, fn)
}

// Items answers archive and version queries (EachItem), collected.
func (s *Store) Items(ctx context.Context, q dynamo.ItemQuery) ([]dynamo.ArchivedItem, error) {
	return archive.CollectItems(q.Max, func(fn func(*dynamo.ArchivedItem) error) error { return s.EachItem(ctx, q, fn) })
}

// EachItem answers archive and version queries, conditions run in the
// database against the trigram-indexed folded fields, handing each item to
// fn as its row is read. In the archive (no Version) each item comes with
// its latest content and the index attribute it had in the version that
// first held it, the position by which the archive orders items first
// seen together. The pool's connection stays taken while fn runs (a
// streamed answer's client reads), which the server's write timeout
// bounds.
func (s *Store) EachItem(ctx context.Context, q dynamo.ItemQuery, fn func(*dynamo.ArchivedItem) error) error {
	var err error
	if q.Version == 0 {
		// One round trip: only an answer without items asks whether the
		// collection exists.
		found := false
		var sq query
		if sq, err = archiveQuery(q); err == nil {
			err = s.eachItem(ctx, sq, archive.ItemShapeOf(q), func(it *dynamo.ArchivedItem) error {
				found = true
				return fn(it)
			})
		}
		if err == nil && !found {
			_, err = s.lastSeq(ctx, q.SourceID)
		}
	} else {
		var last int
		var sq query
		if last, err = s.lastSeq(ctx, q.SourceID); err == nil {
			sq, err = s.versionItemsQuery(ctx, q, last)
		}
		if err == nil {
			err = s.eachItem(ctx, sq, archive.ItemShapeOf(q), fn)
		}
	}
	if err != nil {
		return fmt.Errorf("items of %s: %w", q.SourceID, err)
	}
	return nil
}

// versionItemsQuery compiles a query on version q.Version of a collection
// of last versions.
func (s *Store) versionItemsQuery(ctx context.Context, q dynamo.ItemQuery, last int) (query, error) {
	seq, err := archive.SeqOf(q.SourceID, q.Version, last)
	if err != nil {
		return query{}, err
	}
	var revs []byte
	var indexes []int32
	err = s.pool.QueryRow(ctx, "SELECT revs, indexes FROM versions WHERE source_id = $1 AND seq = $2",
		q.SourceID, seq).Scan(&revs, &indexes)
	if err != nil {
		return query{}, fmt.Errorf("version %d: %w", q.Version, notFound(err))
	}
	return versionQuery(archive.ItemShapeOf(q), q.SourceID, revs, indexes, q.Conditions, q.Max)
}

// archiveQuery compiles a query on the whole archive of a collection, of
// the columns its shape (archive.ItemShapeOf) reads.
//
// The published revisions are those up to the source's published_rev,
// compared as rev_id + 0 so that no index serves the comparison. Without
// it PostgreSQL, guessing that the comparison keeps a third of the rows,
// ANDed a bitmap of the primary key's entries up to published_rev (every
// revision) with the trigram index's: for some words, and in the generic
// plan of a prepared statement, which took 0.2-0.5 s on 1 M items.
//
// A windowed query (see windowed) asks the newest items first: those first
// seen since the item windowItems places before the newest (items.arch_seq
// numbers them in that order), which the BRIN index on first_seen and the
// trigram indexes select together, so that only the matches in the window
// are read rather than every match of the archive. Only if the window holds
// fewer matches than the limit are the older items asked as well. The
// answer is the same as without the window: every match in the window is
// newer than every match before it.
func archiveQuery(q dynamo.ItemQuery) (query, error) {
	shape := archive.ItemShapeOf(q)
	compile := conditionSQL
	if indexable(q.Conditions) {
		compile = genericConditionSQL
	}
	where, args, err := compile(q.Conditions, []any{q.SourceID, limitArg(q.Max)})
	if err != nil {
		return query{}, err
	}
	where, args = archive.SeenBetween(where, args, q.Since, q.Until, stampArg, archive.NumberedParam)
	matches := `SELECT * FROM item_revisions r WHERE r.source_id = $1 AND r.latest
				AND r.rev_id + 0 <= (SELECT published_rev FROM sources WHERE id = $1) AND ` + where
	order := archiveOrder(q.Conditions, false)
	if !windowed(q.Conditions, q.Max) {
		// The joins come after the limit, so that they cost per item
		// answered rather than per item matched.
		return query{`SELECT ` + shape.Columns + `, r.first_index FROM (
			` + matches + ` ORDER BY ` + order + ` LIMIT $2) AS r ` + shape.Joins + `
		ORDER BY r.first_seen DESC, r.first_pos`, args}, nil
	}
	args = append(args, q.Max*windowItems)
	since := `coalesce((SELECT first_seen FROM items WHERE source_id = $1
			AND arch_seq = (SELECT max(arch_seq) FROM items WHERE source_id = $1) - $` + strconv.Itoa(len(args)) + `), '-infinity')`
	return query{`WITH newest AS MATERIALIZED (
			` + matches + ` AND r.first_seen >= ` + since + `
			ORDER BY ` + order + ` LIMIT $2)
		SELECT ` + shape.Columns + `, r.first_index FROM (
			SELECT * FROM newest
			UNION ALL (` + matches + ` AND (SELECT count(*) FROM newest) < $2
				AND (r.first_seen + interval '0 s') < ` + since + `
				ORDER BY ` + order + ` LIMIT $2)
			ORDER BY first_seen DESC, first_pos LIMIT $2) AS r ` + shape.Joins + `
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
	where, args = archive.SeenBetween(where, args, q.Since, q.Until, stampArg, archive.NumberedParam)
	if !q.IncludeDuplicates {
		where += " AND NOT EXISTS (SELECT 1 FROM duplicates d WHERE d.source_id = r.source_id AND d.item_id = r.item_key)"
	}
	sq := query{`SELECT ` + archive.ItemColumns + `, r.first_index FROM (
			SELECT * FROM item_revisions r
			WHERE r.latest AND ($1 = '' OR r.source_id IN (SELECT id FROM sources WHERE category = $1))
				AND r.rev_id <= (SELECT published_rev FROM sources p WHERE p.id = r.source_id) AND ` + where + `
			ORDER BY ` + archiveOrder(q.Conditions, true) + ` LIMIT $2) AS r ` + archive.ItemJoins + `
		ORDER BY r.first_seen DESC, r.source_id, r.first_pos`, args}
	items, err := archive.CollectItems(q.Max, func(fn func(*dynamo.ArchivedItem) error) error {
		return s.eachItem(ctx, sq, archive.ItemShapeOf(dynamo.ItemQuery{}), fn)
	})
	if err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	out := archive.Aggregated(items)
	if err := alsoIn(ctx, s.pool, out, 0); err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	return out, nil
}

// querier runs a query: the pool, or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// alsoIn names, for each item, the duplicates recorded of it: those with
// an aggregate number up to upTo, or all for 0 (an archive page names only
// the copies published by its end: dynamo.AggregatePage).
func alsoIn(ctx context.Context, db querier, items []dynamo.AggregatedItem, upTo int64) error {
	if len(items) == 0 {
		return nil
	}
	var srcs, ids []string
	for _, k := range archive.ItemKeys(items) {
		srcs, ids = append(srcs, k.SourceID), append(ids, k.ItemID)
	}
	rows, err := db.Query(ctx, `SELECT d.primary_source, d.primary_item, d.source_id, d.item_id
		FROM duplicates d JOIN unnest($1::text[], $2::text[]) AS p(s, i) ON d.primary_source = p.s AND d.primary_item = p.i
		WHERE $3::bigint = 0 OR EXISTS (SELECT 1 FROM items c WHERE c.source_id = d.source_id AND c.item_id = d.item_id AND c.agg_seq <= $3::bigint)
		ORDER BY d.source_id, d.item_id`, srcs, ids, upTo)
	if err != nil {
		return fmt.Errorf("duplicates: %w", err)
	}
	defer rows.Close()
	return archive.AlsoIn(items, rows)
}

// StoryItems calls fn for every item first seen at or after since, oldest
// first: items numbered by RecordPoll in their numbers' order (the order
// their polls decided them), after those never numbered.
func (s *Store) StoryItems(ctx context.Context, since time.Time, fn func(dynamo.StoryItem) error) error {
	rows, err := s.pool.Query(ctx, `SELECT `+archive.StoryItemColumns+` FROM items i `+archive.StoryItemJoins+`
		WHERE i.first_seen >= $1
		ORDER BY i.story_seq IS NOT NULL, i.story_seq, i.first_seen, i.source_id, i.first_pos`, since)
	if err != nil {
		return fmt.Errorf("story items: %w", err)
	}
	defer rows.Close()
	if err := archive.Each(rows, archive.ScanStoryItem, fn); err != nil {
		return fmt.Errorf("story items: %w", err)
	}
	return nil
}
