package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// ArchiveAnswer reads what an answer from a collection's archive takes, in
// one round trip where reading it as Source, Head (of the newest version)
// and EachItem took three: the three statements go out together in one
// pipeline, and their results are read in turn. start gets the source and
// the newest version's head (nil when the collection has none) before fn
// gets the first item of q, an archive query (no Version) of that source.
// An unknown source is dynamo.ErrNotFound, start not called. Each of the
// three reads is the same statement its own method sends; the three run in
// one implicit transaction, each with its own snapshot as usual.
func (s *Store) ArchiveAnswer(ctx context.Context, q dynamo.ItemQuery, start func(*dynamo.Source, *dynamo.Resource) error, fn func(*dynamo.ArchivedItem) error) error {
	if q.Version != 0 {
		return fmt.Errorf("items of %s: an archive answer reads no version (%d): %w", q.SourceID, q.Version, dynamo.ErrInvalid)
	}
	sq, err := archiveQuery(q)
	if err != nil {
		return fmt.Errorf("items of %s: %w", q.SourceID, err)
	}
	batch := &pgx.Batch{}
	batch.Queue("SELECT "+sourceColumns+" FROM sources s WHERE s.id = $1", q.SourceID)
	batch.Queue(headSQL, q.SourceID, 1)
	batch.Queue(sq.sql, sq.args...)
	results := s.pool.SendBatch(ctx, batch)
	err = readArchiveAnswer(results, q, start, fn)
	if cerr := results.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("items of %s: %w", q.SourceID, cerr)
	}
	return err
}

// readArchiveAnswer reads ArchiveAnswer's three results.
func readArchiveAnswer(results pgx.BatchResults, q dynamo.ItemQuery, start func(*dynamo.Source, *dynamo.Resource) error, fn func(*dynamo.ArchivedItem) error) error {
	src, err := archive.ScanSource(results.QueryRow())
	if err != nil {
		return fmt.Errorf("source %s: %w", q.SourceID, notFound(err))
	}
	v := &dynamo.Version{SourceID: q.SourceID, Index: 1}
	head, err := archive.ScanHead(results.QueryRow(), v, &v.Seq)
	if errors.Is(err, pgx.ErrNoRows) {
		head = nil // no version yet
	} else if err != nil {
		return fmt.Errorf("head of version 1 of %s: %w", q.SourceID, err)
	}
	if err := start(&src, head); err != nil {
		return err
	}
	rows, err := results.Query()
	if err == nil {
		defer rows.Close()
		err = archive.Each(rows, archive.ItemShapeOf(q).Scan, func(it dynamo.ArchivedItem) error { return fn(&it) })
	}
	if err != nil {
		return fmt.Errorf("items of %s: %w", q.SourceID, err)
	}
	return nil
}
