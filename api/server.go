// Package api is Dynamo's HTTP interface (docs/API.md): the public feed
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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/auth"
	"github.com/dynamo-feeds/dynamo/httpcompress"
	"github.com/dynamo-feeds/dynamo/internal/allow"
	"github.com/dynamo-feeds/dynamo/internal/buildinfo"
	"github.com/dynamo-feeds/dynamo/limits"
	"github.com/dynamo-feeds/dynamo/metrics"
	"github.com/dynamo-feeds/dynamo/schema"
	"github.com/dynamo-feeds/dynamo/sources"
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

// Config is what New needs. Only Store is required.
type Config struct {
	Store dynamo.Store
	// Poller serves poll-now and the policy endpoints; without one (a
	// process running only the API) they answer 503.
	Poller Poller
	// Policies are the scheduling policy names a source may follow
	// (poller/policy.Names); when nil, the Poller's. A process without a
	// poller must pass them, or no source may name a policy.
	Policies []string
	// AdminToken, when set, is the bearer token that mutations need; when
	// empty, and BaseURL is empty too, mutations are accepted from local
	// clients only (auth.Access).
	AdminToken string
	// TrustedProxies are the networks of reverse proxies whose
	// X-Forwarded-* headers are believed (auth.Access.Proxies).
	TrustedProxies []netip.Prefix
	// Failures limits wrong admin tokens per client; nil gives the server
	// its own (auth.NewFailures). Share one with the web interface.
	Failures *auth.Failures
	// Resolve, when set, is called on a source about to be created, or
	// changed in its URL or kind, before it is stored (sources.Resolver).
	Resolve sources.Resolver
	// BaseURL is the public URL prefix of the service (e.g.
	// "https://feeds.example.org", `serve --public-url`), for the links
	// inside feeds; when empty it is taken from each request's Host. With
	// one set, every change needs AdminToken.
	BaseURL string
	// Hub, when set, is the WebSub hub (websub.Hub.URL) that every feed
	// advertises, with its canonical self URL, in the document and in a
	// Link header (docs/WEBSUB.md). It needs BaseURL.
	Hub string
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
	// XPathMemory bounds the memory of the document trees one XPath
	// request holds at once, as estimated from their size; 0 means
	// DefaultXPathMemory.
	XPathMemory int64
	// Heavy admits the expensive reads (XPath, searches, long archives,
	// the aggregate) a few at a time (limits.Gate); nil gives the server
	// its own, DefaultHeavyReads at once. Share one with the web
	// interface's searches.
	Heavy *limits.Gate
	// MaxAnswerBytes bounds one rendered answer; 0 means
	// DefaultMaxAnswerBytes.
	MaxAnswerBytes int64
	// RequestTimeout bounds the time a read may take; 0 means 30s.
	RequestTimeout time.Duration
	// Now is the clock for Cache-Control; nil means time.Now.
	Now func() time.Time
}

// Server answers Dynamo's HTTP interface. It is an http.Handler on its own;
// Mount registers its routes on a ServeMux shared with the web interface.
// Run keeps its cache coherent with the store.
type Server struct {
	cfg     Config
	handler http.Handler
	routes  http.Handler // the routes without the metrics, for the hub's renders
	cache   *cache
	log     *slog.Logger
	access  auth.Access
	sources *sources.Service
	started time.Time // dates the listings of a server without sources
}

// New builds the handler. Its cache stays off until Run is watching the
// store's changes.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("api: a store is required: %w", dynamo.ErrInvalid)
	}
	// A nil *poller.Poller put in the interface is no poller at all.
	if v := reflect.ValueOf(cfg.Poller); v.Kind() == reflect.Pointer && v.IsNil() {
		cfg.Poller = nil
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
	if cfg.XPathMemory <= 0 {
		cfg.XPathMemory = DefaultXPathMemory
	}
	if cfg.Heavy == nil {
		cfg.Heavy = DefaultHeavyGate()
	}
	if cfg.MaxAnswerBytes <= 0 {
		cfg.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Policies == nil && cfg.Poller != nil {
		cfg.Policies = cfg.Poller.Policies()
	}
	s := &Server{cfg: cfg, cache: newCache(max(cfg.CacheBytes, 0)), log: cfg.Logger,
		access: auth.Access{Token: cfg.AdminToken, PublicURL: cfg.BaseURL, Proxies: cfg.TrustedProxies, Failures: cfg.Failures, Log: cfg.Logger}}
	if s.access.Failures == nil {
		s.access.Failures = auth.NewFailures()
	}
	s.started = cfg.Now().UTC().Truncate(time.Second)
	s.sources = &sources.Service{Store: cfg.Store, Policies: cfg.Policies, Resolve: cfg.Resolve, Now: cfg.Now}
	if cfg.Hub != "" && cfg.BaseURL == "" {
		return nil, fmt.Errorf("api: a WebSub hub needs the public URL (BaseURL): %w", dynamo.ErrInvalid)
	}
	mux := http.NewServeMux()
	s.Mount(mux)
	s.routes = mux
	s.handler = cfg.Metrics.Observe(s.Cached(httpcompress.Handler(mux)))
	return s, nil
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Mount registers the API's routes on mux: the feeds, the admin API under
// /api/, /healthz and /metrics, and, for every other path, the API's
// plain-text 404 (or 405 when the path has routes for other methods).
// Requests are not observed or compressed: wrap mux in Metrics.Observe and
// httpcompress.Handler once, around whatever else it serves.
//
// The admin API has a file per resource: sources (sources.go, their OPML
// import and export in opml.go), the poller (poller.go), statistics
// (stats.go) and the playground's engine (wrap.go). Reads are open;
// changes need authorize (auth.go).
func (s *Server) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /resources", s.collections)
	mux.HandleFunc("GET /resources/{rssId}", s.resource)
	mux.HandleFunc("GET /aggregate", s.aggregate)
	mux.HandleFunc("GET "+feedXSLPath, serveFeedAsset("feed.xsl", "text/xsl; charset=utf-8"))
	mux.HandleFunc("GET "+feedCSSPath, serveFeedAsset("feed.css", "text/css; charset=utf-8"))
	MountProbes(mux, s.cfg.Store, s.cfg.Metrics, s.log)
	mux.HandleFunc("GET "+schema.XMLDataPath, serveSchema)

	mux.HandleFunc("GET /api/sources", s.listSources)
	mux.HandleFunc("GET /api/sources.opml", s.exportOPML)
	mux.HandleFunc("GET /api/sources/{id}", s.getSource)
	mux.HandleFunc("GET /api/poller", s.getPoller)
	mux.HandleFunc("GET /api/stats", s.stats)
	// Callback URLs are capabilities (WebSub §5.1.1): the admin's only.
	mux.Handle("GET /api/websub", s.authorize(s.listWebSub))
	// Every unsafe method is refused when a browser says another site
	// sent it. The playground's engine changes nothing, so anyone else may
	// use it.
	mux.Handle("POST /api/wrap", sameSite(http.HandlerFunc(s.wrap)))
	mux.Handle("POST /api/sources", sameSite(s.authorize(s.createSource)))
	mux.Handle("POST /api/sources/import", sameSite(s.authorize(s.importOPML)))
	mux.Handle("PATCH /api/sources/{id}", sameSite(s.authorize(s.changeSource)))
	mux.Handle("PUT /api/sources/{id}", sameSite(s.authorize(s.changeSource)))
	mux.Handle("DELETE /api/sources/{id}", sameSite(s.authorize(s.deleteSource)))
	mux.Handle("POST /api/sources/{id}/poll", sameSite(s.authorize(s.pollSource)))
	mux.Handle("PUT /api/poller", sameSite(s.authorize(s.putPoller)))

	adminMiss := unrouted(mux, func(w http.ResponseWriter, status int, msg string) { writeJSONError(w, status, "", msg) },
		"no such admin endpoint: see docs/API.md")
	mux.Handle("/api", adminMiss)
	mux.Handle("/api/", adminMiss)
	mux.Handle("/", unrouted(mux, writePlainError, "no such URL: see /resources for the feeds and /api/sources for the admin API"))
}

// serveSchema answers XMLData's schema, which every XMLData answer names.
// It changes only with the binary: a day's max-age, and its ETag.
func serveSchema(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("ETag", schemaETag)
	if etagMatches(r.Header.Get("If-None-Match"), schemaETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(schema.XMLData)
}

var schemaETag = func() string {
	sum := sha256.Sum256(schema.XMLData)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}()

// MountProbes registers what every role of `dynamo serve` answers, the
// poller-only one included: /healthz, 200 when the store answers and 503
// when it does not (the 200 says "ok" and, on a second line, the build:
// internal/buildinfo), and /metrics (404 with nil m).
func MountProbes(mux *http.ServeMux, store dynamo.Store, m *metrics.Metrics, log *slog.Logger) {
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if _, err := store.Setting(ctx, "healthz"); err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			log.Warn("api: health check: store unreachable", "err", err)
			writePlainError(w, http.StatusServiceUnavailable, "store unreachable")
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, "ok\ndynamo %s\n", buildinfo.Read())
	})
}

// unrouted answers a request that no route of mux matches: 405 with an
// Allow header when the path has routes for other methods (the rule of
// internal/allow, which the web pages share), else 404 with msg, both
// written by write.
func unrouted(mux *http.ServeMux, write func(w http.ResponseWriter, status int, msg string), msg string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if allow.Refuse(mux, w, r, func(status int, m string) { write(w, status, m) }) {
			return
		}
		write(w, http.StatusNotFound, msg)
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
