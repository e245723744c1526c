// Package api is Dynamo's HTTP interface (SPEC §5, §8): the public feed
// URLs that readers and query clients use (/resources, /aggregate), the
// admin API under /api, /healthz and /metrics.
//
// Feeds are rendered from the store on demand and kept in a cache of
// rendered answers, keyed by the request in a normal form and bounded in
// bytes. The cache is dropped per source when the store reports a change
// (Store.WatchChanges, which spans every process sharing a database), so it
// is only used while Server.Run is watching. docs/API.md documents every
// endpoint and the decisions the specification leaves open.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/metrics"
)

// Poller is what the admin API needs of the poller: polling a source now
// and switching the scheduling policy at run time.
type Poller interface {
	// PollNow polls a source at once and returns the outcome;
	// dynamo.ErrNotFound for an unknown source, dynamo.ErrConflict or
	// dynamo.ErrLeaseLost when another poller holds it.
	PollNow(ctx context.Context, sourceID string) (dynamo.PollOutcome, error)
	// Policy is the global scheduling policy's name.
	Policy() string
	// SetPolicy switches the global policy; an unknown name is an error
	// wrapping dynamo.ErrInvalid.
	SetPolicy(ctx context.Context, name string) error
	// Policies lists the policy names SetPolicy accepts.
	Policies() []string
}

// Resolver resolves kind "auto" on a source about to be stored (SPEC §5,
// §9): an annotated page becomes html, a feed becomes feed, and any other
// page is searched for its feed, which src then polls. It returns the
// discovery that chose the feed, so the answer can list the other
// candidates, or nil when the URL needed none. An error wrapping
// ErrUnresolvable (nothing to poll was found) answers 422 with what was
// tried; one wrapping dynamo.ErrInvalid (the URL cannot be read) 400.
type Resolver func(ctx context.Context, src *dynamo.Source) (*discovery.Result, error)

// ErrUnresolvable is what a Resolver wraps when a URL is neither an
// annotated page nor a feed and discovery found no feed on it.
var ErrUnresolvable = errors.New("nothing to poll")

// Config is what New needs. Only Store is required.
type Config struct {
	Store dynamo.Store
	// Poller serves poll-now and the policy endpoints; without one (a
	// process running only the API) they answer 503.
	Poller Poller
	// AdminToken, when set, is the bearer token that mutations need; when
	// empty, mutations are accepted from loopback clients only.
	AdminToken string
	// Resolve, when set, is called on a source about to be created, or
	// changed in its URL or kind, before it is stored (see Resolver).
	Resolve Resolver
	// BaseURL is the public URL prefix of the service (e.g.
	// "https://feeds.example.org"), for the links inside feeds; when empty
	// it is taken from each request's Host.
	BaseURL string
	// Metrics records requests and cache lookups and is served at
	// /metrics; nil records nothing and /metrics answers 404.
	Metrics *metrics.Metrics
	// Logger receives server-side failures; nil discards them.
	Logger *slog.Logger
	// CacheBytes bounds the cache of rendered answers; 0 means 64 MiB and
	// a negative value turns the cache off.
	CacheBytes int64
	// XPathBudget bounds one request's XPath evaluation (see
	// DefaultXPathBudget, the default).
	XPathBudget int64
	// RequestTimeout bounds the time a read may take; 0 means 30s.
	RequestTimeout time.Duration
	// Now is the clock for Cache-Control; nil means time.Now.
	Now func() time.Time
}

// Server answers Dynamo's HTTP interface. It is an http.Handler; Run keeps
// its cache coherent with the store.
type Server struct {
	cfg    Config
	router chi.Router
	cache  *cache
	log    *slog.Logger
}

// New builds the handler. Its cache stays off until Run is watching the
// store's changes.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("api: a store is required: %w", dynamo.ErrInvalid)
	}
	if cfg.BaseURL != "" {
		if err := checkBaseURL(cfg.BaseURL); err != nil {
			return nil, err
		}
		cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.CacheBytes == 0 {
		cfg.CacheBytes = 64 << 20
	}
	if cfg.XPathBudget <= 0 {
		cfg.XPathBudget = DefaultXPathBudget
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, cache: newCache(max(cfg.CacheBytes, 0)), log: cfg.Logger}
	s.router = s.routes()
	return s, nil
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(s.observe, middleware.GetHead)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writePlainError(w, http.StatusNotFound, "no such URL: see /resources for the feeds and /api/sources for the admin API")
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writePlainError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	r.Get("/resources", s.collections)
	r.Get("/resources/{rssId}", s.resource)
	r.Get("/aggregate", s.aggregate)
	r.Get("/healthz", s.healthz)
	r.Method(http.MethodGet, "/metrics", s.cfg.Metrics.Handler())
	r.Route("/api", s.adminRoutes)
	return r
}

// observe records each request's route pattern, status and time.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		s.cfg.Metrics.ObserveRequest(route, status, time.Since(start))
	})
}

// Run watches the store's changes and drops the cached answers they make
// stale, until ctx ends. The cache is on only while the watch is up: when
// the store's change feed breaks, the cache is emptied and turned off, and
// Run subscribes again after a pause. Run returns ctx's error.
func (s *Server) Run(ctx context.Context) error {
	if s.cfg.CacheBytes < 0 {
		<-ctx.Done()
		return ctx.Err()
	}
	pause := time.Second
	for {
		err := s.watch(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.log.Warn("api: watching store changes stopped; cache off until it resumes", "err", err, "retry_in", pause)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 30*time.Second)
	}
}

// watch holds one subscription to the store's changes.
func (s *Server) watch(ctx context.Context) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes, err := s.cfg.Store.WatchChanges(wctx)
	if err != nil {
		return fmt.Errorf("watch changes: %w", err)
	}
	s.cache.setEnabled(true)
	defer s.cache.setEnabled(false)
	for c := range changes {
		s.cache.invalidate(c.SourceID)
	}
	return errors.New("the store closed its change feed")
}

// healthz answers 200 when the store answers, 503 when it does not.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if _, err := s.cfg.Store.Setting(ctx, "healthz"); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		s.log.Warn("api: health check: store unreachable", "err", err)
		writePlainError(w, http.StatusServiceUnavailable, "store unreachable")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, "ok")
}
