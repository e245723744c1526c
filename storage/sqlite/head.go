package sqlite

import (
	"context"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// Head returns version index (1 = the newest) without its items, in one
// statement: the source's last sequence number picks the version row, so
// neither the version's list of revisions nor its items are read.
func (s *Store) Head(ctx context.Context, sourceID string, index int) (*dynamo.Resource, *dynamo.Version, error) {
	v := &dynamo.Version{SourceID: sourceID, Index: index}
	doc, err := archive.ScanHead(s.r.QueryRowContext(ctx, `SELECT `+headColumns+`, v.seq
		FROM sources s JOIN versions v ON v.source_id = s.id AND v.seq = s.last_seq - ?2 + 1
		JOIN channels c ON c.channel_id = v.channel_id
		WHERE s.id = ?1 AND ?2 >= 1`, sourceID, index), v, &v.Seq)
	if err != nil {
		return nil, nil, fmt.Errorf("head of version %d of %s: %w", index, sourceID, notFound(err))
	}
	return doc, v, nil
}
