package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
)

// Head returns version index (1 = the newest) without its items, in one
// statement: the source's last sequence number picks the version row, so
// neither the version's list of revisions nor its items are read.
func (s *Store) Head(ctx context.Context, sourceID string, index int) (*dynamo.Resource, *dynamo.Version, error) {
	v := &dynamo.Version{SourceID: sourceID, Index: index}
	var url, rssID, channel string
	var stamp, seen int64
	var hash []byte
	err := s.r.QueryRowContext(ctx, `SELECT v.seq, v.url, v.rss_id, v.stamp, c.body, v.seen_at, v.hash, v.title,
			v.item_count, v.added, v.removed
		FROM sources s JOIN versions v ON v.source_id = s.id AND v.seq = s.last_seq - ?2 + 1
		JOIN channels c ON c.channel_id = v.channel_id
		WHERE s.id = ?1 AND ?2 >= 1`, sourceID, index).Scan(
		&v.Seq, &url, &rssID, &stamp, &channel, &seen, &hash, &v.Title, &v.Items, &v.Added, &v.Removed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("head of version %d of %s: %w", index, sourceID, dynamo.ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("head of version %d of %s: %w", index, sourceID, err)
	}
	doc := &dynamo.Resource{URL: url, RSSID: rssID, Timestamp: goTime(stamp)}
	if err := json.Unmarshal([]byte(channel), &doc.Channel); err != nil {
		return nil, nil, fmt.Errorf("head of version %d of %s: channel: %w", index, sourceID, err)
	}
	v.SeenAt, v.Hash = goTime(seen), hex.EncodeToString(hash)
	return doc, v, nil
}
