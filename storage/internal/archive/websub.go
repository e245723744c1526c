package archive

import (
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// SubscriptionColumns is what ScanSubscription reads of the
// websub_subscriptions table, in its order, and what SubscriptionArgs
// writes.
const SubscriptionColumns = `source_id, source_url, hub, topic, state, token, secret, lease_seconds, lease_ends,
	requested_at, verified_at, last_push, pushes, attempts, last_error, next_action`

// ScanSubscription reads a row of SubscriptionColumns.
func ScanSubscription(row Scanner) (dynamo.Subscription, error) {
	var s dynamo.Subscription
	var state string
	err := row.Scan(&s.SourceID, &s.SourceURL, &s.Hub, &s.Topic, &state, &s.Token, &s.Secret, &s.LeaseSeconds,
		Time(&s.LeaseEnds), Time(&s.RequestedAt), Time(&s.VerifiedAt), Time(&s.LastPush), &s.Pushes, &s.Attempts,
		&s.LastError, Time(&s.NextAction))
	s.State = dynamo.SubscriptionState(state)
	return s, err
}

// SubscriptionArgs are a subscription's values in the order of
// SubscriptionColumns, its times written as at writes them.
func SubscriptionArgs(sub *dynamo.Subscription, at func(time.Time) any) []any {
	return []any{sub.SourceID, sub.SourceURL, sub.Hub, sub.Topic, string(sub.State), sub.Token, sub.Secret,
		sub.LeaseSeconds, at(sub.LeaseEnds), at(sub.RequestedAt), at(sub.VerifiedAt), at(sub.LastPush), sub.Pushes,
		sub.Attempts, sub.LastError, at(sub.NextAction)}
}

// HubColumns is what ScanHubSubscription reads of the hub_subscriptions
// table, in its order.
const HubColumns = `id, topic, callback, secret, lease_seconds, expires, created_at, verified_at,
	delivered_etag, pending_etag, attempts, next_attempt, deliveries, failures, last_delivery, last_error,
	lease_owner, lease_expires`

// ScanHubSubscription reads a row of HubColumns.
func ScanHubSubscription(row Scanner) (dynamo.HubSubscription, error) {
	var h dynamo.HubSubscription
	err := row.Scan(&h.ID, &h.Topic, &h.Callback, &h.Secret, &h.LeaseSeconds, Time(&h.Expires), Time(&h.CreatedAt),
		Time(&h.VerifiedAt), &h.DeliveredETag, &h.PendingETag, &h.Attempts, Time(&h.NextAttempt), &h.Deliveries,
		&h.Failures, Time(&h.LastDelivery), &h.LastError, &h.LeaseOwner, Time(&h.LeaseExpires))
	return h, err
}

// FinishDelivery is the rule of what one delivery's outcome does to its
// subscription h, as the SET list of an UPDATE of hub_subscriptions AS h
// joined to the results r(id, owner, outcome, pending, delivered, err, at,
// retry), outcome being dynamo.DeliveryResult.Outcome: delivered, what was
// delivered is no longer owed (a newer change queued meanwhile still is);
// given up, counted, the change no longer owed; retry, counted as an
// attempt, tried again at its time. The store adds the lease's release.
const FinishDelivery = `delivered_etag = CASE WHEN r.outcome = 'delivered' THEN r.delivered ELSE h.delivered_etag END,
	pending_etag = CASE
		WHEN r.outcome = 'delivered' AND h.pending_etag IN (r.pending, r.delivered) THEN ''
		WHEN r.outcome = 'given_up' AND h.pending_etag = r.pending THEN ''
		ELSE h.pending_etag END,
	attempts = CASE WHEN r.outcome = 'retry' THEN h.attempts + 1 ELSE 0 END,
	next_attempt = CASE WHEN r.outcome = 'retry' THEN r.retry ELSE h.next_attempt END,
	deliveries = h.deliveries + CASE WHEN r.outcome = 'delivered' THEN 1 ELSE 0 END,
	failures = h.failures + CASE WHEN r.outcome = 'given_up' THEN 1 ELSE 0 END,
	last_delivery = CASE WHEN r.outcome = 'delivered' THEN r.at ELSE h.last_delivery END,
	last_error = CASE WHEN r.outcome = 'delivered' THEN '' ELSE r.err END`
