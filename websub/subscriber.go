package websub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/limits"
)

// CallbackPrefix is where hubs reach Dynamo's subscriptions: the callback
// of one is CallbackPrefix followed by its token.
const CallbackPrefix = "/websub/callback/"

// Pusher reads a pushed body exactly as a polled one; *poller.Poller is
// the real one.
type Pusher interface {
	// Push reads body, pushed by source id's hub with contentType, as a
	// poll reads a fetched body, and stores what a poll would store;
	// dynamo.ErrConflict when the source is being polled right now.
	Push(ctx context.Context, id string, body []byte, contentType, url string) (dynamo.PollOutcome, error)
}

// SubscriberConfig is what NewSubscriber needs. Zero fields take the
// defaults noted.
type SubscriberConfig struct {
	Store  dynamo.Store // required
	Pusher Pusher       // required
	// PublicURL is Dynamo's public address, the base of its callbacks;
	// required: without it no hub can reach Dynamo.
	PublicURL string
	// Client sends subscription requests to hubs; it must dial through the
	// fetcher's guard (fetch.Client.Transport). Required.
	Client *http.Client
	// Lease is the lease asked of hubs (hub.lease_seconds); default 10
	// days, which hubs may shorten or lengthen.
	Lease time.Duration
	// MaxBody bounds a pushed body, like a fetched one (default
	// dynamo.MaxAnnotatedPageBytes, the fetcher's, 20 MiB).
	MaxBody int64
	// Heavy is the gate of expensive work that a push takes a slot of
	// before its body is read (serve passes its --heavy-reads gate, the
	// one POST /api/wrap and the playground take), so that concurrent
	// pushes of up to MaxBody cannot take the memory past that many; a
	// push that gets no slot is answered 503 with Retry-After, which a hub
	// retries (§7). Nil leaves pushes ungated.
	Heavy *limits.Gate
	// VerifyWait is how long a request may wait for its verification
	// before it is sent again (default 10 minutes).
	VerifyWait time.Duration
	// Tick is how often due subscriptions are looked at (default 10 s).
	Tick     time.Duration
	Observer Observer
	Logger   *slog.Logger
	Now      func() time.Time
}

// Subscriber subscribes Dynamo to its sources' hubs and takes their pushes.
type Subscriber struct {
	cfg  SubscriberConfig
	base string
	wake chan struct{}
	// mu guards reconcile, set when a change may have paused, deleted or
	// moved a subscribed source.
	mu        sync.Mutex
	reconcile bool
}

// NewSubscriber checks cfg and returns a Subscriber; Run must run for it
// to send requests.
func NewSubscriber(cfg SubscriberConfig) (*Subscriber, error) {
	if cfg.Store == nil || cfg.Pusher == nil || cfg.Client == nil {
		return nil, fmt.Errorf("websub subscriber: a store, a pusher and a client are required: %w", dynamo.ErrInvalid)
	}
	base, err := publicBase(cfg.PublicURL)
	if err != nil {
		return nil, fmt.Errorf("websub subscriber: %w", err)
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 10 * 24 * time.Hour
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = dynamo.MaxAnnotatedPageBytes
	}
	if cfg.VerifyWait <= 0 {
		cfg.VerifyWait = 10 * time.Minute
	}
	if cfg.Tick <= 0 {
		cfg.Tick = 10 * time.Second
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Subscriber{cfg: cfg, base: base, wake: make(chan struct{}, 1)}, nil
}

// Mount registers the callbacks on mux.
func (s *Subscriber) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET "+CallbackPrefix+"{token}", s.serveVerification)
	mux.HandleFunc("POST "+CallbackPrefix+"{token}", s.servePush)
}

// callback is the callback URL of a subscription.
func (s *Subscriber) callback(sub *dynamo.Subscription) string {
	return s.base + CallbackPrefix + sub.Token
}

// Observe looks for a hub in what a poll of src retrieved (§4) and, when
// the source is not subscribed to it yet, starts a subscription, with a
// fresh callback token and secret; a source that stopped advertising a
// hub is unsubscribed. The poller calls it for every body it retrieves.
func (s *Subscriber) Observe(ctx context.Context, src *dynamo.Source, linkHeaders []string, body []byte, contentType, url string) {
	links := Discover(linkHeaders, body, contentType, url)
	sub, err := s.cfg.Store.Subscription(ctx, src.ID)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		s.cfg.Logger.Warn("websub: read subscription", "source", src.ID, "err", err)
		return
	}
	log := s.cfg.Logger.With("source", src.ID)
	if links.Hub == "" || src.Paused {
		if sub != nil && sub.State != dynamo.SubUnsubscribing {
			s.unsubscribe(ctx, sub, "the source no longer advertises a hub")
		}
		return
	}
	if links.Self == "" {
		links.Self = url // a publisher that names no self URL: the one read
	}
	if sub != nil && sub.Hub == links.Hub && sub.Topic == links.Self && sub.SourceURL == src.URL && sub.State != dynamo.SubUnsubscribing {
		return
	}
	// src is the copy the poll read before it fetched: the source may have
	// been paused, deleted or moved since, and its subscription marked
	// unsubscribing. Replacing that row would drop the callback the hub
	// holds, so the hub would never hear the unsubscription: only the
	// source as it is now may subscribe.
	if why, err := s.stale(ctx, src); err != nil || why != "" {
		if err != nil {
			log.Warn("websub: read sources", "err", err)
		} else {
			log.Info("websub: not subscribing from a stale poll", "why", why)
		}
		return
	}
	// A new hub or topic gets a new callback: the old hub's pushes then
	// find no subscription and are answered 410 Gone, which ends them.
	next := &dynamo.Subscription{SourceID: src.ID, SourceURL: src.URL, Hub: links.Hub, Topic: links.Self,
		State: dynamo.SubSubscribing, Token: randomToken(), Secret: randomToken(), NextAction: s.cfg.Now()}
	if err := s.cfg.Store.PutSubscription(ctx, next); err != nil {
		log.Warn("websub: store subscription", "err", err)
		return
	}
	// A change committed between the check above and this write may have
	// been reconciled into the row just replaced: checked again, the
	// callback the hub verified is put back, to be unsubscribed. (The new
	// row, never verified, needs no unsubscription.)
	switch why, err := s.stale(ctx, src); {
	case err != nil:
		log.Warn("websub: read sources", "err", err)
	case why != "":
		if sub != nil && !sub.VerifiedAt.IsZero() {
			s.unsubscribe(ctx, sub, why+" during the poll")
		}
		s.nudge()
		return
	}
	log.Info("websub: the source advertises a hub; subscribing", "hub", links.Hub, "topic", links.Self)
	s.nudge()
}

// stale says why the polled copy src no longer stands for the source
// (deleted, paused or moved since the poll read it), or "".
func (s *Subscriber) stale(ctx context.Context, src *dynamo.Source) (string, error) {
	active, err := s.activeSources(ctx)
	if err != nil {
		return "", err
	}
	return unwanted(&dynamo.Subscription{SourceID: src.ID, SourceURL: src.URL}, active), nil
}

// unsubscribe marks sub to be unsubscribed at once.
func (s *Subscriber) unsubscribe(ctx context.Context, sub *dynamo.Subscription, why string) {
	sub.State, sub.Attempts, sub.NextAction = dynamo.SubUnsubscribing, 0, s.cfg.Now()
	if err := s.cfg.Store.PutSubscription(ctx, sub); err != nil {
		s.cfg.Logger.Warn("websub: store subscription", "source", sub.SourceID, "err", err)
		return
	}
	s.cfg.Logger.Info("websub: unsubscribing", "source", sub.SourceID, "hub", sub.Hub, "why", why)
	s.nudge()
}

func (s *Subscriber) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run sends the due requests (subscriptions, renewals, unsubscriptions,
// retries) until ctx ends, and unsubscribes the sources that were paused,
// deleted or moved.
func (s *Subscriber) Run(ctx context.Context) error {
	changes, err := s.cfg.Store.WatchChanges(ctx)
	if err != nil {
		return fmt.Errorf("websub subscriber: watch changes: %w", err)
	}
	ticker := time.NewTicker(s.cfg.Tick)
	defer ticker.Stop()
	s.mu.Lock()
	s.reconcile = true // whatever changed while no process ran
	s.mu.Unlock()
	for {
		s.mu.Lock()
		again := s.reconcile
		s.reconcile = false
		s.mu.Unlock()
		if again {
			if err := s.reconcileSources(ctx); err != nil && ctx.Err() == nil {
				s.cfg.Logger.Warn("websub: check subscribed sources", "err", err)
			}
		}
		s.actOnDue(ctx)
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-changes:
			if !ok {
				return nil
			}
			s.mu.Lock()
			s.reconcile = true
			s.mu.Unlock()
		case <-ticker.C:
			// A safety net beside the change notifications: a tick also
			// looks for sources deleted, paused or moved, so that a
			// missed notification costs a tick, not a stale subscription.
			s.mu.Lock()
			s.reconcile = true
			s.mu.Unlock()
		case <-s.wake:
		}
	}
}

// reconcileSources unsubscribes the subscriptions whose source is no
// longer active, is paused, or has another URL.
func (s *Subscriber) reconcileSources(ctx context.Context) error {
	subs, err := s.cfg.Store.Subscriptions(ctx)
	if err != nil || len(subs) == 0 {
		return err
	}
	active, err := s.activeSources(ctx)
	if err != nil {
		return err
	}
	for i := range subs {
		sub := &subs[i]
		if why := unwanted(sub, active); why != "" && sub.State != dynamo.SubUnsubscribing {
			s.unsubscribe(ctx, sub, why)
		}
	}
	return nil
}

// activeSources maps the active sources by id.
func (s *Subscriber) activeSources(ctx context.Context) (map[string]*dynamo.Source, error) {
	list, err := s.cfg.Store.Sources(ctx)
	if err != nil {
		return nil, err
	}
	active := make(map[string]*dynamo.Source, len(list))
	for i := range list {
		active[list[i].ID] = &list[i]
	}
	return active, nil
}

// unwanted says why a subscription's source no longer wants it, or "".
func unwanted(sub *dynamo.Subscription, active map[string]*dynamo.Source) string {
	src, ok := active[sub.SourceID]
	switch {
	case !ok:
		return "the source was deleted"
	case src.Paused:
		return "the source was paused"
	case src.URL != sub.SourceURL:
		return "the source's URL changed"
	}
	return ""
}

// actOnDue claims the subscriptions due for an action and acts on each.
func (s *Subscriber) actOnDue(ctx context.Context) {
	now := s.cfg.Now()
	due, err := s.cfg.Store.ClaimSubscriptions(ctx, now, now.Add(s.cfg.VerifyWait), 50)
	if err != nil {
		if ctx.Err() == nil {
			s.cfg.Logger.Warn("websub: claim subscriptions", "err", err)
		}
		return
	}
	if len(due) == 0 {
		return
	}
	active, err := s.activeSources(ctx)
	if err != nil {
		s.cfg.Logger.Warn("websub: list sources", "err", err)
		return
	}
	for i := range due {
		s.act(ctx, &due[i], active)
	}
}

// act sends what a claimed subscription is due for. The new state is
// stored before the request goes out, since the hub may verify before the
// request's answer arrives.
func (s *Subscriber) act(ctx context.Context, sub *dynamo.Subscription, active map[string]*dynamo.Source) {
	log := s.cfg.Logger.With("source", sub.SourceID, "hub", sub.Hub, "topic", sub.Topic)
	now := s.cfg.Now()
	if why := unwanted(sub, active); why != "" && sub.State != dynamo.SubUnsubscribing {
		log.Info("websub: unsubscribing", "why", why)
		sub.State, sub.Attempts = dynamo.SubUnsubscribing, 0
	}
	mode := "subscribe"
	switch sub.State {
	case dynamo.SubUnsubscribing:
		// Nothing to undo when the hub never verified, nor after three
		// tries: the lease will end by itself.
		if sub.VerifiedAt.IsZero() || sub.Attempts >= 3 {
			if err := s.cfg.Store.DeleteSubscription(ctx, sub.SourceID); err != nil {
				log.Warn("websub: delete subscription", "err", err)
			}
			return
		}
		mode = "unsubscribe"
	case dynamo.SubActive:
		if at := renewAt(sub); now.Before(at) {
			// Claimed before its renewal (the verification came after
			// the claim): wait for the renewal.
			sub.NextAction = at
			if err := s.cfg.Store.PutSubscription(ctx, sub); err != nil {
				log.Warn("websub: store subscription", "err", err)
			}
			return
		}
	case dynamo.SubDenied, dynamo.SubFailed:
		sub.State = dynamo.SubSubscribing
	}
	sub.Attempts++
	sub.RequestedAt = now
	sub.NextAction = now.Add(s.cfg.VerifyWait)
	if err := s.cfg.Store.PutSubscription(ctx, sub); err != nil {
		log.Warn("websub: store subscription", "err", err)
		return
	}
	err := s.request(ctx, sub, mode)
	if err == nil {
		log.Info("websub: request sent; awaiting verification", "mode", mode)
		return
	}
	log.Warn("websub: request refused", "mode", mode, "err", err)
	sub.LastError = err.Error()
	if sub.State == dynamo.SubSubscribing {
		sub.State = dynamo.SubFailed
	}
	sub.NextAction = now.Add(retryWait(sub.Attempts))
	if sub.State == dynamo.SubActive {
		// A renewal refused: try again before the lease ends.
		sub.NextAction = now.Add(min(retryWait(sub.Attempts), max(sub.LeaseEnds.Sub(now)/4, time.Minute)))
	}
	if err := s.cfg.Store.PutSubscription(ctx, sub); err != nil {
		log.Warn("websub: store subscription", "err", err)
	}
}

// retryWait is the wait after the attempts-th refused request: a minute,
// doubled each time, at most six hours.
func retryWait(attempts int) time.Duration {
	return min(time.Minute<<min(max(attempts-1, 0), 12), 6*time.Hour)
}

// renewAt is when an active subscription is renewed: when four fifths of
// its lease have passed, so that a renewal that fails has time to be
// retried before the lease ends (§5.3.1: re-request before it elapses).
func renewAt(sub *dynamo.Subscription) time.Time {
	lease := time.Duration(sub.LeaseSeconds) * time.Second
	return sub.LeaseEnds.Add(-lease / 5)
}

// request sends a subscription or unsubscription request to the hub
// (§5.1): 202 Accepted (any 2xx) means the hub will verify; a 307 or 308
// names another hub (§5.1.2), which is tried once.
func (s *Subscriber) request(ctx context.Context, sub *dynamo.Subscription, mode string) error {
	form := url.Values{}
	form.Set("hub.mode", mode)
	form.Set("hub.topic", sub.Topic)
	form.Set("hub.callback", s.callback(sub))
	if mode == "subscribe" {
		form.Set("hub.secret", sub.Secret)
		form.Set("hub.lease_seconds", strconv.FormatInt(int64(s.cfg.Lease/time.Second), 10))
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	hub := sub.Hub
	for redirects := 0; ; redirects++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, hub, strings.NewReader(form.Encode()))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := s.cfg.Client.Do(req)
		if err != nil {
			return err
		}
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode <= 299:
			return nil
		case (resp.StatusCode == http.StatusTemporaryRedirect || resp.StatusCode == http.StatusPermanentRedirect) && redirects == 0:
			loc, err := resp.Location()
			if err != nil {
				return fmt.Errorf("hub %s redirected without a Location", hub)
			}
			hub = loc.String()
			continue
		}
		return fmt.Errorf("hub %s answered HTTP %d: %s", hub, resp.StatusCode, strings.TrimSpace(string(bytes.ToValidUTF8(msg, nil))))
	}
}

// serveVerification answers a hub's verification of intent (§5.3): the
// challenge, only for a request Dynamo sent for this callback and topic
// (§5.3.1), else 404. A denial (§5.2) is recorded.
func (s *Subscriber) serveVerification(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sub, err := s.cfg.Store.SubscriptionByToken(ctx, r.PathValue("token"))
	if errors.Is(err, dynamo.ErrNotFound) {
		plain(w, http.StatusNotFound, "no such subscription")
		return
	}
	if err != nil {
		s.cfg.Logger.Error("websub: read subscription", "err", err)
		plain(w, http.StatusServiceUnavailable, "subscription unreadable now")
		return
	}
	q := r.URL.Query()
	mode, topic, challenge := q.Get("hub.mode"), q.Get("hub.topic"), q.Get("hub.challenge")
	log := s.cfg.Logger.With("source", sub.SourceID, "hub", sub.Hub, "mode", mode)
	if topic != sub.Topic {
		s.cfg.Observer.Verification("subscriber", "failed")
		log.Warn("websub: verification for another topic refused", "topic", topic)
		plain(w, http.StatusNotFound, "not the topic of this subscription")
		return
	}
	now := s.cfg.Now()
	switch {
	case mode == "denied":
		sub.State, sub.LastError, sub.NextAction = dynamo.SubDenied, "denied by the hub: "+q.Get("hub.reason"), now.Add(24*time.Hour)
		log.Warn("websub: the hub denied the subscription", "reason", q.Get("hub.reason"))
		if err := s.cfg.Store.PutSubscription(ctx, sub); err != nil {
			log.Error("websub: store subscription", "err", err)
		}
		w.WriteHeader(http.StatusOK)
		return
	case mode == "subscribe" && (sub.State == dynamo.SubSubscribing || sub.State == dynamo.SubActive) && challenge != "":
		lease, err := strconv.ParseInt(q.Get("hub.lease_seconds"), 10, 64)
		if err != nil || lease <= 0 {
			s.cfg.Observer.Verification("subscriber", "failed")
			plain(w, http.StatusNotFound, "hub.lease_seconds must be a positive integer (§5.3)")
			return
		}
		lease = min(lease, 1<<31)
		sub.State, sub.LeaseSeconds, sub.LeaseEnds, sub.VerifiedAt = dynamo.SubActive, int(lease), now.Add(time.Duration(lease)*time.Second), now
		sub.Attempts, sub.LastError = 0, ""
		sub.NextAction = renewAt(sub)
		if err := s.cfg.Store.PutSubscription(ctx, sub); err != nil {
			log.Error("websub: store subscription", "err", err)
			plain(w, http.StatusServiceUnavailable, "subscription unwritable now")
			return
		}
		log.Info("websub: subscription verified", "lease_ends", sub.LeaseEnds)
	case mode == "unsubscribe" && sub.State == dynamo.SubUnsubscribing && challenge != "":
		if err := s.cfg.Store.DeleteSubscription(ctx, sub.SourceID); err != nil {
			log.Error("websub: delete subscription", "err", err)
			plain(w, http.StatusServiceUnavailable, "subscription unwritable now")
			return
		}
		log.Info("websub: unsubscription verified")
	default:
		s.cfg.Observer.Verification("subscriber", "failed")
		log.Warn("websub: verification Dynamo did not ask for refused", "state", sub.State)
		plain(w, http.StatusNotFound, "no pending %s for this callback", mode)
		return
	}
	s.cfg.Observer.Verification("subscriber", "ok")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	io.WriteString(w, challenge)
}

// servePush takes a content distribution (§7). It is accepted only for an
// active subscription, within the size a fetch accepts, and with a valid
// signature under the subscription's secret (§7.1.2); then the body goes
// through the poll path (Pusher.Push). A missing or wrong signature is
// refused with 403 and logged, and nothing is stored.
func (s *Subscriber) servePush(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sub, err := s.cfg.Store.SubscriptionByToken(ctx, r.PathValue("token"))
	if errors.Is(err, dynamo.ErrNotFound) {
		s.cfg.Observer.Push("unknown")
		plain(w, http.StatusGone, "no such subscription")
		return
	}
	if err != nil {
		s.cfg.Logger.Error("websub: read subscription", "err", err)
		plain(w, http.StatusServiceUnavailable, "subscription unreadable now")
		return
	}
	log := s.cfg.Logger.With("source", sub.SourceID, "hub", sub.Hub)
	if sub.State != dynamo.SubActive {
		s.cfg.Observer.Push("unknown")
		log.Warn("websub: push for a subscription that is not active refused", "state", sub.State)
		plain(w, http.StatusGone, "this subscription is not active")
		return
	}
	// Anyone may POST here and a body may have MaxBody bytes: the slot is
	// taken before the body is read (docs/WEBSUB.md, "Content
	// distribution").
	if s.cfg.Heavy != nil {
		release, err := s.cfg.Heavy.Enter(ctx)
		if err != nil {
			w.Header().Set("Retry-After", strconv.Itoa(s.cfg.Heavy.RetryAfter()))
			plain(w, http.StatusServiceUnavailable, "busy; retry shortly")
			return
		}
		defer release()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err != nil {
		s.cfg.Observer.Push("too_large")
		log.Warn("websub: push body refused", "err", err)
		plain(w, http.StatusRequestEntityTooLarge, "the body exceeds %d bytes", s.cfg.MaxBody)
		return
	}
	if err := Verify(sub.Secret, r.Header.Get(SignatureHeader), body); err != nil {
		s.cfg.Observer.Push("rejected_signature")
		log.Warn("websub: push with a missing or wrong signature rejected; nothing stored", "err", err, "remote", r.RemoteAddr)
		plain(w, http.StatusForbidden, "signature refused: %v", err)
		return
	}
	now := s.cfg.Now()
	out, err := s.cfg.Pusher.Push(ctx, sub.SourceID, body, r.Header.Get("Content-Type"), sub.Topic)
	if errors.Is(err, dynamo.ErrConflict) {
		w.Header().Set("Retry-After", "10")
		plain(w, http.StatusServiceUnavailable, "the source is being polled; retry shortly")
		return
	}
	if err != nil {
		s.cfg.Observer.Push("error")
		log.Warn("websub: push not recorded", "err", err)
		plain(w, http.StatusInternalServerError, "push not recorded")
		return
	}
	if err := s.cfg.Store.NotePush(ctx, sub.SourceID, now); err != nil {
		log.Warn("websub: count push", "err", err)
	}
	switch {
	case out.Status == dynamo.StatusError:
		s.cfg.Observer.Push("error")
		log.Warn("websub: pushed body unreadable", "err", out.Error)
	case out.Version > 0:
		s.cfg.Observer.Push("stored")
		log.Info("websub: push stored a version", "version", out.Version, "new_items", out.NewItems)
	default:
		s.cfg.Observer.Push("unchanged")
	}
	// §7: the 2xx acknowledges receipt, whatever reading found.
	w.WriteHeader(http.StatusNoContent)
}

// Subscriptions lists Dynamo's subscriptions to hubs, for the admin API.
func (s *Subscriber) Subscriptions(ctx context.Context) ([]dynamo.Subscription, error) {
	return s.cfg.Store.Subscriptions(ctx)
}
