package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// newSubscription is a subscription of source id, every field set.
func newSubscription(id string) *dynamo.Subscription {
	return &dynamo.Subscription{
		SourceID: id, SourceURL: "https://example.org/" + id, Hub: "https://hub.example/", Topic: "https://example.org/" + id + ".xml",
		State: dynamo.SubActive, Token: "token-" + id, Secret: "secret-" + id, LeaseSeconds: 3600,
		LeaseEnds: t0.Add(time.Hour), RequestedAt: t0.Add(-time.Minute), VerifiedAt: t0, LastPush: t0.Add(time.Minute),
		Pushes: 2, Attempts: 1, LastError: "none", NextAction: t0.Add(48 * time.Minute),
	}
}

// testSubscriptionRoundTrip stores every field of a subscription to a hub,
// finds it by source and by token, replaces it, counts pushes and deletes it.
func testSubscriptionRoundTrip(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	if _, err := s.Subscription(ctx, "a"); !errors.Is(err, dynamo.ErrNotFound) {
		t.Fatalf("Subscription of none: %v, want ErrNotFound", err)
	}
	want := newSubscription("a")
	if err := s.PutSubscription(ctx, want); err != nil {
		t.Fatal(err)
	}
	if err := s.PutSubscription(ctx, newSubscription("b")); err != nil {
		t.Fatal(err)
	}
	got, err := s.Subscription(ctx, "a")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Subscription(a) = %+v, %v; want %+v", got, err, want)
	}
	if got, err := s.SubscriptionByToken(ctx, "token-b"); err != nil || got.SourceID != "b" {
		t.Fatalf("SubscriptionByToken(token-b) = %+v, %v", got, err)
	}
	if _, err := s.SubscriptionByToken(ctx, "token-x"); !errors.Is(err, dynamo.ErrNotFound) {
		t.Fatalf("SubscriptionByToken of none: %v, want ErrNotFound", err)
	}
	want.State, want.Hub, want.Token = dynamo.SubUnsubscribing, "https://other.example/", "token-a2"
	if err := s.PutSubscription(ctx, want); err != nil {
		t.Fatal(err)
	}
	if err := s.NotePush(ctx, "a", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	want.Pushes, want.LastPush = 3, t0.Add(2*time.Minute)
	list, err := s.Subscriptions(ctx)
	if err != nil || len(list) != 2 || !reflect.DeepEqual(list[0], *want) || list[1].SourceID != "b" {
		t.Fatalf("Subscriptions = %+v, %v; want a (%+v) then b", list, err, want)
	}
	if err := s.DeleteSubscription(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Subscription(ctx, "a"); !errors.Is(err, dynamo.ErrNotFound) {
		t.Fatalf("Subscription after delete: %v, want ErrNotFound", err)
	}
}

// testClaimSubscriptions hands out the subscriptions due for an action,
// earliest first, up to the limit, each once until its new NextAction.
func testClaimSubscriptions(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for i, at := range []time.Duration{-2 * time.Minute, -time.Minute, 0, time.Minute} {
		sub := newSubscription(fmt.Sprintf("s%d", i))
		sub.NextAction = t0.Add(at)
		if err := s.PutSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(now time.Time, limit int) []string {
		t.Helper()
		list, err := s.ClaimSubscriptions(ctx, now, now.Add(time.Hour), limit)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, sub := range list {
			if !sub.NextAction.Equal(now.Add(time.Hour)) {
				t.Errorf("claimed %s has NextAction %v, want %v", sub.SourceID, sub.NextAction, now.Add(time.Hour))
			}
			ids[sub.SourceID] = true
		}
		var out []string
		for _, id := range []string{"s0", "s1", "s2", "s3"} {
			if ids[id] {
				out = append(out, id)
			}
		}
		return out
	}
	if got := claim(t0, 2); !reflect.DeepEqual(got, []string{"s0", "s1"}) {
		t.Errorf("first claim = %v, want s0 s1", got)
	}
	if got := claim(t0, 10); !reflect.DeepEqual(got, []string{"s2"}) {
		t.Errorf("second claim = %v, want s2", got)
	}
	if got := claim(t0.Add(time.Minute), 10); !reflect.DeepEqual(got, []string{"s3"}) {
		t.Errorf("a minute later = %v, want s3", got)
	}
}

// newHubSubscription is a verified subscription of callback to topic.
func newHubSubscription(topic, callback, etag string) *dynamo.HubSubscription {
	return &dynamo.HubSubscription{Topic: topic, Callback: callback, Secret: "s3cret", LeaseSeconds: 600,
		Expires: t0.Add(10 * time.Minute), CreatedAt: t0, VerifiedAt: t0, DeliveredETag: etag}
}

// testHubSubscriptionRenewal: a second verified request for the same topic
// and callback replaces the secret and lease, keeps the id, the counts and
// the owed delivery; leases end.
func testHubSubscriptionRenewal(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	first := newHubSubscription("https://d.example/resources/a", "https://sub.example/cb", `"e1"`)
	if err := s.PutHubSubscription(ctx, first); err != nil {
		t.Fatal(err)
	}
	other := newHubSubscription("https://d.example/resources/b", "https://sub.example/cb", `"e1"`)
	other.Expires = t0.Add(time.Hour)
	if err := s.PutHubSubscription(ctx, other); err != nil {
		t.Fatal(err)
	}
	if first.ID == 0 || other.ID == first.ID {
		t.Fatalf("ids %d and %d: want two distinct ids", first.ID, other.ID)
	}
	if n, err := s.QueueDeliveries(ctx, first.Topic, `"e2"`, t0); err != nil || n != 1 {
		t.Fatalf("QueueDeliveries = %v, %v; want 1", n, err)
	}
	renewed := newHubSubscription(first.Topic, first.Callback, `"e9"`)
	renewed.Secret, renewed.LeaseSeconds, renewed.Expires, renewed.VerifiedAt = "new", 1200, t0.Add(20*time.Minute), t0.Add(time.Minute)
	if err := s.PutHubSubscription(ctx, renewed); err != nil {
		t.Fatal(err)
	}
	if renewed.ID != first.ID {
		t.Errorf("renewal got id %d, want %d", renewed.ID, first.ID)
	}
	list, err := s.HubSubscriptions(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("HubSubscriptions = %+v, %v", list, err)
	}
	got := list[0]
	if got.Secret != "new" || got.LeaseSeconds != 1200 || !got.Expires.Equal(renewed.Expires) || !got.VerifiedAt.Equal(renewed.VerifiedAt) ||
		!got.CreatedAt.Equal(t0) || got.DeliveredETag != `"e1"` || got.PendingETag != `"e2"` {
		t.Errorf("renewed = %+v", got)
	}
	if n, err := s.ExpireHubSubscriptions(ctx, t0.Add(20*time.Minute)); err != nil || n != 1 {
		t.Fatalf("ExpireHubSubscriptions = %d, %v; want 1", n, err)
	}
	if err := s.DeleteHubSubscription(ctx, other.Topic, other.Callback); err != nil {
		t.Fatal(err)
	}
	if list, err := s.HubSubscriptions(ctx); err != nil || len(list) != 0 {
		t.Fatalf("after expiry and delete: %+v, %v", list, err)
	}
}

// testHubDeliveries: a change is owed once, leased to one owner, delivered,
// retried at the time asked, given up, and queued again by the next change.
func testHubDeliveries(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	sub := newHubSubscription("https://d.example/resources/a", "https://sub.example/cb", `"e1"`)
	if err := s.PutHubSubscription(ctx, sub); err != nil {
		t.Fatal(err)
	}
	// Another topic's subscription is never queued by this one's changes.
	other := newHubSubscription("https://d.example/resources/b", "https://sub.example/cb", `"e1"`)
	if err := s.PutHubSubscription(ctx, other); err != nil {
		t.Fatal(err)
	}
	queue := func(etag string, want bool) {
		t.Helper()
		n, err := s.QueueDeliveries(ctx, sub.Topic, etag, t0)
		if err != nil || (n == 1) != want || n > 1 {
			t.Fatalf("QueueDeliveries(%s) = %v, %v; want %v", etag, n, err, want)
		}
	}
	lease := func(owner string, now time.Time, want int) []dynamo.HubSubscription {
		t.Helper()
		list, err := s.LeaseDeliveries(ctx, owner, now, 10, time.Minute)
		if err != nil || len(list) != want {
			t.Fatalf("LeaseDeliveries(%s, %v) = %+v, %v; want %d", owner, now, list, err, want)
		}
		return list
	}
	queue(`"e1"`, false) // already delivered
	lease("p1", t0, 0)
	queue(`"e2"`, true)
	queue(`"e2"`, false) // every process queues the same change: once
	got := lease("p1", t0, 1)
	if got[0].PendingETag != `"e2"` || got[0].Secret != "s3cret" {
		t.Fatalf("leased %+v", got[0])
	}
	lease("p2", t0, 0) // held
	// A retry, due in a minute.
	if err := s.FinishDelivery(ctx, dynamo.DeliveryResult{ID: sub.ID, Owner: "p2", Pending: `"e2"`, Err: "x", Retry: t0}); !errors.Is(err, dynamo.ErrLeaseLost) {
		t.Fatalf("FinishDelivery by another owner: %v, want ErrLeaseLost", err)
	}
	if err := s.FinishDelivery(ctx, dynamo.DeliveryResult{ID: sub.ID, Owner: "p1", At: t0, Pending: `"e2"`, Err: "HTTP 500", Retry: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	lease("p2", t0.Add(30*time.Second), 0)
	got = lease("p2", t0.Add(time.Minute), 1)
	if got[0].Attempts != 1 || got[0].LastError != "HTTP 500" {
		t.Errorf("after a failure: %+v", got[0])
	}
	// Delivered: owed nothing more.
	if err := s.FinishDelivery(ctx, dynamo.DeliveryResult{ID: sub.ID, Owner: "p2", At: t0.Add(time.Minute), Pending: `"e2"`, Delivered: `"e2"`}); err != nil {
		t.Fatal(err)
	}
	lease("p1", t0.Add(time.Hour), 0)
	queue(`"e2"`, false)
	// A change queued while a delivery is under way stays owed.
	queue(`"e3"`, true)
	lease("p1", t0.Add(time.Hour), 1)
	queue(`"e4"`, true)
	if err := s.FinishDelivery(ctx, dynamo.DeliveryResult{ID: sub.ID, Owner: "p1", At: t0.Add(time.Hour), Pending: `"e3"`, Delivered: `"e3"`}); err != nil {
		t.Fatal(err)
	}
	got = lease("p1", t0.Add(time.Hour), 1)
	if got[0].PendingETag != `"e4"` || got[0].DeliveredETag != `"e3"` || got[0].Deliveries != 2 {
		t.Fatalf("after a change under way: %+v", got[0])
	}
	// Given up: counted, not owed, the subscription kept.
	if err := s.FinishDelivery(ctx, dynamo.DeliveryResult{ID: sub.ID, Owner: "p1", At: t0.Add(time.Hour), Pending: `"e4"`, Err: "gave up"}); err != nil {
		t.Fatal(err)
	}
	lease("p1", t0.Add(2*time.Hour), 0)
	list, err := s.HubSubscriptions(ctx)
	if err == nil && len(list) == 2 && list[1].PendingETag != "" {
		t.Errorf("the other topic's subscription is owed %s", list[1].PendingETag)
	}
	if err != nil || len(list) != 2 || list[0].Failures != 1 || list[0].PendingETag != "" || list[0].LastError != "gave up" ||
		!list[0].LastDelivery.Equal(t0.Add(time.Hour)) {
		t.Fatalf("after giving up: %+v, %v", list, err)
	}
	queue(`"e4"`, true) // the next change is delivered again
}

// testConcurrentLeaseDeliveries: owners leasing at once never share a
// delivery.
func testConcurrentLeaseDeliveries(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	const subs = 40
	for i := range subs {
		sub := newHubSubscription("https://d.example/resources/a", fmt.Sprintf("https://sub.example/%d", i), `"e1"`)
		if err := s.PutHubSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.QueueDeliveries(ctx, "https://d.example/resources/a", `"e2"`, t0); err != nil || n != subs {
		t.Fatalf("QueueDeliveries = %d, %v; want %d", n, err, subs)
	}
	var (
		mu   sync.Mutex
		seen = map[int64]string{}
		wg   sync.WaitGroup
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("p%d", w)
			for range 10 {
				list, err := s.LeaseDeliveries(ctx, owner, t0, 3, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, h := range list {
					if prev, ok := seen[h.ID]; ok {
						t.Errorf("subscription %d leased by %s and %s", h.ID, prev, owner)
					}
					seen[h.ID] = owner
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != subs {
		t.Errorf("%d of %d deliveries leased", len(seen), subs)
	}
}
