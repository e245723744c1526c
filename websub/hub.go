package websub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// HubPath is where Dynamo's hub takes subscription requests.
const HubPath = "/websub/hub"

// Content is a topic's representation, as a reader's GET gets it.
type Content struct {
	ContentType string
	ETag        string
	Body        []byte
}

// Topics is what the hub needs of the feeds it advertises.
type Topics interface {
	// Render answers topic (an absolute URL under the public URL) as a
	// reader's GET would; an error wrapping dynamo.ErrNotFound when it is
	// not a feed Dynamo serves.
	Render(ctx context.Context, topic string) (Content, error)
	// Depends reports whether topic's representation may change when
	// source id's archive or configuration changes.
	Depends(topic, sourceID string) bool
}

// Observer is told what the hub and the subscriber do, for metrics; every
// method must be safe for concurrent use. *metrics.Metrics implements it.
type Observer interface {
	// Verification counts a verification of intent, by role ("hub": Dynamo
	// verified a subscriber; "subscriber": a hub verified Dynamo) and
	// outcome ("ok", "failed").
	Verification(role, outcome string)
	// Delivery counts a content distribution attempt of the hub by outcome
	// ("ok", "retry", "given_up").
	Delivery(outcome string)
	// Push counts a content distribution received, by outcome ("stored",
	// "unchanged", "error", "rejected_signature", "too_large", "unknown").
	Push(outcome string)
}

// HubConfig is what NewHub needs. Zero fields take the defaults noted.
type HubConfig struct {
	Store  dynamo.Store // required
	Topics Topics       // required
	// PublicURL is Dynamo's public address: the hub is PublicURL+HubPath
	// and only topics under it are served. Required.
	PublicURL string
	// Client sends verifications and distributions; it must dial through
	// the fetcher's guard (fetch.Client.Transport) and follow no redirect
	// (a 3xx is a failure, §5.3.1 and §7). Required.
	Client *http.Client
	// AllowPrivate accepts callbacks on loopback and private addresses
	// (--allow-private); the dial guard must agree.
	AllowPrivate bool
	// Owner names this process in delivery leases; default host:pid.
	Owner string
	// MinLease, MaxLease and DefaultLease bound the lease granted (§5.3.1:
	// no perpetual lease; §8.2: 10 days is a good default). Defaults 1 h,
	// 30 days and 10 days.
	MinLease, MaxLease, DefaultLease time.Duration
	// MaxAttempts is how many times one delivery is tried before it is
	// given up (default 8); RetryBase the first retry's wait, doubled at
	// each attempt (default 30 s, so the last retry comes about an hour
	// after the first attempt); RetryMax caps one wait (default 1 h).
	MaxAttempts int
	RetryBase   time.Duration
	RetryMax    time.Duration
	// Workers is how many deliveries are under way at once (default 32).
	Workers int
	// PerCallbackHost and PerTopic limit subscription requests a minute,
	// per callback host and per topic (defaults 60 and 600).
	PerCallbackHost, PerTopic int
	// MaxBody bounds a subscription request's body (default 64 KiB).
	MaxBody int64
	// Tick is how often due retries and expired leases are looked at
	// (default 1 s).
	Tick     time.Duration
	Observer Observer
	Logger   *slog.Logger
	Now      func() time.Time
}

// Hub is Dynamo's WebSub hub for its own feeds.
type Hub struct {
	cfg      HubConfig
	hub      string // the hub's URL
	limits   *limiter
	wake     chan struct{}
	verifies chan func()
	rnd      *rand.Rand
	rndMu    sync.Mutex
	// latest is each subscribed topic's representation as last rendered
	// for a change: the deliveries it owes send it without rendering the
	// topic once per subscriber.
	latest sync.Map // topic → Content
	// outcomes carries the deliveries' results to record, which records
	// them together; slots holds a token for each delivery under way, and
	// a delivery's token is given back once its outcome is recorded, so
	// that the delivery loop's count of free workers is never ahead of
	// the store.
	outcomes chan dynamo.DeliveryResult
	slots    chan struct{}
}

// recordBatch bounds the delivery outcomes recorded in one write.
const recordBatch = 256

// NewHub checks cfg and returns a Hub; Run must run for it to verify and
// deliver.
func NewHub(cfg HubConfig) (*Hub, error) {
	if cfg.Store == nil || cfg.Topics == nil || cfg.Client == nil {
		return nil, fmt.Errorf("websub hub: a store, topics and a client are required: %w", dynamo.ErrInvalid)
	}
	base, err := publicBase(cfg.PublicURL)
	if err != nil {
		return nil, fmt.Errorf("websub hub: %w", err)
	}
	cfg.PublicURL = base
	if cfg.Owner == "" {
		host, _ := os.Hostname()
		cfg.Owner = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.MinLease, time.Hour)
	def(&cfg.MaxLease, 30*24*time.Hour)
	def(&cfg.DefaultLease, 10*24*time.Hour)
	def(&cfg.RetryBase, 30*time.Second)
	def(&cfg.RetryMax, time.Hour)
	def(&cfg.Tick, time.Second)
	if cfg.MinLease > cfg.MaxLease {
		return nil, fmt.Errorf("websub hub: the least lease %v exceeds the longest %v: %w", cfg.MinLease, cfg.MaxLease, dynamo.ErrInvalid)
	}
	cfg.DefaultLease = min(max(cfg.DefaultLease, cfg.MinLease), cfg.MaxLease)
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 8
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 32
	}
	if cfg.PerCallbackHost <= 0 {
		cfg.PerCallbackHost = 60
	}
	if cfg.PerTopic <= 0 {
		cfg.PerTopic = 600
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 64 << 10
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
	return &Hub{
		cfg:      cfg,
		hub:      base + HubPath,
		limits:   newLimiter(cfg.Now),
		wake:     make(chan struct{}, 1),
		verifies: make(chan func(), 256),
		outcomes: make(chan dynamo.DeliveryResult, cfg.Workers),
		slots:    make(chan struct{}, cfg.Workers),
		rnd:      rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x5eed)),
	}, nil
}

// URL is the hub's address, which every feed advertises.
func (h *Hub) URL() string { return h.hub }

// publicBase checks a public URL and returns it without a trailing slash.
func publicBase(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("public URL %q must be an absolute http or https URL without query: %w", raw, dynamo.ErrInvalid)
	}
	return strings.TrimRight(raw, "/"), nil
}

// Mount registers the hub's endpoint on mux.
func (h *Hub) Mount(mux *http.ServeMux) {
	mux.HandleFunc("POST "+HubPath, h.serveRequest)
}

// request is a validated subscription request (§5.1).
type request struct {
	mode     string // subscribe or unsubscribe
	topic    string
	callback string
	secret   string
	lease    time.Duration
}

// serveRequest takes a subscription or unsubscription request (§5.1): it
// validates it at once and answers 202, or 4xx with a plain-text reason
// (§5.1.2), then verifies the intent asynchronously (§5.3).
func (h *Hub) serveRequest(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, h.cfg.MaxBody)
	if err := r.ParseForm(); err != nil {
		plain(w, http.StatusBadRequest, "the request must be an application/x-www-form-urlencoded body of at most %d bytes: %v", h.cfg.MaxBody, err)
		return
	}
	req, status, err := h.validate(r.Context(), r.PostForm)
	if err != nil {
		plain(w, status, "%v", err)
		return
	}
	if !h.limits.allow("callback "+hostOf(req.callback), h.cfg.PerCallbackHost) || !h.limits.allow("topic "+req.topic, h.cfg.PerTopic) {
		w.Header().Set("Retry-After", "60")
		plain(w, http.StatusTooManyRequests, "too many subscription requests for this callback host or topic; retry in a minute")
		return
	}
	job := func() { h.verify(context.Background(), req) }
	select {
	case h.verifies <- job:
	default:
		w.Header().Set("Retry-After", "10")
		plain(w, http.StatusServiceUnavailable, "too many verifications under way; retry shortly")
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// validate checks a request's parameters (§5.1, §5.1.1): the mode, a topic
// that is one of Dynamo's feeds, a callback the hub may call, a secret
// under 200 bytes, and the lease within the operator's bounds. It returns
// the HTTP status of a refusal.
func (h *Hub) validate(ctx context.Context, form url.Values) (request, int, error) {
	req := request{mode: form.Get("hub.mode"), topic: form.Get("hub.topic"), callback: form.Get("hub.callback"), secret: form.Get("hub.secret")}
	switch req.mode {
	case "subscribe", "unsubscribe":
	case "publish":
		return req, http.StatusBadRequest, errors.New("hub.mode publish is not taken: Dynamo publishes its own feeds when they change")
	default:
		return req, http.StatusBadRequest, fmt.Errorf("hub.mode must be subscribe or unsubscribe, not %q", req.mode)
	}
	if len(req.secret) >= 200 {
		return req, http.StatusBadRequest, errors.New("hub.secret must be less than 200 bytes (§5.1)")
	}
	cb, err := url.Parse(req.callback)
	if err != nil || (cb.Scheme != "http" && cb.Scheme != "https") || cb.Host == "" {
		return req, http.StatusBadRequest, fmt.Errorf("hub.callback %q must be an absolute http or https URL", req.callback)
	}
	if cb.Fragment != "" {
		return req, http.StatusBadRequest, fmt.Errorf("hub.callback %q must not have a fragment", req.callback)
	}
	if !strings.HasPrefix(req.topic, h.cfg.PublicURL+"/") {
		return req, http.StatusNotFound, fmt.Errorf("hub.topic %q is not a feed of this hub's Dynamo (%s)", req.topic, h.cfg.PublicURL)
	}
	if req.mode == "subscribe" {
		if _, err := h.cfg.Topics.Render(ctx, req.topic); err != nil {
			if errors.Is(err, dynamo.ErrNotFound) || errors.Is(err, dynamo.ErrInvalid) {
				return req, http.StatusNotFound, fmt.Errorf("hub.topic %q: %v", req.topic, err)
			}
			return req, http.StatusServiceUnavailable, fmt.Errorf("hub.topic %q cannot be read now: %v", req.topic, err)
		}
	}
	req.lease = h.cfg.DefaultLease
	if v := form.Get("hub.lease_seconds"); v != "" && req.mode == "subscribe" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return req, http.StatusBadRequest, fmt.Errorf("hub.lease_seconds must be a positive integer, not %q", v)
		}
		req.lease = min(max(time.Duration(min(n, 1<<31))*time.Second, h.cfg.MinLease), h.cfg.MaxLease)
	}
	// Last, as it may resolve a name: the dial guard refuses the same
	// addresses later, this says why now.
	if !h.cfg.AllowPrivate {
		if err := checkHost(ctx, cb.Hostname()); err != nil {
			return req, http.StatusBadRequest, fmt.Errorf("hub.callback %q refused: %v", req.callback, err)
		}
	}
	return req, 0, nil
}

// verify checks the subscriber's intent (§5.3) and, when confirmed, applies
// the request: a subscription is stored with the topic's current ETag as
// delivered (what it has is the representation it subscribed to), an
// unsubscription removes it. A request that fails verification leaves the
// previous state unchanged (§5.1).
func (h *Hub) verify(ctx context.Context, req request) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	challenge := randomToken()
	q := url.Values{}
	q.Set("hub.mode", req.mode)
	q.Set("hub.topic", req.topic)
	q.Set("hub.challenge", challenge)
	if req.mode == "subscribe" {
		q.Set("hub.lease_seconds", strconv.FormatInt(int64(req.lease/time.Second), 10))
	}
	// §5.1.1: the callback's own query is kept and the parameters appended.
	target := req.callback
	if strings.Contains(target, "?") {
		target += "&" + q.Encode()
	} else {
		target += "?" + q.Encode()
	}
	log := h.cfg.Logger.With("mode", req.mode, "topic", req.topic, "callback", req.callback)
	err := h.challenge(ctx, target, challenge)
	if err != nil {
		h.cfg.Observer.Verification("hub", "failed")
		log.Warn("websub hub: verification of intent failed", "err", err)
		return
	}
	h.cfg.Observer.Verification("hub", "ok")
	if req.mode == "unsubscribe" {
		if err := h.cfg.Store.DeleteHubSubscription(ctx, req.topic, req.callback); err != nil {
			log.Error("websub hub: unsubscribe", "err", err)
		}
		return
	}
	content, err := h.cfg.Topics.Render(ctx, req.topic)
	if err != nil {
		log.Warn("websub hub: topic unreadable after verification", "err", err)
		return
	}
	now := h.cfg.Now()
	sub := &dynamo.HubSubscription{Topic: req.topic, Callback: req.callback, Secret: req.secret,
		LeaseSeconds: int(req.lease / time.Second), Expires: now.Add(req.lease), CreatedAt: now, VerifiedAt: now,
		DeliveredETag: content.ETag}
	if err := h.cfg.Store.PutHubSubscription(ctx, sub); err != nil {
		log.Error("websub hub: store subscription", "err", err)
		return
	}
	log.Info("websub hub: subscribed", "lease", req.lease)
}

// challenge sends the verification GET and checks the answer: a 2xx whose
// body is the challenge exactly (§5.3.1).
func (h *Hub) challenge(ctx context.Context, target, challenge string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	resp, err := h.cfg.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, int64(len(challenge))+1))
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return fmt.Errorf("the callback answered HTTP %d", resp.StatusCode)
	case string(body) != challenge:
		return errors.New("the callback did not echo the challenge")
	}
	return nil
}

// Run watches the store for changes, queues the deliveries they owe and
// delivers them, retries failures, and ends expired subscriptions, until
// ctx ends.
func (h *Hub) Run(ctx context.Context) error {
	changes, err := h.cfg.Store.WatchChanges(ctx)
	if err != nil {
		return fmt.Errorf("websub hub: watch changes: %w", err)
	}
	var wg sync.WaitGroup
	// Verifications, a few at once.
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case job := <-h.verifies:
					job()
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.queueChanges(ctx, changes)
	}()
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		h.record(context.WithoutCancel(ctx))
	}()
	h.deliverLoop(ctx)
	// Every delivery ended and sent its outcome: record the last ones.
	close(h.outcomes)
	<-recorded
	wg.Wait()
	return nil
}

// queueChanges turns changed sources into owed deliveries. Changes that
// arrive together are handled together, each topic rendered once.
func (h *Hub) queueChanges(ctx context.Context, changes <-chan dynamo.Change) {
	for {
		var ids map[string]bool
		select {
		case <-ctx.Done():
			return
		case c, ok := <-changes:
			if !ok {
				return
			}
			ids = map[string]bool{c.SourceID: true}
		}
	drain:
		for {
			select {
			case c, ok := <-changes:
				if !ok {
					break drain
				}
				ids[c.SourceID] = true
			default:
				break drain
			}
		}
		if err := h.queue(ctx, ids); err != nil && ctx.Err() == nil {
			h.cfg.Logger.Warn("websub hub: queue deliveries", "err", err)
		}
	}
}

// queue owes the subscribers of every topic that the changed sources may
// have changed the topic's current representation, when it differs from
// what they have. Every process does it for every change; the store
// queues each delivery once.
func (h *Hub) queue(ctx context.Context, changed map[string]bool) error {
	subs, err := h.cfg.Store.HubSubscriptions(ctx)
	if err != nil {
		return err
	}
	topics := map[string]bool{}
	for _, sub := range subs {
		if topics[sub.Topic] {
			continue
		}
		for id := range changed {
			if h.cfg.Topics.Depends(sub.Topic, id) {
				topics[sub.Topic] = true
				break
			}
		}
	}
	queued := 0
	for topic := range topics {
		c, err := h.cfg.Topics.Render(ctx, topic)
		if err != nil {
			h.cfg.Logger.Warn("websub hub: topic unreadable", "topic", topic, "err", err)
			continue
		}
		h.latest.Store(topic, c)
		n, err := h.cfg.Store.QueueDeliveries(ctx, topic, c.ETag, h.cfg.Now())
		if err != nil {
			return err
		}
		queued += n
	}
	if queued > 0 {
		h.nudge()
	}
	return nil
}

// nudge wakes the delivery loop.
func (h *Hub) nudge() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// deliverLoop leases due deliveries and makes them, Workers at a time.
func (h *Hub) deliverLoop(ctx context.Context) {
	ticker := time.NewTicker(h.cfg.Tick)
	defer ticker.Stop()
	var (
		wg           sync.WaitGroup
		slots        = h.slots
		leaseAtLeast = max(1, h.cfg.Workers/4)
		expired      time.Time
	)
	defer wg.Wait()
	for {
		now := h.cfg.Now()
		if now.Sub(expired) >= time.Minute {
			expired = now
			if n, err := h.cfg.Store.ExpireHubSubscriptions(ctx, now); err != nil && ctx.Err() == nil {
				h.cfg.Logger.Warn("websub hub: expire subscriptions", "err", err)
			} else if n > 0 {
				h.cfg.Logger.Info("websub hub: leases ended", "subscriptions", n)
			}
		}
		// Leasing is a write too: while deliveries are under way, more are
		// leased only once a quarter of the workers are free, so that a
		// fan-out leases in batches rather than one delivery a write.
		if free := cap(slots) - len(slots); (free >= leaseAtLeast || len(slots) == 0) && ctx.Err() == nil {
			due, err := h.cfg.Store.LeaseDeliveries(ctx, h.cfg.Owner, now, free, 2*time.Minute)
			if err != nil && ctx.Err() == nil {
				h.cfg.Logger.Warn("websub hub: lease deliveries", "err", err)
			}
			for _, sub := range due {
				slots <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					if res, ok := h.deliver(context.WithoutCancel(ctx), sub); ok {
						h.outcomes <- res // record gives the token back
						return
					}
					<-slots
					h.nudge()
				}()
			}
			if len(due) == free {
				continue // more may be due
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-h.wake: // a change queued, or outcomes recorded
		}
	}
}

// deliver sends the topic's current representation to one subscriber
// (§7), signed when it gave a secret (§7.1), and returns the outcome to
// record: a failure is retried with exponential back-off and jitter, and
// given up after MaxAttempts. A 410 ends the subscription, and leaves
// nothing to record (false).
func (h *Hub) deliver(ctx context.Context, sub dynamo.HubSubscription) (dynamo.DeliveryResult, bool) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	log := h.cfg.Logger.With("topic", sub.Topic, "callback", sub.Callback)
	res := dynamo.DeliveryResult{ID: sub.ID, Owner: h.cfg.Owner, Pending: sub.PendingETag}
	content, err := h.content(ctx, sub)
	if err == nil {
		var status int
		status, err = h.post(ctx, sub, content)
		if status == http.StatusGone {
			h.cfg.Observer.Delivery("ok")
			log.Info("websub hub: the subscriber answered 410 Gone; subscription ended")
			if err := h.cfg.Store.DeleteHubSubscription(ctx, sub.Topic, sub.Callback); err != nil {
				log.Error("websub hub: end subscription", "err", err)
			}
			return res, false
		}
	}
	res.At = h.cfg.Now()
	switch {
	case err == nil:
		res.Delivered = content.ETag
		h.cfg.Observer.Delivery("ok")
	case sub.Attempts+1 >= h.cfg.MaxAttempts:
		res.Err = fmt.Sprintf("given up after %d attempts: %v", sub.Attempts+1, err)
		h.cfg.Observer.Delivery("given_up")
		log.Warn("websub hub: delivery given up", "attempts", sub.Attempts+1, "err", err)
	default:
		res.Err = err.Error()
		res.Retry = res.At.Add(h.backoff(sub.Attempts))
		h.cfg.Observer.Delivery("retry")
		log.Info("websub hub: delivery failed; will retry", "attempt", sub.Attempts+1, "retry", res.Retry, "err", err)
	}
	return res, true
}

// record writes the deliveries' outcomes as they come, together: while one
// write is under way the outcomes that follow gather, and the next write
// records them all, so that a fan-out to many subscribers costs a few
// writes rather than one each. An outcome is recorded only after its
// delivery was made, so a process that stops in between leaves the
// delivery leased until the lease ends, and then it is made again (at
// least once, as WebSub §7 expects subscribers to tolerate).
func (h *Hub) record(ctx context.Context) {
	var held *dynamo.DeliveryResult // the next batch's first
	for {
		batch := make([]dynamo.DeliveryResult, 0, recordBatch)
		if held != nil {
			batch, held = append(batch, *held), nil
		} else {
			res, ok := <-h.outcomes
			if !ok {
				return
			}
			batch = append(batch, res)
		}
		ids := map[int64]bool{batch[0].ID: true}
	gather:
		for len(batch) < recordBatch {
			select {
			case res, ok := <-h.outcomes:
				if !ok {
					break gather
				}
				if ids[res.ID] {
					// One write records one outcome a subscription.
					held = &res
					break gather
				}
				ids[res.ID] = true
				batch = append(batch, res)
			default:
				break gather
			}
		}
		lost, err := h.cfg.Store.FinishDeliveries(ctx, batch)
		// The deliveries are released and their workers free: more may be
		// leased, a change owed meanwhile to these subscribers among them.
		for range batch {
			<-h.slots
		}
		h.nudge()
		if err != nil {
			h.cfg.Logger.Error("websub hub: record deliveries; they will be made again when their leases end", "deliveries", len(batch), "err", err)
			continue
		}
		if len(lost) > 0 {
			h.cfg.Logger.Warn("websub hub: deliveries not recorded: their leases ended and another process took them over", "subscriptions", lost)
		}
	}
}

// content is what a delivery to sub sends: the representation rendered
// for the change it is owed when this process has it, else the topic's
// current one.
func (h *Hub) content(ctx context.Context, sub dynamo.HubSubscription) (Content, error) {
	if c, ok := h.latest.Load(sub.Topic); ok && c.(Content).ETag == sub.PendingETag {
		return c.(Content), nil
	}
	return h.cfg.Topics.Render(ctx, sub.Topic)
}

// backoff is the wait after the attempt-th failure (0 for the first):
// RetryBase doubled each time, capped at RetryMax, less up to a fifth at
// random so that a subscriber that failed for many topics is not hit by
// all their retries at once.
func (h *Hub) backoff(attempt int) time.Duration {
	d := h.cfg.RetryBase << min(attempt, 30)
	if d <= 0 || d > h.cfg.RetryMax {
		d = h.cfg.RetryMax
	}
	h.rndMu.Lock()
	defer h.rndMu.Unlock()
	return d - time.Duration(h.rnd.Int64N(int64(d)/5+1))
}

// post makes one content distribution request (§7): the topic's full
// representation with its Content-Type, the hub and self Link headers, and
// the signature.
func (h *Hub) post(ctx context.Context, sub dynamo.HubSubscription, c Content) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.Callback, bytes.NewReader(c.Body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", c.ContentType)
	req.Header.Set("Link", LinkHeader(h.hub, sub.Topic))
	if sub.Secret != "" {
		req.Header.Set(SignatureHeader, Sign(sub.Secret, c.Body))
	}
	resp, err := h.cfg.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // the answer is ignored (§7); a short one keeps the connection
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("the callback answered HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// LinkHeader is the Link header value that advertises a topic's hub and
// canonical self URL, combined in one header as §7 advises.
func LinkHeader(hub, self string) string {
	return fmt.Sprintf(`<%s>; rel="hub", <%s>; rel="self"`, hub, self)
}

// Subscriptions lists the hub's subscriptions, for the admin API.
func (h *Hub) Subscriptions(ctx context.Context) ([]dynamo.HubSubscription, error) {
	return h.cfg.Store.HubSubscriptions(ctx)
}

// plain writes a plain-text answer (§5.1.2: errors as plain text).
func plain(w http.ResponseWriter, status int, format string, args ...any) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintf(w, format+"\n", args...)
}

// hostOf is a URL's host, or the URL itself when it has none.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
		return strings.ToLower(u.Hostname())
	}
	return raw
}

type nopObserver struct{}

func (nopObserver) Verification(string, string) {}
func (nopObserver) Delivery(string)             {}
func (nopObserver) Push(string)                 {}
