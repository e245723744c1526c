package websub_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
	"github.com/dynamo-feeds/dynamo/websub"
)

// This file holds the test peers: a hub that follows the Recommendation's
// MUSTs step by step, for the subscriber's tests, and a subscriber, for the
// hub's. Both are real HTTP servers on loopback.

// hubSub is a subscription the test hub verified.
type hubSub struct {
	topic, callback, secret string
	lease                   int
}

// hubEvent is one thing the test hub did.
type hubEvent struct {
	mode, topic, callback string
	verified              bool // the callback echoed the challenge
	status                int  // the verification's HTTP status
	at                    time.Time
}

// testHub is a WebSub hub (§5.1–§5.3, §7): it answers a valid request 202,
// then verifies the intent with a random challenge and the lease it grants,
// and counts the subscription only when the callback echoes the challenge
// with a 2xx. publish delivers content signed with HMAC-SHA256.
type testHub struct {
	t      *testing.T
	srv    *httptest.Server
	lease  int // seconds granted
	client *http.Client

	mu     sync.Mutex
	subs   map[string]hubSub // by topic+" "+callback
	events chan hubEvent
	// hold, when set, keeps the verification of unsubscriptions waiting
	// until it is closed.
	hold chan struct{}
}

func newTestHub(t *testing.T, lease int) *testHub {
	h := &testHub{t: t, lease: lease, subs: map[string]hubSub{}, events: make(chan hubEvent, 64), client: &http.Client{
		Timeout:       5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *testHub) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		http.Error(w, "form bodies only, not "+ct, http.StatusBadRequest)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	mode, topic, callback, secret := r.PostForm.Get("hub.mode"), r.PostForm.Get("hub.topic"), r.PostForm.Get("hub.callback"), r.PostForm.Get("hub.secret")
	switch {
	case mode != "subscribe" && mode != "unsubscribe":
		http.Error(w, "bad hub.mode", http.StatusBadRequest)
		return
	case topic == "" || callback == "":
		http.Error(w, "hub.topic and hub.callback are required", http.StatusBadRequest)
		return
	case len(secret) >= 200:
		http.Error(w, "hub.secret too long", http.StatusBadRequest)
		return
	}
	if v := r.PostForm.Get("hub.lease_seconds"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n <= 0 {
			http.Error(w, "bad hub.lease_seconds", http.StatusBadRequest)
			return
		}
	}
	w.WriteHeader(http.StatusAccepted)
	go h.verify(mode, topic, callback, secret)
}

// verify is §5.3: GET the callback with the challenge; a 2xx echoing it
// confirms, and only then the state changes.
func (h *testHub) verify(mode, topic, callback, secret string) {
	challenge := randomHex()
	q := url.Values{"hub.mode": {mode}, "hub.topic": {topic}, "hub.challenge": {challenge}}
	if mode == "subscribe" {
		q.Set("hub.lease_seconds", strconv.Itoa(h.lease))
	}
	sep := "?"
	if strings.Contains(callback, "?") {
		sep = "&"
	}
	h.mu.Lock()
	hold := h.hold
	h.mu.Unlock()
	if hold != nil && mode == "unsubscribe" {
		<-hold
	}
	ev := hubEvent{mode: mode, topic: topic, callback: callback, at: time.Now()}
	resp, err := h.client.Get(callback + sep + q.Encode())
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ev.status = resp.StatusCode
		ev.verified = resp.StatusCode/100 == 2 && string(body) == challenge
	}
	if ev.verified {
		h.mu.Lock()
		if mode == "subscribe" {
			h.subs[topic+" "+callback] = hubSub{topic: topic, callback: callback, secret: secret, lease: h.lease}
		} else {
			delete(h.subs, topic+" "+callback)
		}
		h.mu.Unlock()
	}
	h.events <- ev
}

// deny sends a denial (§5.2) to every subscription of topic.
func (h *testHub) deny(topic, reason string) {
	h.t.Helper()
	for _, s := range h.subscriptions(topic) {
		q := url.Values{"hub.mode": {"denied"}, "hub.topic": {topic}, "hub.reason": {reason}}
		resp, err := h.client.Get(s.callback + "?" + q.Encode())
		if err != nil {
			h.t.Fatal(err)
		}
		resp.Body.Close()
	}
}

// patience is how long a test waits for what should come: a minute, far
// beyond what it takes on a quiet machine, so that only something that
// never comes fails a test, not a loaded machine (a 10 s wait once
// failed under -race at load 20-24 with every request arriving later).
const patience = time.Minute

// next waits for the hub's next verification.
func (h *testHub) next(t *testing.T) hubEvent {
	t.Helper()
	select {
	case ev := <-h.events:
		return ev
	case <-time.After(patience):
		t.Fatalf("the hub saw no request within %v", patience)
		return hubEvent{}
	}
}

func (h *testHub) subscriptions(topic string) []hubSub {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []hubSub
	for _, s := range h.subs {
		if s.topic == topic {
			out = append(out, s)
		}
	}
	return out
}

// publish delivers body to every subscriber of topic (§7), signed with
// sign(secret, body) (Sign when nil), and returns the answers' statuses.
func (h *testHub) publish(t *testing.T, topic, contentType string, body []byte, sign func(secret string, body []byte) string) []int {
	t.Helper()
	var statuses []int
	for _, s := range h.subscriptions(topic) {
		req, _ := http.NewRequest(http.MethodPost, s.callback, bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Link", websub.LinkHeader(h.srv.URL, topic))
		sig := ""
		switch {
		case sign != nil:
			sig = sign(s.secret, body)
		case s.secret != "":
			sig = websub.Sign(s.secret, body)
		}
		if sig != "" {
			req.Header.Set(websub.SignatureHeader, sig)
		}
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
	}
	return statuses
}

// delivery is one content distribution the test subscriber received.
type delivery struct {
	body        []byte
	contentType string
	link        string
	signature   string
	at          time.Time
}

// testSubscriber is a WebSub subscriber's callback (§5.3.1, §7): it echoes
// the challenge of the topics it wants (or a wrong one when told to), and
// records the deliveries it receives, answering each with status.
type testSubscriber struct {
	srv *httptest.Server

	mu           sync.Mutex
	wrongEcho    bool
	status       int // answer to deliveries; 0 means 204
	verification chan url.Values
	deliveries   chan delivery
}

func newTestSubscriber(t *testing.T) *testSubscriber {
	s := &testSubscriber{verification: make(chan url.Values, 64), deliveries: make(chan delivery, 4096)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *testSubscriber) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	wrong, status := s.wrongEcho, s.status
	s.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		s.verification <- q
		if wrong {
			io.WriteString(w, "not-"+q.Get("hub.challenge"))
			return
		}
		io.WriteString(w, q.Get("hub.challenge"))
	case http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		s.deliveries <- delivery{body: body, contentType: r.Header.Get("Content-Type"), link: r.Header.Get("Link"),
			signature: r.Header.Get(websub.SignatureHeader), at: time.Now()}
		if status == 0 {
			status = http.StatusNoContent
		}
		w.WriteHeader(status)
	}
}

func (s *testSubscriber) set(wrongEcho bool, status int) {
	s.mu.Lock()
	s.wrongEcho, s.status = wrongEcho, status
	s.mu.Unlock()
}

func (s *testSubscriber) nextVerification(t *testing.T) url.Values {
	t.Helper()
	select {
	case q := <-s.verification:
		return q
	case <-time.After(patience):
		t.Fatalf("no verification of intent within %v", patience)
		return nil
	}
}

func (s *testSubscriber) nextDelivery(t *testing.T, within time.Duration) delivery {
	t.Helper()
	select {
	case d := <-s.deliveries:
		return d
	case <-time.After(within):
		t.Fatalf("no delivery within %v", within)
		return delivery{}
	}
}

// noDelivery checks that nothing is delivered for a while.
func (s *testSubscriber) noDelivery(t *testing.T, wait time.Duration) {
	t.Helper()
	select {
	case d := <-s.deliveries:
		t.Fatalf("unexpected delivery of %d bytes", len(d.body))
	case <-time.After(wait):
	}
}

func randomHex() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// openStore opens a fresh embedded store.
func openStore(t testing.TB) dynamo.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// guardedClient is the client both roles use: the fetcher's guarded
// transport, loopback allowed as with --allow-private when allow is set,
// no redirects followed.
func guardedClient(allow bool) *http.Client {
	return &http.Client{
		Transport:     fetch.New(fetch.Options{AllowPrivate: allow}).Transport(),
		Timeout:       5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// logBuffer collects a logger's lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// counts is an Observer that counts, for the tests to read.
type counts struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *counts) add(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[key]++
}

func (c *counts) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *counts) Verification(role, outcome string) { c.add("verification " + role + " " + outcome) }
func (c *counts) Delivery(outcome string)           { c.add("delivery " + outcome) }
func (c *counts) Push(outcome string)               { c.add("push " + outcome) }

// eventually polls cond until it holds or patience runs out.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, patience)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
