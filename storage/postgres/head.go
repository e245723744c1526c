package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
	"github.com/jackc/pgx/v5"
)

// Head returns version index (1 = the newest) without its items, in one
// round trip: the source's last sequence number picks the version row, so
// neither the version's list of revisions nor its items are read.
func (s *Store) Head(ctx context.Context, sourceID string, index int) (*dynamo.Resource, *dynamo.Version, error) {
	doc := &dynamo.Resource{}
	v := &dynamo.Version{SourceID: sourceID, Index: index}
	var channel []byte
	err := s.pool.QueryRow(ctx, `SELECT v.seq, v.url, v.rss_id, v.stamp, v.channel, v.seen_at, v.hash, v.title,
			v.item_count, v.added, v.removed
		FROM sources s JOIN versions v ON v.source_id = s.id AND v.seq = s.last_seq - $2 + 1
		WHERE s.id = $1 AND $2 >= 1`, sourceID, index).Scan(
		&v.Seq, &doc.URL, &doc.RSSID, &doc.Timestamp, &channel, &v.SeenAt, &v.Hash, &v.Title, &v.Items, &v.Added, &v.Removed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, fmt.Errorf("head of version %d of %s: %w", index, sourceID, dynamo.ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("head of version %d of %s: %w", index, sourceID, err)
	}
	doc.Timestamp, v.SeenAt = doc.Timestamp.UTC(), v.SeenAt.UTC()
	if err := json.Unmarshal(channel, &doc.Channel); err != nil {
		return nil, nil, fmt.Errorf("head of version %d of %s: channel: %w", index, sourceID, err)
	}
	return doc, v, nil
}
