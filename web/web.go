// Package web is Dynamo's web interface (docs/WEB.md): HTML pages, served by
// the same binary under /ui/, for the two kinds of people who look at Dynamo
// in a browser. Operators see every source with its state and act on it
// (poll now, change its policy, pause it); a source's page shows its version
// timeline, its archive, links to subscribe and server-side SVG charts of its
// posting rate and its polls. Webmasters use the annotation playground to see
// what Dynamo extracts from a page and what is wrong with its annotations
// before they deploy them, and anyone can search a collection's archive and
// take away the equivalent feed URL.
//
// The pages need no JavaScript and load nothing from elsewhere: templates,
// style sheet and example pages are embedded. Everything that comes from a
// source is escaped by html/template (descriptions are shown as plain text),
// and a Content-Security-Policy that allows no script at all backs that up.
// docs/WEB.md describes the pages, the authorization of actions and the
// decisions taken where the specification is silent.
package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/auth"
	"github.com/dynamo-feeds/dynamo/internal/allow"
	"github.com/dynamo-feeds/dynamo/limits"
	"github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/sanitize"
	"github.com/dynamo-feeds/dynamo/sources"
)

// Prefix is the path under which the pages are served; "/" redirects to it.
const Prefix = "/ui/"

// Poller is what the actions need of the poller: polling a source now and
// switching the global scheduling policy. *poller.Poller implements it.
type Poller interface {
	// PollNow polls a source at once and returns the outcome;
	// dynamo.ErrNotFound for an unknown source, dynamo.ErrConflict or
	// dynamo.ErrLeaseLost when another poller holds it.
	PollNow(ctx context.Context, sourceID string) (dynamo.PollOutcome, error)
	// Policy is the global scheduling policy's name.
	Policy() string
	// SetPolicy switches the global policy of every poller on the store.
	SetPolicy(ctx context.Context, name string) error
	// Policies lists the policy names a source or the poller may follow.
	Policies() []string
}

// FetchFunc retrieves a page for the playground's URL form. It must refuse
// what the poller refuses (private addresses, oversized bodies): the lead
// wires the poller's guarded client. It returns the body, its Content-Type
// and the URL it was finally read from, after redirects.
type FetchFunc func(ctx context.Context, url string) (body []byte, contentType, finalURL string, err error)

// FetchFrom adapts the poller's fetcher (*fetch.Client, whose guard
// refuses private addresses and whose caps bound the body) to FetchFunc.
func FetchFrom(f interface {
	Get(ctx context.Context, req fetch.Request) (*fetch.Response, error)
}) FetchFunc {
	return func(ctx context.Context, url string) ([]byte, string, string, error) {
		resp, err := f.Get(ctx, fetch.Request{URL: url})
		if err != nil {
			return nil, "", "", err
		}
		return resp.Body, resp.ContentType, resp.URL, nil
	}
}

// Config is what New needs. Only Store is required.
type Config struct {
	Store dynamo.Store
	// Poller serves "poll now" and the global policy; nil in a process
	// that runs only the HTTP interface, where those actions say so.
	Poller Poller
	// Policies are the scheduling policy names a source may follow
	// (poller/policy.Names); when nil, the Poller's. A process without a
	// poller must pass them, or no source may name a policy.
	Policies []string
	// Resolve, when set, resolves kind auto on a source registered or
	// changed through the forms (sources.Resolver).
	Resolve sources.Resolver
	// AdminToken, when set, is what actions need (from a header, the
	// login form's cookie or a form field); when empty, actions are
	// accepted from loopback clients only, as in the admin API.
	AdminToken string
	// PublicURL is the canonical origin Dynamo is reached at (`serve
	// --public-url`); with one set, actions need AdminToken, and cookies are
	// Secure when it is https.
	PublicURL string
	// TrustedProxies are the networks of reverse proxies whose
	// X-Forwarded-* headers are believed (auth.Access.Proxies).
	TrustedProxies []netip.Prefix
	// Failures limits wrong admin tokens per client; nil gives the
	// interface its own (auth.NewFailures). Share one with the API.
	Failures *auth.Failures
	// DisplayTimezone is the zone the pages show times in for a viewer who
	// chose none (dynamo serve --display-timezone); nil means UTC.
	DisplayTimezone *time.Location
	// Heavy admits searches a few at a time, shared with the API's
	// expensive reads (api.Config.Heavy); nil admits every search.
	Heavy *limits.Gate
	// Fetch serves the playground's URL form; nil turns that form off.
	Fetch FetchFunc
	// Logger receives server-side failures; nil discards them.
	Logger *slog.Logger
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Server serves the pages. It is an http.Handler on its own; Mount
// registers its routes on a ServeMux shared with the API.
type Server struct {
	cfg     Config
	log     *slog.Logger
	pages   map[string]*template.Template
	mux     *http.ServeMux
	sources *sources.Service
	// csrfKey signs the forms' anti-forgery tokens. It is derived from the
	// admin token when there is one, so that every process sharing the
	// token accepts the forms of the others.
	csrfKey []byte
	access  auth.Access
	// displayZone is Config.DisplayTimezone, UTC when unset.
	displayZone *time.Location
}

// New builds the web interface. Served on its own it answers "/" (a
// redirect to Prefix), "/ui" and everything under Prefix, and gives any
// other path a 404 page; mounted beside the API (Mount), it answers only
// those paths.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("web: a store is required: %w", dynamo.ErrInvalid)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	// A nil *poller.Poller put in the interface is no poller at all.
	if v := reflect.ValueOf(cfg.Poller); v.Kind() == reflect.Pointer && v.IsNil() {
		cfg.Poller = nil
	}
	if cfg.Policies == nil && cfg.Poller != nil {
		cfg.Policies = cfg.Poller.Policies()
	}
	pages, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	h := &Server{cfg: cfg, log: cfg.Logger, pages: pages,
		access: auth.Access{Token: cfg.AdminToken, PublicURL: cfg.PublicURL, Proxies: cfg.TrustedProxies, Failures: cfg.Failures, Log: cfg.Logger}}
	if h.access.Failures == nil {
		h.access.Failures = auth.NewFailures()
	}
	h.sources = &sources.Service{Store: cfg.Store, Policies: cfg.Policies, Resolve: cfg.Resolve}
	h.displayZone = cfg.DisplayTimezone
	if h.displayZone == nil {
		h.displayZone = time.UTC
	}
	h.csrfKey = csrfKey(cfg.AdminToken)
	if h.csrfKey == nil {
		h.csrfKey = make([]byte, 32)
		rand.Read(h.csrfKey) // never fails (crypto/rand)
	}
	h.mux = http.NewServeMux()
	h.Mount(h.mux)
	h.mux.Handle("/", h.page(h.unrouted(h.mux)))
	return h, nil
}

// Mount registers the pages' routes on mux: "/" (a redirect to Prefix),
// "/ui" and everything under Prefix, where a path with no page gets the
// 404 page.
func (h *Server) Mount(mux *http.ServeMux) {
	static, err := fs.Sub(staticFS, "static")
	if err != nil { // the directory is embedded above
		panic(err)
	}
	handle := func(pattern string, page http.HandlerFunc) { mux.Handle(pattern, h.page(page)) }
	handle("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix, http.StatusFound)
	})
	handle("GET /ui", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
	})
	mux.Handle("GET /ui/static/", h.page(http.StripPrefix("/ui/static/", staticHandler(static)).ServeHTTP))
	handle("GET /ui/{$}", h.sourcesPage)
	handle("GET /ui/sources/{id}", h.sourcePage)
	handle("POST /ui/sources/{id}/poll", h.action(h.pollAction))
	handle("POST /ui/sources/{id}/policy", h.action(h.policyAction))
	handle("POST /ui/sources/{id}/pause", h.action(h.pauseAction))
	handle("POST /ui/sources/{id}/settings", h.action(h.settingsAction))
	handle("POST /ui/sources", h.action(h.createAction))
	handle("GET /ui/add", h.addPage)
	handle("POST /ui/add", h.action(h.previewAction))
	handle("GET /ui/sources/{id}/edit", h.editPage)
	handle("POST /ui/sources/{id}/delete", h.action(h.deleteAction))
	handle("GET /ui/categories", h.categoriesPage)
	handle("GET /ui/opml", h.opmlPage)
	handle("POST /ui/opml", h.upload(h.importAction))
	handle("POST /ui/policy", h.action(h.globalPolicyAction))
	handle("GET /ui/playground", h.playgroundPage)
	handle("POST /ui/playground", h.playgroundPage)
	handle("GET /ui/search", h.searchPage)
	handle("POST /ui/timezone", h.zoneAction)
	handle("GET /ui/login", h.loginPage)
	handle("POST /ui/login", h.loginSubmit)
	handle("POST /ui/logout", h.logout)
	handle("/ui/", h.unrouted(mux))
}

// unrouted answers a request no route of mux matches: the error page with
// 405 and an Allow header when the path has routes for other methods (the
// rule of internal/allow, which the API shares; GET of a form's action, say),
// else the 404 page.
func (h *Server) unrouted(mux *http.ServeMux) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if allow.Refuse(mux, w, r, func(status int, msg string) { h.fail(w, r, status, msg+".") }) {
			return
		}
		h.fail(w, r, http.StatusNotFound, "There is no page here. The sources are listed at /ui/.")
	}
}

// ServeHTTP answers one request.
func (h *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// page wraps every page with headers that keep any markup that slipped
// through from running (no script may run on these pages at all), and
// refuses form posts that a browser reports as coming from another site.
func (h *Server) page(next http.HandlerFunc) http.Handler {
	protected := crossOrigin.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Frame-Options", "DENY")
		protected.ServeHTTP(w, r)
	})
}

// crossOrigin refuses form posts that a browser reports as coming from
// another site, before the forms' own tokens are even looked at.
var crossOrigin = http.NewCrossOriginProtection()

// staticHandler serves the embedded assets, cacheable for a day: they
// change only with the binary.
func staticHandler(static fs.FS) http.Handler {
	files := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		files.ServeHTTP(w, r)
	})
}

// view is what every page's template receives.
type view struct {
	Title   string
	Section string // the navigation entry to mark as current
	CSRF    string // the anti-forgery token for the page's forms
	Auth    authView
	Flash   string // the outcome of the action that led here
	Data    any    // the page's own data
	// Zone is the viewer's time zone (times are shown in it), Zones the
	// names the zone form offers, Here the page's own path, to come back to.
	Zone  *time.Location
	Zones []string
	Here  string
	// Alternates are the feeds the page announces to readers
	// (<link rel="alternate">).
	Alternates []alternate
}

// alternate is one feed a page announces.
type alternate struct {
	Type, Title, Href string
}

// feedAlternates announces a feed in every format: what is its title, and
// href the feed's URL in format typ.
func feedAlternates(what string, href func(typ string) string) []alternate {
	var out []alternate
	for _, f := range feedFormats() {
		ct, _, _ := strings.Cut(f.ContentType(), ";")
		out = append(out, alternate{Type: ct, Title: what + " (" + formatLabel(f) + ")", Href: href(string(f))})
	}
	return out
}

// render executes a page's template into a buffer first, so that a
// template failure answers a clean 500 rather than half a page.
func (h *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	v.CSRF = h.csrfToken(w, r)
	v.Zone, v.Zones, v.Here = h.zone(r), commonZones, r.URL.RequestURI()
	v.Auth = h.authView(r)
	if v.Flash == "" {
		v.Flash = takeFlash(w, r)
	}
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		h.log.Error("web: render", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	// No bidi override from a source's text may reverse the page around
	// it; the templates themselves have none.
	w.Write(sanitize.WithoutBidi(buf.Bytes()))
}

// fail answers an error page with a message for the user.
func (h *Server) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, r, status, "error.html", view{Title: http.StatusText(status), Data: msg})
}

// storeFailed logs a store error and answers 500 without its details.
func (h *Server) storeFailed(w http.ResponseWriter, r *http.Request, what string, err error) {
	h.log.Error("web: store", "what", what, "err", err)
	h.fail(w, r, http.StatusInternalServerError, "The store did not answer ("+what+"). Try again in a moment.")
}

// timeout bounds the store reads of one page.
const timeout = 20 * time.Second
