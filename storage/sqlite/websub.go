package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// subColumns is what scanSubscription reads, in its order.
const subColumns = `source_id, source_url, hub, topic, state, token, secret, lease_seconds, lease_ends,
	requested_at, verified_at, last_push, pushes, attempts, last_error, next_action`

func scanSubscription(row scanner) (dynamo.Subscription, error) {
	var (
		s                                   dynamo.Subscription
		state                               string
		leaseEnds, requested, verified, pus int64
		next                                int64
	)
	err := row.Scan(&s.SourceID, &s.SourceURL, &s.Hub, &s.Topic, &state, &s.Token, &s.Secret, &s.LeaseSeconds,
		&leaseEnds, &requested, &verified, &pus, &s.Pushes, &s.Attempts, &s.LastError, &next)
	s.State = dynamo.SubscriptionState(state)
	s.LeaseEnds, s.RequestedAt, s.VerifiedAt, s.LastPush, s.NextAction = goTime(leaseEnds), goTime(requested), goTime(verified), goTime(pus), goTime(next)
	return s, err
}

func collectSubscriptions(rows *sql.Rows, err error) ([]dynamo.Subscription, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []dynamo.Subscription
	for rows.Next() {
		s, err := scanSubscription(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// PutSubscription stores a source's subscription to its hub.
func (s *Store) PutSubscription(ctx context.Context, sub *dynamo.Subscription) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO websub_subscriptions (`+subColumns+`)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
		ON CONFLICT (source_id) DO UPDATE SET source_url = ?2, hub = ?3, topic = ?4, state = ?5, token = ?6,
			secret = ?7, lease_seconds = ?8, lease_ends = ?9, requested_at = ?10, verified_at = ?11,
			last_push = ?12, pushes = ?13, attempts = ?14, last_error = ?15, next_action = ?16`,
		sub.SourceID, sub.SourceURL, sub.Hub, sub.Topic, string(sub.State), sub.Token, sub.Secret, sub.LeaseSeconds,
		dbTime(sub.LeaseEnds), dbTime(sub.RequestedAt), dbTime(sub.VerifiedAt), dbTime(sub.LastPush), sub.Pushes,
		sub.Attempts, sub.LastError, dbTime(sub.NextAction))
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
	sub, err := scanSubscription(s.r.QueryRowContext(ctx, "SELECT "+subColumns+" FROM websub_subscriptions WHERE "+column+" = ?", value))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("subscription: %w", dynamo.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("subscription: %w", err)
	}
	return &sub, nil
}

// Subscriptions lists every subscription to a hub, by source id.
func (s *Store) Subscriptions(ctx context.Context) ([]dynamo.Subscription, error) {
	list, err := collectSubscriptions(s.r.QueryContext(ctx, "SELECT "+subColumns+" FROM websub_subscriptions ORDER BY source_id"))
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
	list, err := collectSubscriptions(s.w.QueryContext(ctx, `UPDATE websub_subscriptions SET next_action = ?2
		WHERE source_id IN (SELECT source_id FROM websub_subscriptions WHERE next_action <= ?1
			ORDER BY next_action LIMIT ?3)
		RETURNING `+subColumns, dbTime(now), dbTime(until), limit))
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

// hubColumns is what scanHubSubscription reads, in its order.
const hubColumns = `id, topic, callback, secret, lease_seconds, expires, created_at, verified_at,
	delivered_etag, pending_etag, attempts, next_attempt, deliveries, failures, last_delivery, last_error,
	lease_owner, lease_expires`

func scanHubSubscription(row scanner) (dynamo.HubSubscription, error) {
	var (
		h                                dynamo.HubSubscription
		expires, created, verified, next int64
		lastDelivery, leaseExpires       int64
	)
	err := row.Scan(&h.ID, &h.Topic, &h.Callback, &h.Secret, &h.LeaseSeconds, &expires, &created, &verified,
		&h.DeliveredETag, &h.PendingETag, &h.Attempts, &next, &h.Deliveries, &h.Failures, &lastDelivery,
		&h.LastError, &h.LeaseOwner, &leaseExpires)
	h.Expires, h.CreatedAt, h.VerifiedAt, h.NextAttempt = goTime(expires), goTime(created), goTime(verified), goTime(next)
	h.LastDelivery, h.LeaseExpires = goTime(lastDelivery), goTime(leaseExpires)
	return h, err
}

func collectHubSubscriptions(rows *sql.Rows, err error) ([]dynamo.HubSubscription, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []dynamo.HubSubscription
	for rows.Next() {
		h, err := scanHubSubscription(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
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
	list, err := collectHubSubscriptions(s.r.QueryContext(ctx, "SELECT "+hubColumns+" FROM hub_subscriptions ORDER BY topic, callback"))
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
	list, err := collectHubSubscriptions(s.w.QueryContext(ctx, `UPDATE hub_subscriptions SET lease_owner = ?2, lease_expires = ?3
		WHERE id IN (SELECT id FROM hub_subscriptions
			WHERE pending_etag <> '' AND next_attempt <= ?1 AND (lease_owner = '' OR lease_expires <= ?1)
			ORDER BY next_attempt LIMIT ?4)
		RETURNING `+hubColumns, dbTime(now), owner, dbTime(now.Add(ttl)), limit))
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
		// Delivered: what was delivered is no longer owed (a newer change
		// queued meanwhile still is). Given up: counted, the change no
		// longer owed. Retry: counted as an attempt, tried again at its
		// time.
		rows, err := tx.QueryContext(ctx, `WITH r(id, owner, outcome, pending, delivered, err, at, retry) AS (VALUES `+values+`)
			UPDATE hub_subscriptions AS h SET
				delivered_etag = CASE WHEN r.outcome = 'delivered' THEN r.delivered ELSE h.delivered_etag END,
				pending_etag = CASE
					WHEN r.outcome = 'delivered' AND h.pending_etag IN (r.pending, r.delivered) THEN ''
					WHEN r.outcome = 'given_up' AND h.pending_etag = r.pending THEN ''
					ELSE h.pending_etag END,
				attempts = CASE WHEN r.outcome = 'retry' THEN h.attempts + 1 ELSE 0 END,
				next_attempt = CASE WHEN r.outcome = 'retry' THEN r.retry ELSE h.next_attempt END,
				deliveries = h.deliveries + CASE WHEN r.outcome = 'delivered' THEN 1 ELSE 0 END,
				failures = h.failures + CASE WHEN r.outcome = 'given_up' THEN 1 ELSE 0 END,
				last_delivery = CASE WHEN r.outcome = 'delivered' THEN r.at ELSE h.last_delivery END,
				last_error = CASE WHEN r.outcome = 'delivered' THEN '' ELSE r.err END,
				lease_owner = '', lease_expires = ?
			FROM r WHERE h.id = r.id AND h.lease_owner = r.owner
			RETURNING id`, append(args, zeroTime)...)
		if err != nil {
			return nil, fmt.Errorf("finish %d deliveries: %w", len(results), err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("finish %d deliveries: %w", len(results), err)
			}
			recorded = append(recorded, id)
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("finish %d deliveries: %w", len(results), err)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("finish %d deliveries: %w", len(results), err)
		}
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
