package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// collectSubscriptions reads the rows of archive.SubscriptionColumns.
func collectSubscriptions(rows pgx.Rows) ([]dynamo.Subscription, error) {
	defer rows.Close()
	return archive.Collect(rows, archive.ScanSubscription)
}

// PutSubscription stores a source's subscription to its hub.
func (s *Store) PutSubscription(ctx context.Context, sub *dynamo.Subscription) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO websub_subscriptions (`+archive.SubscriptionColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
		ON CONFLICT (source_id) DO UPDATE SET source_url = $2, hub = $3, topic = $4, state = $5, token = $6,
			secret = $7, lease_seconds = $8, lease_ends = $9, requested_at = $10, verified_at = $11,
			last_push = $12, pushes = $13, attempts = $14, last_error = $15, next_action = $16`,
		archive.SubscriptionArgs(sub, stampArg)...)
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
	sub, err := archive.ScanSubscription(s.pool.QueryRow(ctx, "SELECT "+archive.SubscriptionColumns+" FROM websub_subscriptions WHERE "+column+" = $1", value))
	if err != nil {
		return nil, fmt.Errorf("subscription: %w", notFound(err))
	}
	return &sub, nil
}

// Subscriptions lists every subscription to a hub, by source id.
func (s *Store) Subscriptions(ctx context.Context) ([]dynamo.Subscription, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+archive.SubscriptionColumns+" FROM websub_subscriptions ORDER BY source_id")
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	list, err := collectSubscriptions(rows)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	return list, nil
}

// DeleteSubscription removes a source's subscription.
func (s *Store) DeleteSubscription(ctx context.Context, sourceID string) error {
	if _, err := s.pool.Exec(ctx, "DELETE FROM websub_subscriptions WHERE source_id = $1", sourceID); err != nil {
		return fmt.Errorf("delete subscription of %s: %w", sourceID, err)
	}
	return nil
}

// ClaimSubscriptions hands out the subscriptions due for an action. The
// row locks of UPDATE … RETURNING, with SKIP LOCKED, give each to one
// process.
func (s *Store) ClaimSubscriptions(ctx context.Context, now, until time.Time, limit int) ([]dynamo.Subscription, error) {
	rows, err := s.pool.Query(ctx, `UPDATE websub_subscriptions SET next_action = $2
		WHERE source_id IN (SELECT source_id FROM websub_subscriptions WHERE next_action <= $1
			ORDER BY next_action LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING `+archive.SubscriptionColumns, stamp(now), stamp(until), limit)
	if err != nil {
		return nil, fmt.Errorf("claim subscriptions: %w", err)
	}
	list, err := collectSubscriptions(rows)
	if err != nil {
		return nil, fmt.Errorf("claim subscriptions: %w", err)
	}
	return list, nil
}

// NotePush counts a push received for a source.
func (s *Store) NotePush(ctx context.Context, sourceID string, at time.Time) error {
	_, err := s.pool.Exec(ctx, "UPDATE websub_subscriptions SET pushes = pushes + 1, last_push = $2 WHERE source_id = $1",
		sourceID, stamp(at))
	if err != nil {
		return fmt.Errorf("note push for %s: %w", sourceID, err)
	}
	return nil
}

// collectHubSubscriptions reads the rows of archive.HubColumns.
func collectHubSubscriptions(rows pgx.Rows) ([]dynamo.HubSubscription, error) {
	defer rows.Close()
	return archive.Collect(rows, archive.ScanHubSubscription)
}

// PutHubSubscription stores a verified subscription to a topic. A renewal
// keeps the counts and whatever delivery is owed.
func (s *Store) PutHubSubscription(ctx context.Context, sub *dynamo.HubSubscription) error {
	err := s.pool.QueryRow(ctx, `INSERT INTO hub_subscriptions (topic, callback, secret, lease_seconds, expires,
			created_at, verified_at, delivered_etag)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (topic, callback) DO UPDATE SET secret = $3, lease_seconds = $4, expires = $5, verified_at = $7
		RETURNING id`,
		sub.Topic, sub.Callback, sub.Secret, sub.LeaseSeconds, stamp(sub.Expires), stamp(sub.CreatedAt),
		stamp(sub.VerifiedAt), sub.DeliveredETag).Scan(&sub.ID)
	if err != nil {
		return fmt.Errorf("put hub subscription of %s for %s: %w", sub.Callback, sub.Topic, err)
	}
	return nil
}

// DeleteHubSubscription removes the subscription of topic and callback.
func (s *Store) DeleteHubSubscription(ctx context.Context, topic, callback string) error {
	if _, err := s.pool.Exec(ctx, "DELETE FROM hub_subscriptions WHERE topic = $1 AND callback = $2", topic, callback); err != nil {
		return fmt.Errorf("delete hub subscription of %s for %s: %w", callback, topic, err)
	}
	return nil
}

// HubSubscriptions lists the subscriptions to Dynamo's topics.
func (s *Store) HubSubscriptions(ctx context.Context) ([]dynamo.HubSubscription, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+archive.HubColumns+" FROM hub_subscriptions ORDER BY topic, callback")
	if err != nil {
		return nil, fmt.Errorf("list hub subscriptions: %w", err)
	}
	list, err := collectHubSubscriptions(rows)
	if err != nil {
		return nil, fmt.Errorf("list hub subscriptions: %w", err)
	}
	return list, nil
}

// QueueDeliveries owes the subscriptions of topic the representation etag.
func (s *Store) QueueDeliveries(ctx context.Context, topic, etag string, now time.Time) (int, error) {
	// The rows are locked in the order of their ids, as FinishDeliveries
	// locks them, so that the two never wait on each other in a cycle.
	tag, err := s.pool.Exec(ctx, `UPDATE hub_subscriptions SET pending_etag = $2, attempts = 0, next_attempt = $3
		WHERE id IN (SELECT id FROM hub_subscriptions WHERE topic = $1 AND delivered_etag <> $2 AND pending_etag <> $2
			ORDER BY id FOR UPDATE)
		AND delivered_etag <> $2 AND pending_etag <> $2`, topic, etag, stamp(now))
	if err != nil {
		return 0, fmt.Errorf("queue deliveries of %s: %w", topic, err)
	}
	return int(tag.RowsAffected()), nil
}

// LeaseDeliveries hands out the due deliveries nobody holds.
func (s *Store) LeaseDeliveries(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration) ([]dynamo.HubSubscription, error) {
	rows, err := s.pool.Query(ctx, `UPDATE hub_subscriptions SET lease_owner = $2, lease_expires = $3
		WHERE id IN (SELECT id FROM hub_subscriptions
			WHERE pending_etag <> '' AND next_attempt <= $1 AND (lease_owner = '' OR lease_expires <= $1)
			ORDER BY next_attempt LIMIT $4 FOR UPDATE SKIP LOCKED)
		RETURNING `+archive.HubColumns, stamp(now), owner, stamp(now.Add(ttl)), limit)
	if err != nil {
		return nil, fmt.Errorf("lease deliveries: %w", err)
	}
	list, err := collectHubSubscriptions(rows)
	if err != nil {
		return nil, fmt.Errorf("lease deliveries: %w", err)
	}
	return list, nil
}

// FinishDeliveries records attempts and releases their leases, in one
// statement over the results' columns as arrays.
func (s *Store) FinishDeliveries(ctx context.Context, results []dynamo.DeliveryResult) ([]int64, error) {
	if len(results) == 0 {
		return nil, nil
	}
	n := len(results)
	var (
		ids                                  = make([]int64, n)
		owners, outcomes, pending, delivered = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		errs                                 = make([]string, n)
		at, retry                            = make([]time.Time, n), make([]time.Time, n)
	)
	for i, d := range results {
		ids[i], owners[i], outcomes[i], pending[i], delivered[i] = d.ID, d.Owner, d.Outcome(), d.Pending, d.Delivered
		errs[i], at[i], retry[i] = d.Err, stamp(d.At), stamp(d.Retry)
	}
	var recorded []int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// Lock the rows in the order of their ids, as QueueDeliveries
		// and ExpireHubSubscriptions do, so that none of them waits on
		// another in a cycle (a deadlock would abort one).
		if _, err := tx.Exec(ctx, "SELECT id FROM hub_subscriptions WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids); err != nil {
			return err
		}
		// What each outcome does is archive.FinishDelivery.
		rows, err := tx.Query(ctx, `UPDATE hub_subscriptions AS h SET `+archive.FinishDelivery+`,
			lease_owner = '', lease_expires = '0001-01-01 00:00:00+00'
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[])
			AS r(id, owner, outcome, pending, delivered, err, at, retry)
		WHERE h.id = r.id AND h.lease_owner = r.owner
		RETURNING h.id`, ids, owners, outcomes, pending, delivered, errs, at, retry)
		if err != nil {
			return err
		}
		recorded, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("finish %d deliveries: %w", n, err)
	}
	return dynamo.LeasesLost(results, recorded), nil
}

// ExpireHubSubscriptions removes the subscriptions whose lease ended.
func (s *Store) ExpireHubSubscriptions(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM hub_subscriptions
		WHERE id IN (SELECT id FROM hub_subscriptions WHERE expires <= $1 ORDER BY id FOR UPDATE) AND expires <= $1`, stamp(now))
	if err != nil {
		return 0, fmt.Errorf("expire hub subscriptions: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
