package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// ArchiveAnswer reads what an answer from a collection's archive takes, in
// one round trip where reading it as Source, Head (of the newest version)
// and EachItem took three: two statements go out together in one
// pipeline, and their results are read in turn. The first reads the
// source's fields an answer reads and its newest version's head
// (archive.ScanAnswerSource: not the duplicates' count, poll outcomes and
// subscription a whole source row gathers from other tables), the second
// the items of q, an archive query (no Version) of that source, as
// EachItem does. start gets the source and head (nil when the collection
// has none) before fn gets the first item; an unknown source is
// dynamo.ErrNotFound, start not called. The two run in one implicit
// transaction, each with its own snapshot as usual.
func (s *Store) ArchiveAnswer(ctx context.Context, q dynamo.ItemQuery, start func(*dynamo.Source, *dynamo.Resource) error, fn func(*dynamo.ArchivedItem) error) error {
	if err := archive.CheckAnswerQuery(q); err != nil {
		return err
	}
	sq, err := archiveQuery(q)
	if err != nil {
		return fmt.Errorf("items of %s: %w", q.SourceID, err)
	}
	batch := &pgx.Batch{}
	batch.Queue(answerSourceSQL, q.SourceID)
	batch.Queue(sq.sql, sq.args...)
	results := s.pool.SendBatch(ctx, batch)
	err = readArchiveAnswer(results, q, start, fn)
	if cerr := results.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("items of %s: %w", q.SourceID, cerr)
	}
	return err
}

// answerSourceSQL is ArchiveAnswer's first statement: source $1 and the
// head of its newest version, as headSQL reads it.
var answerSourceSQL = `SELECT ` + archive.AnswerSourceColumns + `, v.url, v.stamp, ` + versionChannel("v") + `
	FROM sources s LEFT JOIN versions v ON v.source_id = s.id AND v.seq = s.last_seq
	WHERE s.id = $1`

// readArchiveAnswer reads ArchiveAnswer's two results.
func readArchiveAnswer(results pgx.BatchResults, q dynamo.ItemQuery, start func(*dynamo.Source, *dynamo.Resource) error, fn func(*dynamo.ArchivedItem) error) error {
	src, head, err := archive.ScanAnswerSource(results.QueryRow())
	if err != nil {
		return fmt.Errorf("source %s: %w", q.SourceID, notFound(err))
	}
	if err := start(src, head); err != nil {
		return err
	}
	rows, err := results.Query()
	if err == nil {
		defer rows.Close()
		err = archive.EachItem(rows, archive.ItemShapeOf(q), fn)
	}
	if err != nil {
		return fmt.Errorf("items of %s: %w", q.SourceID, err)
	}
	return nil
}
