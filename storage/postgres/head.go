package postgres

import (
	"context"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// Head returns version index (1 = the newest) without its items, in one
// round trip: the source's last sequence number picks the version row, so
// neither the version's list of revisions nor its items are read.
func (s *Store) Head(ctx context.Context, sourceID string, index int) (*dynamo.Resource, *dynamo.Version, error) {
	v := &dynamo.Version{SourceID: sourceID, Index: index}
	doc, err := archive.ScanHead(s.pool.QueryRow(ctx, headSQL, sourceID, index), v, &v.Seq)
	if err != nil {
		return nil, nil, fmt.Errorf("head of version %d of %s: %w", index, sourceID, notFound(err))
	}
	return doc, v, nil
}

// headSQL reads the head of version $2 (1 = the newest) of source $1, a
// row for archive.ScanHead and the version's sequence number.
var headSQL = `SELECT v.url, v.rss_id, v.stamp, ` + versionChannel("v") + `, v.seen_at, v.hash, v.title,
			v.item_count, v.added, v.removed, v.seq
		FROM sources s JOIN versions v ON v.source_id = s.id AND v.seq = s.last_seq - $2 + 1
		WHERE s.id = $1 AND $2 >= 1`

// versionChannel is the channel of the versions row alias, read from the
// channels that store each source's distinct channels once.
func versionChannel(alias string) string {
	return "(SELECT c.body FROM channels c WHERE c.channel_id = " + alias + ".channel_id)"
}
