package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// lastSeq returns the number of versions of a collection, or ErrNotFound.
func (s *Store) lastSeq(ctx context.Context, q querier, sourceID string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT last_seq FROM sources WHERE id = ?", sourceID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("collection %s: %w", sourceID, notFound(err))
	}
	return n, nil
}

// querier is what reads need of a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readTx runs fn in a read transaction, so that it sees one snapshot of the
// file even when a writer commits meanwhile.
func (s *Store) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// Versions lists a collection's versions, newest first.
func (s *Store) Versions(ctx context.Context, sourceID string) ([]dynamo.Version, error) {
	var list []dynamo.Version
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		last, err := s.lastSeq(ctx, tx, sourceID)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, versionsSQL, sourceID)
		list, err = collect(rows, err, func(row archive.Scanner) (dynamo.Version, error) { return archive.ScanVersion(row, sourceID, last) })
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("versions of %s: %w", sourceID, err)
	}
	return list, nil
}

// versionsSQL lists a source's versions, newest first: archive.VersionColumns,
// the title from the version's channels row where it has one (migration
// 0017).
const versionsSQL = `SELECT v.seq, v.seen_at, v.hash, coalesce(c.title, v.title), v.item_count, v.added, v.removed
	FROM versions v JOIN channels c ON c.channel_id = v.channel_id WHERE v.source_id = ? ORDER BY v.seq DESC`

// storedVersion is a version row with its packed item list.
type storedVersion struct {
	dynamo.Version
	doc     *dynamo.Resource // without its items
	revs    []int64
	indexes []int // nil: 1..n
}

// version reads version index (1 = newest) of a collection.
func (s *Store) version(ctx context.Context, tx *sql.Tx, sourceID string, index int) (*storedVersion, error) {
	last, err := s.lastSeq(ctx, tx, sourceID)
	if err != nil {
		return nil, err
	}
	seq, err := archive.SeqOf(sourceID, index, last)
	if err != nil {
		return nil, err
	}
	v := &storedVersion{Version: dynamo.Version{SourceID: sourceID, Seq: seq, Index: index}}
	var revs, indexes []byte
	v.doc, err = archive.ScanHead(tx.QueryRowContext(ctx, `SELECT `+headColumns+`, v.revs, v.indexes
		FROM versions v JOIN channels c ON c.channel_id = v.channel_id
		WHERE v.source_id = ? AND v.seq = ?`, sourceID, seq), &v.Version, &revs, &indexes)
	if err != nil {
		return nil, fmt.Errorf("version %d of %s: %w", index, sourceID, notFound(err))
	}
	if v.revs, err = archive.UnpackRevs(revs); err != nil {
		return nil, fmt.Errorf("version %d of %s: %w", index, sourceID, err)
	}
	if v.indexes, err = unpackIndexes(indexes); err != nil {
		return nil, fmt.Errorf("version %d of %s: %w", index, sourceID, err)
	}
	return v, nil
}

// Document rebuilds version index (1 = the newest) from its revisions.
func (s *Store) Document(ctx context.Context, sourceID string, index int) (*dynamo.Resource, *dynamo.Version, error) {
	var doc *dynamo.Resource
	var ver *dynamo.Version
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		v, err := s.version(ctx, tx, sourceID, index)
		if err != nil {
			return err
		}
		doc = v.doc
		err = eachVersionItem(ctx, tx, v, dynamo.ItemQuery{}, func(it *dynamo.ArchivedItem) error {
			doc.Items = append(doc.Items, it.Item)
			return nil
		})
		if err != nil {
			return fmt.Errorf("version %d of %s: %w", index, sourceID, err)
		}
		ver = &v.Version
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("document: %w", err)
	}
	return doc, ver, nil
}

// limitArg turns "0 means no limit" into SQLite's LIMIT -1.
func limitArg(limit int) int {
	if limit <= 0 {
		return -1
	}
	return limit
}

// eachVersionItem hands fn the items of a version that match conds, in
// page order, with their index attributes. The CROSS JOIN makes SQLite walk
// the version's list and look each revision up by its id (left to itself,
// the planner may scan every revision of the source for each list entry),
// and the joins come after the limit, so that they cost per item answered.
func eachVersionItem(ctx context.Context, tx *sql.Tx, v *storedVersion, q dynamo.ItemQuery, fn func(*dynamo.ArchivedItem) error) error {
	where, cargs, err := conditionSQL(q.Conditions)
	if err != nil {
		return err
	}
	args := append([]any{jsonArg(v.revs), v.SourceID}, cargs...)
	args = append(args, limitArg(q.Max))
	shape := itemShapeOf(q)
	rows, err := tx.QueryContext(ctx, `SELECT `+shape.Columns+`, r.pos FROM (
			SELECT p.key AS pos, r.* FROM json_each(?) AS p CROSS JOIN item_revisions r ON r.rev_id = p.value
			WHERE r.source_id = ? AND `+where+`
			ORDER BY p.key LIMIT ?) AS r `+shape.Joins+`
		ORDER BY r.pos`, args...)
	return eachItem(rows, err, shape, func(it *dynamo.ArchivedItem) error {
		pos := it.Item.Index // the position, until replaced by the index attribute
		if v.indexes != nil && pos < len(v.indexes) {
			it.Item.Index = v.indexes[pos]
		} else {
			it.Item.Index = pos + 1
		}
		return fn(it)
	})
}

// Items answers archive and version queries (EachItem), collected.
func (s *Store) Items(ctx context.Context, q dynamo.ItemQuery) ([]dynamo.ArchivedItem, error) {
	return archive.CollectItems(q.Max, func(fn func(*dynamo.ArchivedItem) error) error { return s.EachItem(ctx, q, fn) })
}

// EachItem answers archive and version queries, with the conditions
// evaluated in the database, handing each item to fn as its row is read.
// In the archive (no Version) each item comes with its latest content and
// the index attribute it had in the version that first held it. The read
// (a transaction, or the archive's one statement) stays open while fn runs
// (a streamed answer's client reads): the WAL cannot be checkpointed past
// it meanwhile, which the server's write timeout bounds.
func (s *Store) EachItem(ctx context.Context, q dynamo.ItemQuery, fn func(*dynamo.ArchivedItem) error) error {
	var err error
	if q.Version != 0 {
		err = s.readTx(ctx, func(tx *sql.Tx) error {
			v, err := s.version(ctx, tx, q.SourceID, q.Version)
			if err != nil {
				return err
			}
			return eachVersionItem(ctx, tx, v, q, fn)
		})
	} else {
		// One statement, its own snapshot, without a transaction's BEGIN
		// and ROLLBACK; only an answer without items asks whether the
		// collection exists.
		found := false
		err = eachArchiveItem(ctx, s.r, q, func(it *dynamo.ArchivedItem) error {
			found = true
			return fn(it)
		})
		if err == nil && !found {
			_, err = s.lastSeq(ctx, s.r, q.SourceID)
		}
	}
	if err != nil {
		return fmt.Errorf("items of %s: %w", q.SourceID, err)
	}
	return nil
}

// eachArchiveItem queries the whole archive of a collection: the latest
// revision of each item, newest first by first seen and then page order,
// each handed to fn as it is read.
func eachArchiveItem(ctx context.Context, db querier, q dynamo.ItemQuery, fn func(*dynamo.ArchivedItem) error) error {
	where, cargs, err := conditionSQL(q.Conditions)
	if err != nil {
		return err
	}
	where, cargs = archive.SeenBetween(where, cargs, q.Since, q.Until, dbTimeArg, anonParam)
	args := append([]any{q.SourceID}, cargs...)
	args = append(args, limitArg(q.Max))
	shape := itemShapeOf(q)
	rows, err := db.QueryContext(ctx, archiveItemsSQL(shape, where), args...)
	return eachItem(rows, err, shape, fn)
}

// archiveItemsSQL is eachArchiveItem's query of the columns of shape, with
// where the conditions on r; its arguments are the source id, the
// conditions' and the limit. Only revisions up to the source's
// published_rev are read. One join, not the limit in a subquery joined
// afterwards: SQLite then walks item_revisions_archive in the answer's
// order, joining each row as it goes, and stops at the limit, where the
// subquery's rows were copied out, joined and sorted again
// (TestArchiveQueryUsesIndex).
func archiveItemsSQL(shape archive.ItemShape, where string) string {
	return `SELECT ` + shape.Columns + `, r.first_index FROM item_revisions r ` + shape.Joins + `
		WHERE r.source_id = ?1 AND r.latest
			AND r.rev_id <= (SELECT published_rev FROM sources WHERE id = ?1) AND ` + where + `
		ORDER BY r.first_seen DESC, r.first_pos, r.rev_id LIMIT ?`
}

// Aggregate answers queries across collections (docs/API.md, aggregate items): newest first by
// first seen, each story once (duplicates left out, their sources named in
// AlsoIn) unless IncludeDuplicates.
func (s *Store) Aggregate(ctx context.Context, q dynamo.AggregateQuery) ([]dynamo.AggregatedItem, error) {
	where, cargs, err := conditionSQL(q.Conditions)
	if err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	where, cargs = archive.SeenBetween(where, cargs, q.Since, q.Until, dbTimeArg, anonParam)
	if !q.IncludeDuplicates {
		where += " AND NOT EXISTS (SELECT 1 FROM duplicates d WHERE d.source_id = r.source_id AND d.item_id = r.item_key)"
	}
	args := append([]any{q.Category, q.Category}, cargs...)
	args = append(args, limitArg(q.Max))
	var out []dynamo.AggregatedItem
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+archive.ItemColumns+`, r.first_index FROM (
				SELECT * FROM item_revisions r
				WHERE r.latest AND (? = '' OR r.source_id IN (SELECT id FROM sources WHERE category = ?))
					AND r.rev_id <= (SELECT published_rev FROM sources p WHERE p.id = r.source_id) AND `+where+`
				ORDER BY r.first_seen DESC, r.source_id, r.first_pos, r.rev_id LIMIT ?) AS r `+itemJoins+`
			ORDER BY r.first_seen DESC, r.source_id, r.first_pos, r.rev_id`, args...)
		items, err := collect(rows, err, archive.ScanItem)
		if err != nil {
			return err
		}
		out = archive.Aggregated(items)
		return alsoIn(ctx, tx, out, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	return out, nil
}

// alsoIn names, for each item, the duplicates recorded of it: those with
// an aggregate number up to upTo, or all for 0 (an archive page names only
// the copies published by its end: dynamo.AggregatePage).
func alsoIn(ctx context.Context, tx *sql.Tx, items []dynamo.AggregatedItem, upTo int64) error {
	if len(items) == 0 {
		return nil
	}
	var keys [][2]string
	for _, k := range archive.ItemKeys(items) {
		keys = append(keys, [2]string{k.SourceID, k.ItemID})
	}
	rows, err := tx.QueryContext(ctx, `SELECT d.primary_source, d.primary_item, d.source_id, d.item_id
		FROM json_each(?) AS p
		CROSS JOIN duplicates d ON d.primary_source = p.value ->> 0 AND d.primary_item = p.value ->> 1
		WHERE ?2 = 0 OR EXISTS (SELECT 1 FROM item_revisions c WHERE c.source_id = d.source_id
			AND `+keyFunc+`(c.item_key) = `+keyFunc+`(d.item_id) AND c.item_key = d.item_id AND c.agg_seq <= ?2)
		ORDER BY d.source_id, d.item_id`, jsonArg(keys), upTo)
	if err != nil {
		return fmt.Errorf("duplicates: %w", err)
	}
	defer rows.Close()
	return archive.AlsoIn(items, rows)
}

// storyItemsSince is StoryItems' query. It finds the items first seen since
// ?1 through their shown revisions (r.latest) in item_revisions_recent or
// item_revisions_archive, which hold the item's first_seen too, and each
// item by its key: items has no index of its own by first_seen (migration
// 0014).
var storyItemsSince = `SELECT ` + storyItemColumns + ` FROM items i ` + archive.StoryItemJoins + `
	WHERE r.latest AND r.first_seen >= ?1 AND i.source_id = r.source_id AND i.key = r.key
	ORDER BY i.story_seq IS NOT NULL, i.story_seq, r.first_seen, i.source_id, r.first_pos`

// storyItemColumns reads the item's first_seen from its shown revision r:
// items keeps no copy of it (migration 0020), every revision of an item
// holds it.
var storyItemColumns = archive.StoryItemColumnsWith("r.first_seen")

// itemJoins finds the item by its stored key, which the revision r holds
// as items does (migration 0020; items.item_id is a virtual column, not
// indexed).
var itemJoins = archive.ItemJoinsOn("i.key = r.key")

// itemShapeOf is archive.ItemShapeOf with itemJoins, each description
// rebuilt from its stored operations as the row is read (storedMarkup).
func itemShapeOf(q dynamo.ItemQuery) archive.ItemShape {
	shape := archive.ItemShapeWith(q, storedMarkup)
	if shape.Joins != "" {
		shape.Joins = itemJoins
	}
	return shape
}

// StoryItems calls fn for every item first seen at or after since, oldest
// first: items numbered by RecordPoll in their numbers' order (the order
// their polls decided them), after those never numbered. It streams the
// rows on one reader connection, so fn may use the store (other readers,
// or the writer, which WAL lets commit while this read is open).
func (s *Store) StoryItems(ctx context.Context, since time.Time, fn func(dynamo.StoryItem) error) error {
	rows, err := s.r.QueryContext(ctx, storyItemsSince, dbTime(since))
	if err != nil {
		return fmt.Errorf("story items: %w", err)
	}
	defer rows.Close()
	if err := archive.Each(rows, archive.ScanStoryItem, fn); err != nil {
		return fmt.Errorf("story items: %w", err)
	}
	return nil
}

// anonParam is SQLite's placeholder for an argument in the order given,
// for archive.SeenBetween.
func anonParam(int) string { return "?" }
