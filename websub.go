package dynamo

import (
	"context"
	"time"
)

// WebSubStore keeps WebSub subscriptions (W3C Recommendation, 2018) in both
// roles, so that every process sharing a store answers and delivers for
// every subscription (docs/WEBSUB.md):
//
//   - as a subscriber, Dynamo's subscriptions to its sources' hubs, one per
//     source;
//   - as a hub, the subscriptions of others to Dynamo's own feeds, one per
//     topic and callback, with the delivery each one is owed.
type WebSubStore interface {
	// PutSubscription stores a subscription to a source's hub, replacing
	// the source's previous one.
	PutSubscription(ctx context.Context, sub *Subscription) error
	// Subscription returns a source's subscription; ErrNotFound if none.
	Subscription(ctx context.Context, sourceID string) (*Subscription, error)
	// SubscriptionByToken returns the subscription whose callback carries
	// token; ErrNotFound if none.
	SubscriptionByToken(ctx context.Context, token string) (*Subscription, error)
	// Subscriptions lists every subscription to a hub, by source id.
	Subscriptions(ctx context.Context) ([]Subscription, error)
	// DeleteSubscription removes a source's subscription, if any.
	DeleteSubscription(ctx context.Context, sourceID string) error
	// ClaimSubscriptions hands out up to limit subscriptions whose NextAction
	// is at or before now, setting their NextAction to until, so that one
	// process, not all, acts on each (subscribes, renews, unsubscribes).
	ClaimSubscriptions(ctx context.Context, now, until time.Time, limit int) ([]Subscription, error)
	// NotePush counts a push received for a source's subscription at at.
	NotePush(ctx context.Context, sourceID string, at time.Time) error

	// PutHubSubscription stores a verified subscription to one of Dynamo's
	// topics, replacing the one of the same topic and callback (WebSub
	// §5.1: a new request overrides the previous state once verified). Its
	// ID is set.
	PutHubSubscription(ctx context.Context, sub *HubSubscription) error
	// DeleteHubSubscription removes the subscription of topic and callback,
	// if any.
	DeleteHubSubscription(ctx context.Context, topic, callback string) error
	// HubSubscriptions lists the subscriptions to Dynamo's topics, by topic
	// and callback.
	HubSubscriptions(ctx context.Context) ([]HubSubscription, error)
	// QueueDeliveries records that every subscription of topic is owed the
	// topic's representation whose ETag is etag, unless it was delivered or
	// is already owed, and returns how many were queued. Every process may
	// call it for the same change: each delivery is queued once.
	QueueDeliveries(ctx context.Context, topic, etag string, now time.Time) (int, error)
	// LeaseDeliveries hands out up to limit subscriptions owed a delivery
	// whose next attempt is due at now and that nobody holds, leased to
	// owner until now+ttl.
	LeaseDeliveries(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration) ([]HubSubscription, error)
	// FinishDeliveries records attempts on leased subscriptions, each of
	// a different subscription, and releases them, in one write: a hub
	// delivering to many subscribers records their outcomes together
	// rather than one write each. It returns the IDs of the results not
	// recorded because their owner no longer holds the lease (another
	// process took the delivery over after the lease ended).
	FinishDeliveries(ctx context.Context, results []DeliveryResult) (lost []int64, err error)
	// ExpireHubSubscriptions removes the subscriptions whose lease ended at
	// or before now (WebSub §5.3.1: hubs enforce lease expirations) and
	// returns how many.
	ExpireHubSubscriptions(ctx context.Context, now time.Time) (int, error)
}

// SubscriptionState is where a subscription to a source's hub stands.
type SubscriptionState string

// The states of a subscription to a hub.
const (
	// SubSubscribing: the request was sent (or is to be sent); the hub has
	// not verified it yet.
	SubSubscribing SubscriptionState = "subscribing"
	// SubActive: verified; the hub pushes until LeaseEnds, and Dynamo
	// renews before then.
	SubActive SubscriptionState = "active"
	// SubUnsubscribing: the source was paused, deleted or moved; the
	// unsubscription is to be sent or verified.
	SubUnsubscribing SubscriptionState = "unsubscribing"
	// SubDenied: the hub refused (WebSub §5.2); retried a day later.
	SubDenied SubscriptionState = "denied"
	// SubFailed: the hub could not be reached or refused the request;
	// retried with back-off.
	SubFailed SubscriptionState = "failed"
)

// Subscription is Dynamo's subscription to a source's hub.
type Subscription struct {
	SourceID string `json:"source_id"`
	// SourceURL is the source's URL when it subscribed: a source whose URL
	// changes is unsubscribed.
	SourceURL string            `json:"source_url"`
	Hub       string            `json:"hub"`
	Topic     string            `json:"topic"` // the self URL found by discovery (WebSub §4)
	State     SubscriptionState `json:"state"`
	// Token is the unguessable part of the callback URL (WebSub §5.1.1)
	// and Secret the hub.secret the pushes are signed with (§7.1).
	Token  string `json:"-"`
	Secret string `json:"-"`
	// LeaseSeconds is the lease the hub granted at the last verification,
	// and LeaseEnds when it ends.
	LeaseSeconds int       `json:"lease_seconds,omitempty"`
	LeaseEnds    time.Time `json:"lease_ends,omitzero"`
	RequestedAt  time.Time `json:"requested_at,omitzero"`
	VerifiedAt   time.Time `json:"verified_at,omitzero"`
	LastPush     time.Time `json:"last_push,omitzero"`
	Pushes       int       `json:"pushes"`
	// Attempts counts the requests sent since the last verification, for
	// back-off; LastError says why the last one failed.
	Attempts  int    `json:"attempts,omitempty"`
	LastError string `json:"last_error,omitempty"`
	// NextAction is when Dynamo next acts on it: sends a request, renews,
	// or retries.
	NextAction time.Time `json:"next_action,omitzero"`
}

// Pushing reports whether the hub pushes the source's updates at now: the
// subscription is verified and its lease has not ended.
func (s *Subscription) Pushing(now time.Time) bool {
	return s != nil && s.State == SubActive && now.Before(s.LeaseEnds)
}

// HubSubscription is a subscription to one of Dynamo's own feeds (a topic).
type HubSubscription struct {
	ID           int64     `json:"id"`
	Topic        string    `json:"topic"`
	Callback     string    `json:"callback"`
	Secret       string    `json:"-"`
	LeaseSeconds int       `json:"lease_seconds"`
	Expires      time.Time `json:"expires"`
	CreatedAt    time.Time `json:"created_at"`
	VerifiedAt   time.Time `json:"verified_at"`
	// DeliveredETag is the ETag of the representation last delivered (or
	// current when the subscription was verified); PendingETag, when set,
	// the one owed.
	DeliveredETag string    `json:"delivered_etag,omitempty"`
	PendingETag   string    `json:"pending_etag,omitempty"`
	Attempts      int       `json:"attempts,omitempty"` // failed attempts at the owed delivery
	NextAttempt   time.Time `json:"next_attempt,omitzero"`
	Deliveries    int       `json:"deliveries"`
	Failures      int       `json:"failures"` // deliveries given up
	LastDelivery  time.Time `json:"last_delivery,omitzero"`
	LastError     string    `json:"last_error,omitempty"`
	LeaseOwner    string    `json:"-"`
	LeaseExpires  time.Time `json:"-"`
}

// DeliveryResult is one delivery attempt on a leased HubSubscription.
type DeliveryResult struct {
	ID    int64
	Owner string
	At    time.Time
	// Pending is the PendingETag the subscription was leased with.
	Pending string
	// Delivered, on success, is the ETag of the representation delivered.
	Delivered string
	// On failure: Err says why, and Retry is when to try again; a zero
	// Retry gives the delivery up (counted in Failures). The subscription
	// stays: a later change is delivered again (WebSub §7).
	Err   string
	Retry time.Time
}

// The outcomes of a delivery attempt (DeliveryResult.Outcome).
const (
	DeliveryDelivered = "delivered"
	DeliveryRetry     = "retry"
	DeliveryGivenUp   = "given_up"
)

// Outcome is what the attempt comes to: delivered (Delivered set), to be
// retried (Retry set) or given up.
func (d DeliveryResult) Outcome() string {
	switch {
	case d.Delivered != "":
		return DeliveryDelivered
	case d.Retry.IsZero():
		return DeliveryGivenUp
	}
	return DeliveryRetry
}

// LeasesLost is the IDs of results missing from recorded, the IDs a
// store's FinishDeliveries wrote: the results whose lease was lost.
func LeasesLost(results []DeliveryResult, recorded []int64) []int64 {
	done := make(map[int64]bool, len(recorded))
	for _, id := range recorded {
		done[id] = true
	}
	var lost []int64
	for _, d := range results {
		if !done[d.ID] {
			lost = append(lost, d.ID)
		}
	}
	return lost
}
