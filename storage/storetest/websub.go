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

// testSourcesPushedUntil reads a source's active subscription's lease end
// with the source, from every read and lease, so that a poll knows whether
// its hub pushes without a read of its own; a subscription not active
// gives none.
func testSourcesPushedUntil(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	for _, id := range []string{"active", "pending", "none"} {
		addSource(t, s, id)
	}
	active, pending := newSubscription("active"), newSubscription("pending")
	pending.State = dynamo.SubSubscribing
	for _, sub := range []*dynamo.Subscription{active, pending} {
		if err := s.PutSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]time.Time{"active": active.LeaseEnds, "pending": {}, "none": {}}
	check := func(how string, list []dynamo.Source) {
		t.Helper()
		if len(list) != len(want) {
			t.Fatalf("%s: %d sources, want %d", how, len(list), len(want))
		}
		for _, src := range list {
			if got := src.Summary.PushedUntil; !got.Equal(want[src.ID]) {
				t.Errorf("%s: %s pushed until %v, want %v", how, src.ID, got, want[src.ID])
			}
		}
	}
	var one []dynamo.Source
	for id := range want {
		src := mustSource(t, s, id)
		one = append(one, *src)
	}
	check("Source", one)
	all, err := s.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("Sources", all)
	due, err := s.LeaseDue(ctx, "me", t0, 10, time.Minute, dynamo.LeaseHosts{})
	if err != nil {
		t.Fatal(err)
	}
	check("LeaseDue", due)
	var leased []dynamo.Source
	for id := range want {
		src, err := s.LeaseSource(ctx, id, "me", t0, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		leased = append(leased, *src)
	}
	check("LeaseSource", leased)
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
	finish := func(d dynamo.DeliveryResult) {
		t.Helper()
		if lost, err := s.FinishDeliveries(ctx, []dynamo.DeliveryResult{d}); err != nil || len(lost) != 0 {
			t.Fatalf("FinishDeliveries(%+v) = %v, %v; want it recorded", d, lost, err)
		}
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
	if lost, err := s.FinishDeliveries(ctx, []dynamo.DeliveryResult{{ID: sub.ID, Owner: "p2", Pending: `"e2"`, Err: "x", Retry: t0}}); err != nil || fmt.Sprint(lost) != fmt.Sprint([]int64{sub.ID}) {
		t.Fatalf("FinishDeliveries by another owner: %v, %v; want its lease lost", lost, err)
	}
	finish(dynamo.DeliveryResult{ID: sub.ID, Owner: "p1", At: t0, Pending: `"e2"`, Err: "HTTP 500", Retry: t0.Add(time.Minute)})
	lease("p2", t0.Add(30*time.Second), 0)
	got = lease("p2", t0.Add(time.Minute), 1)
	if got[0].Attempts != 1 || got[0].LastError != "HTTP 500" {
		t.Errorf("after a failure: %+v", got[0])
	}
	// Delivered: owed nothing more.
	finish(dynamo.DeliveryResult{ID: sub.ID, Owner: "p2", At: t0.Add(time.Minute), Pending: `"e2"`, Delivered: `"e2"`})
	lease("p1", t0.Add(time.Hour), 0)
	queue(`"e2"`, false)
	// A change queued while a delivery is under way stays owed.
	queue(`"e3"`, true)
	lease("p1", t0.Add(time.Hour), 1)
	queue(`"e4"`, true)
	finish(dynamo.DeliveryResult{ID: sub.ID, Owner: "p1", At: t0.Add(time.Hour), Pending: `"e3"`, Delivered: `"e3"`})
	got = lease("p1", t0.Add(time.Hour), 1)
	if got[0].PendingETag != `"e4"` || got[0].DeliveredETag != `"e3"` || got[0].Deliveries != 2 {
		t.Fatalf("after a change under way: %+v", got[0])
	}
	// Given up: counted, not owed, the subscription kept.
	finish(dynamo.DeliveryResult{ID: sub.ID, Owner: "p1", At: t0.Add(time.Hour), Pending: `"e4"`, Err: "gave up"})
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

// testFinishDeliveriesBatch: one call records 150 outcomes of every kind
// (more than one statement's worth for SQLite), each as a call of its own
// would, and reports the results whose lease was lost.
func testFinishDeliveriesBatch(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	const subs = 150
	topic := "https://d.example/resources/many"
	for i := range subs {
		if err := s.PutHubSubscription(ctx, newHubSubscription(topic, fmt.Sprintf("https://sub.example/%d", i), `"e1"`)); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.QueueDeliveries(ctx, topic, `"e2"`, t0); err != nil || n != subs {
		t.Fatalf("QueueDeliveries = %d, %v; want %d", n, err, subs)
	}
	leased, err := s.LeaseDeliveries(ctx, "p1", t0, subs, time.Minute)
	if err != nil || len(leased) != subs {
		t.Fatalf("LeaseDeliveries = %d, %v; want %d", len(leased), err, subs)
	}
	// By callback number: delivered, to be retried, given up, and a result
	// of an owner that does not hold the lease.
	kind := map[int64]int{}
	var (
		results  []dynamo.DeliveryResult
		wantLost []int64
	)
	for i, sub := range leased {
		d := dynamo.DeliveryResult{ID: sub.ID, Owner: "p1", At: t0.Add(time.Second), Pending: `"e2"`}
		switch kind[sub.ID] = i % 4; i % 4 {
		case 0:
			d.Delivered = `"e2"`
		case 1:
			d.Err, d.Retry = "HTTP 503", t0.Add(time.Minute)
		case 2:
			d.Err = "given up"
		case 3:
			d.Owner, d.Err, d.Retry = "p2", "x", t0
			wantLost = append(wantLost, sub.ID)
		}
		results = append(results, d)
	}
	lost, err := s.FinishDeliveries(ctx, results)
	if err != nil || fmt.Sprint(lost) != fmt.Sprint(wantLost) {
		t.Fatalf("FinishDeliveries lost %d results (%v); want %d", len(lost), err, len(wantLost))
	}
	list, err := s.HubSubscriptions(ctx)
	if err != nil || len(list) != subs {
		t.Fatalf("HubSubscriptions = %d, %v", len(list), err)
	}
	for _, h := range list {
		var ok bool
		switch kind[h.ID] {
		case 0:
			ok = h.DeliveredETag == `"e2"` && h.PendingETag == "" && h.Deliveries == 1 && h.LastDelivery.Equal(t0.Add(time.Second)) && h.LastError == "" && h.LeaseOwner == ""
		case 1:
			ok = h.PendingETag == `"e2"` && h.Attempts == 1 && h.NextAttempt.Equal(t0.Add(time.Minute)) && h.LastError == "HTTP 503" && h.LeaseOwner == ""
		case 2:
			ok = h.PendingETag == "" && h.Failures == 1 && h.Deliveries == 0 && h.LastError == "given up" && h.LeaseOwner == ""
		case 3:
			ok = h.PendingETag == `"e2"` && h.Attempts == 0 && h.LastError == "" && h.LeaseOwner == "p1"
		}
		if !ok {
			t.Fatalf("outcome %d recorded as %+v", kind[h.ID], h)
		}
	}
	if lost, err := s.FinishDeliveries(ctx, nil); err != nil || lost != nil {
		t.Errorf("FinishDeliveries(nil) = %v, %v", lost, err)
	}
}

// testDeliveriesConcurrentWrites: recording a batch of outcomes while
// changes are queued for the same subscriptions, as a hub fanning out to
// many subscribers does when the next change comes, never fails: both lock
// the subscriptions in the same order, so neither waits on the other in a
// cycle (a PostgreSQL deadlock would abort one of them).
func testDeliveriesConcurrentWrites(t *testing.T, s dynamo.Store) {
	ctx := context.Background()
	const subs, rounds = 400, 10
	topic := "https://d.example/resources/busy"
	for i := range subs {
		if err := s.PutHubSubscription(ctx, newHubSubscription(topic, fmt.Sprintf("https://sub.example/%d", i), `"e0"`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.QueueDeliveries(ctx, topic, `"e1"`, t0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range rounds {
			if _, err := s.QueueDeliveries(ctx, topic, fmt.Sprintf(`"q%d"`, i), t0); err != nil {
				t.Errorf("QueueDeliveries while outcomes are recorded: %v", err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for range rounds {
			leased, err := s.LeaseDeliveries(ctx, "p1", t0, subs, time.Minute)
			if err != nil {
				t.Errorf("LeaseDeliveries: %v", err)
				return
			}
			// Outcomes come in the order deliveries end, not the store's.
			results := make([]dynamo.DeliveryResult, len(leased))
			for i, sub := range leased {
				results[len(leased)-1-i] = dynamo.DeliveryResult{ID: sub.ID, Owner: "p1", At: t0, Pending: sub.PendingETag, Delivered: sub.PendingETag}
			}
			if _, err := s.FinishDeliveries(ctx, results); err != nil {
				t.Errorf("FinishDeliveries while changes are queued: %v", err)
				return
			}
		}
	}()
	wg.Wait()
}
