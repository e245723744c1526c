package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// PutSubscription stores a source's subscription to its hub.
func (s *Store) PutSubscription(ctx context.Context, sub *dynamo.Subscription) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO websub_subscriptions (`+archive.SubscriptionColumns+`)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
		ON CONFLICT (source_id) DO UPDATE SET source_url = ?2, hub = ?3, topic = ?4, state = ?5, token = ?6,
			secret = ?7, lease_seconds = ?8, lease_ends = ?9, requested_at = ?10, verified_at = ?11,
			last_push = ?12, pushes = ?13, attempts = ?14, last_error = ?15, next_action = ?16`,
		archive.SubscriptionArgs(sub, dbTimeArg)...)
	if err != nil {
		return fmt.Errorf("put subscription of %s: %w", sub.SourceID, err)
	}
	return nil
}

// Subscription returns a source's subscription to its hub.
func (s *Store) Subscription(ctx context.Context, sourceID string) (*dynamo.Subscription, error) {
	return s.oneSubscription(ctx, "source_id", sourceID)
}

// SubscriptionByToken returns the subscription whose callback carries token.
func (s *Store) SubscriptionByToken(ctx context.Context, token string) (*dynamo.Subscription, error) {
	return s.oneSubscription(ctx, "token", token)
}

func (s *Store) oneSubscription(ctx context.Context, column, value string) (*dynamo.Subscription, error) {
	sub, err := archive.ScanSubscription(s.r.QueryRowContext(ctx, "SELECT "+archive.SubscriptionColumns+" FROM websub_subscriptions WHERE "+column+" = ?", value))
	if err != nil {
		return nil, fmt.Errorf("subscription: %w", notFound(err))
	}
	return &sub, nil
}

// Subscriptions lists every subscription to a hub, by source id.
func (s *Store) Subscriptions(ctx context.Context) ([]dynamo.Subscription, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT "+archive.SubscriptionColumns+" FROM websub_subscriptions ORDER BY source_id")
	list, err := collect(rows, err, archive.ScanSubscription)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	return list, nil
}

// DeleteSubscription removes a source's subscription.
func (s *Store) DeleteSubscription(ctx context.Context, sourceID string) error {
	if _, err := s.w.ExecContext(ctx, "DELETE FROM websub_subscriptions WHERE source_id = ?", sourceID); err != nil {
		return fmt.Errorf("delete subscription of %s: %w", sourceID, err)
	}
	return nil
}

// ClaimSubscriptions hands out the subscriptions due for an action; the
// one writer makes each claim exclusive.
func (s *Store) ClaimSubscriptions(ctx context.Context, now, until time.Time, limit int) ([]dynamo.Subscription, error) {
	rows, err := s.w.QueryContext(ctx, `UPDATE websub_subscriptions SET next_action = ?2
		WHERE source_id IN (SELECT source_id FROM websub_subscriptions WHERE next_action <= ?1
			ORDER BY next_action LIMIT ?3)
		RETURNING `+archive.SubscriptionColumns, dbTime(now), dbTime(until), limit)
	list, err := collect(rows, err, archive.ScanSubscription)
	if err != nil {
		return nil, fmt.Errorf("claim subscriptions: %w", err)
	}
	return list, nil
}

// NotePush counts a push received for a source.
func (s *Store) NotePush(ctx context.Context, sourceID string, at time.Time) error {
	_, err := s.w.ExecContext(ctx, "UPDATE websub_subscriptions SET pushes = pushes + 1, last_push = ? WHERE source_id = ?",
		dbTime(at), sourceID)
	if err != nil {
		return fmt.Errorf("note push for %s: %w", sourceID, err)
	}
	return nil
}

// PutHubSubscription stores a verified subscription to a topic. A renewal
// keeps the counts and whatever delivery is owed.
func (s *Store) PutHubSubscription(ctx context.Context, sub *dynamo.HubSubscription) error {
	err := s.w.QueryRowContext(ctx, `INSERT INTO hub_subscriptions (topic, callback, secret, lease_seconds, expires,
			created_at, verified_at, delivered_etag)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
		ON CONFLICT (topic, callback) DO UPDATE SET secret = ?3, lease_seconds = ?4, expires = ?5, verified_at = ?7
		RETURNING id`,
		sub.Topic, sub.Callback, sub.Secret, sub.LeaseSeconds, dbTime(sub.Expires), dbTime(sub.CreatedAt),
		dbTime(sub.VerifiedAt), sub.DeliveredETag).Scan(&sub.ID)
	if err != nil {
		return fmt.Errorf("put hub subscription of %s for %s: %w", sub.Callback, sub.Topic, err)
	}
	return nil
}

// DeleteHubSubscription removes the subscription of topic and callback.
func (s *Store) DeleteHubSubscription(ctx context.Context, topic, callback string) error {
	if _, err := s.w.ExecContext(ctx, "DELETE FROM hub_subscriptions WHERE topic = ? AND callback = ?", topic, callback); err != nil {
		return fmt.Errorf("delete hub subscription of %s for %s: %w", callback, topic, err)
	}
	return nil
}

// HubSubscriptions lists the subscriptions to Dynamo's topics.
func (s *Store) HubSubscriptions(ctx context.Context) ([]dynamo.HubSubscription, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT "+archive.HubColumns+" FROM hub_subscriptions ORDER BY topic, callback")
	list, err := collect(rows, err, archive.ScanHubSubscription)
	if err != nil {
		return nil, fmt.Errorf("list hub subscriptions: %w", err)
	}
	return list, nil
}

// QueueDeliveries owes the subscriptions of topic the representation etag.
func (s *Store) QueueDeliveries(ctx context.Context, topic, etag string, now time.Time) (int, error) {
	res, err := s.w.ExecContext(ctx, `UPDATE hub_subscriptions SET pending_etag = ?2, attempts = 0, next_attempt = ?3
		WHERE topic = ?1 AND delivered_etag <> ?2 AND pending_etag <> ?2`, topic, etag, dbTime(now))
	if err != nil {
		return 0, fmt.Errorf("queue deliveries of %s: %w", topic, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// LeaseDeliveries hands out the due deliveries nobody holds.
func (s *Store) LeaseDeliveries(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration) ([]dynamo.HubSubscription, error) {
	rows, err := s.w.QueryContext(ctx, `UPDATE hub_subscriptions SET lease_owner = ?2, lease_expires = ?3
		WHERE id IN (SELECT id FROM hub_subscriptions
			WHERE pending_etag <> '' AND next_attempt <= ?1 AND (lease_owner = '' OR lease_expires <= ?1)
			ORDER BY next_attempt LIMIT ?4)
		RETURNING `+archive.HubColumns, dbTime(now), owner, dbTime(now.Add(ttl)), limit)
	list, err := collect(rows, err, archive.ScanHubSubscription)
	if err != nil {
		return nil, fmt.Errorf("lease deliveries: %w", err)
	}
	return list, nil
}

// finishChunk bounds the results one statement of FinishDeliveries
// records: eight parameters each, well under SQLite's limit of 32,766.
const finishChunk = 100

// FinishDeliveries records attempts and releases their leases in one
// transaction, one statement over the results as a table of values per
// hundred results.
func (s *Store) FinishDeliveries(ctx context.Context, results []dynamo.DeliveryResult) ([]int64, error) {
	if len(results) == 0 {
		return nil, nil
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("finish %d deliveries: begin: %w", len(results), err)
	}
	defer tx.Rollback()
	var recorded []int64
	for chunk := range slices.Chunk(results, finishChunk) {
		values := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?), ", len(chunk)), ", ")
		args := make([]any, 0, 8*len(chunk))
		for _, d := range chunk {
			args = append(args, d.ID, d.Owner, d.Outcome(), d.Pending, d.Delivered, d.Err, dbTime(d.At), dbTime(d.Retry))
		}
		// What each outcome does is archive.FinishDelivery.
		rows, err := tx.QueryContext(ctx, `WITH r(id, owner, outcome, pending, delivered, err, at, retry) AS (VALUES `+values+`)
			UPDATE hub_subscriptions AS h SET `+archive.FinishDelivery+`, lease_owner = '', lease_expires = ?
			FROM r WHERE h.id = r.id AND h.lease_owner = r.owner
			RETURNING id`, append(args, zeroTime)...)
		ids, err := collect(rows, err, archive.Value[int64])
		if err != nil {
			return nil, fmt.Errorf("finish %d deliveries: %w", len(results), err)
		}
		recorded = append(recorded, ids...)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("finish %d deliveries: commit: %w", len(results), err)
	}
	return dynamo.LeasesLost(results, recorded), nil
}

// ExpireHubSubscriptions removes the subscriptions whose lease ended.
func (s *Store) ExpireHubSubscriptions(ctx context.Context, now time.Time) (int, error) {
	res, err := s.w.ExecContext(ctx, "DELETE FROM hub_subscriptions WHERE expires <= ?", dbTime(now))
	if err != nil {
		return 0, fmt.Errorf("expire hub subscriptions: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
