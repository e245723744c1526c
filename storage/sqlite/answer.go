package sqlite

import (
	"context"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// ArchiveAnswer reads what an answer from a collection's archive takes, in
// two statements where reading it as Source, Head (of the newest version)
// and EachItem took three: the source's fields an answer reads and its
// newest version's head in one (archive.ScanAnswerSource: not the
// duplicates' count, poll outcomes and subscription a whole source row
// gathers from other tables), then the items of q, an archive query (no
// Version) of that source. start gets the source and head (nil when the
// collection has none) before fn gets the first item; an unknown source is
// dynamo.ErrNotFound, start not called. Each statement reads its own
// snapshot, as the three methods do.
func (s *Store) ArchiveAnswer(ctx context.Context, q dynamo.ItemQuery, start func(*dynamo.Source, *dynamo.Resource) error, fn func(*dynamo.ArchivedItem) error) error {
	if err := archive.CheckAnswerQuery(q); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("source %s: %w", q.SourceID, err)
	}
	// One row by its key: it cannot run long, and watching ctx while it
	// runs cost two goroutines (the driver's and database/sql's), started,
	// scheduled and stopped for every answer. The items' query, which a
	// condition can make long, is still cut short when ctx ends.
	src, head, err := archive.ScanAnswerSource(s.r.QueryRowContext(context.WithoutCancel(ctx), answerSourceSQL, q.SourceID))
	if err != nil {
		return fmt.Errorf("source %s: %w", q.SourceID, notFound(err))
	}
	if err := start(src, head); err != nil {
		return err
	}
	if err := eachArchiveItem(ctx, s.r, q, fn); err != nil {
		return fmt.Errorf("items of %s: %w", q.SourceID, err)
	}
	return nil
}

// answerSourceSQL is ArchiveAnswer's first statement: source ?1 and the
// head of its newest version, as Head reads it.
const answerSourceSQL = `SELECT ` + archive.AnswerSourceColumns + `,
		coalesce(c.url, v.url), v.seen_at + v.stamp_offset, c.body
	FROM sources s LEFT JOIN versions v ON v.source_id = s.id AND v.seq = s.last_seq
		LEFT JOIN channels c ON c.channel_id = v.channel_id
	WHERE s.id = ?1`
