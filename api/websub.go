package api

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/websub"
)

// The Server is the WebSub hub's view of Dynamo's feeds (websub.Topics): a
// topic is the canonical self URL of a feed under the public URL, that is
// every form of /resources, /resources/{rssId} and /aggregate.
var _ websub.Topics = (*Server)(nil)

// Render answers topic as a reader's GET would, through the same routes
// and rendering, so its ETag is the one readers see. It reads the latest
// state, never the cache (dynamo.WithLatestReads): the hub renders when
// the store reports a change, which the cache may not have dropped yet.
func (s *Server) Render(ctx context.Context, topic string) (websub.Content, error) {
	path, err := s.topicPath(topic)
	if err != nil {
		return websub.Content{}, err
	}
	req, err := http.NewRequestWithContext(dynamo.WithLatestReads(ctx), http.MethodGet, path, nil)
	if err != nil {
		return websub.Content{}, fmt.Errorf("topic %s: %w", topic, dynamo.ErrNotFound)
	}
	var w memoryWriter
	s.routes.ServeHTTP(&w, req)
	msg := strings.TrimSpace(w.body.String())
	switch w.status() {
	case http.StatusOK:
		return websub.Content{ContentType: w.header.Get("Content-Type"), ETag: w.header.Get("ETag"), Body: w.body.Bytes()}, nil
	case http.StatusNotFound:
		return websub.Content{}, fmt.Errorf("topic %s: %s: %w", topic, msg, dynamo.ErrNotFound)
	case http.StatusBadRequest:
		return websub.Content{}, fmt.Errorf("topic %s: %s: %w", topic, msg, dynamo.ErrInvalid)
	}
	return websub.Content{}, fmt.Errorf("topic %s: HTTP %d: %s", topic, w.status(), msg)
}

// Depends reports whether a change of source id may change topic: a
// collection's feeds depend on it alone, the collections listing and the
// aggregates on every source.
func (s *Server) Depends(topic, sourceID string) bool {
	path, err := s.topicPath(topic)
	if err != nil {
		return false
	}
	u, err := url.Parse(path)
	if err != nil {
		return false
	}
	if id, ok := strings.CutPrefix(u.EscapedPath(), "/resources/"); ok {
		id, err := url.PathUnescape(id)
		return err == nil && id == sourceID
	}
	return true
}

// topicPath is the path and query of topic under the public URL, when it
// names a feed.
func (s *Server) topicPath(topic string) (string, error) {
	rest, ok := strings.CutPrefix(topic, s.cfg.BaseURL)
	if s.cfg.BaseURL == "" || !ok {
		return "", fmt.Errorf("topic %s is not under %s: %w", topic, s.cfg.BaseURL, dynamo.ErrNotFound)
	}
	u, err := url.Parse(rest)
	if err != nil || u.Fragment != "" {
		return "", fmt.Errorf("topic %s is not a feed URL: %w", topic, dynamo.ErrNotFound)
	}
	p := u.EscapedPath()
	if p != "/resources" && p != "/aggregate" && !(strings.HasPrefix(p, "/resources/") && !strings.Contains(p[len("/resources/"):], "/")) {
		return "", fmt.Errorf("topic %s is not one of Dynamo's feeds (/resources, /resources/{rssId}, /aggregate): %w", topic, dynamo.ErrNotFound)
	}
	return rest, nil
}

// memoryWriter keeps an answer in memory.
type memoryWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (w *memoryWriter) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header
}

func (w *memoryWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *memoryWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

func (w *memoryWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// webSubState is GET /api/websub's answer.
type webSubState struct {
	// Hub is the hub Dynamo's feeds advertise, "" without one.
	Hub string `json:"hub_url"`
	// Subscriptions are Dynamo's subscriptions to its sources' hubs.
	Subscriptions []dynamo.Subscription `json:"subscriptions"`
	// Subscribers are the subscriptions to Dynamo's own feeds.
	Subscribers []dynamo.HubSubscription `json:"subscribers"`
}

// listWebSub answers GET /api/websub: the WebSub subscriptions both ways
// with their state (docs/WEBSUB.md). It needs the admin's rights: a
// subscriber's callback URL is its capability (WebSub §5.1.1).
func (s *Server) listWebSub(w http.ResponseWriter, r *http.Request) {
	subs, err := s.cfg.Store.Subscriptions(r.Context())
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	hubSubs, err := s.cfg.Store.HubSubscriptions(r.Context())
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	st := webSubState{Hub: s.cfg.Hub, Subscriptions: subs, Subscribers: hubSubs}
	if st.Subscriptions == nil {
		st.Subscriptions = []dynamo.Subscription{}
	}
	if st.Subscribers == nil {
		st.Subscribers = []dynamo.HubSubscription{}
	}
	writeJSON(w, http.StatusOK, st)
}
