package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/transform"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// Bounds on admin requests.
const (
	MaxJSONBody  = 64 << 10 // bytes of a JSON request body
	MaxWrapBody  = 5 << 20  // bytes of a page sent to /api/wrap
	MinInterval  = 10 * time.Second
	MaxInterval  = 30 * 24 * time.Hour
	DefaultPolls = 20 // recent polls shown with a source
)

// DefaultInterval is the interval of a source registered without one.
const DefaultInterval = dynamo.Duration(time.Hour)

// validID is what a source id may be: it is a path segment of every feed
// URL, so it is kept to characters that need no escaping.
var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func (s *Server) adminRoutes(r chi.Router) {
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusNotFound, "", "no such admin endpoint: see docs/API.md")
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusMethodNotAllowed, "", fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	r.Get("/sources", s.listSources)
	r.Get("/sources.opml", s.exportOPML)
	r.Get("/sources/{id}", s.getSource)
	r.Get("/poller", s.getPoller)
	r.Get("/stats", s.stats)
	// The playground's engine changes nothing, so anyone may use it.
	r.Post("/wrap", s.wrap)
	r.Group(func(r chi.Router) {
		r.Use(s.authorize)
		r.Post("/sources", s.createSource)
		r.Post("/sources/import", s.importOPML)
		r.Patch("/sources/{id}", s.changeSource)
		r.Put("/sources/{id}", s.changeSource)
		r.Delete("/sources/{id}", s.deleteSource)
		r.Post("/sources/{id}/poll", s.pollSource)
		r.Put("/poller", s.putPoller)
	})
}

// authorize lets a mutation through with the configured bearer token, or,
// when none is configured, from a loopback client. The client address is
// the connection's, never a forwarding header, which anyone can write.
func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.AdminToken == "" {
			if !loopback(r.RemoteAddr) {
				writeJSONError(w, http.StatusForbidden, "", "no admin token is configured (DYNAMO_ADMIN_TOKEN), so changes are accepted from loopback clients only")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		// Comparing digests keeps the comparison's time independent of
		// the token's length as well as its content.
		got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(s.cfg.AdminToken))
		if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="dynamo"`)
			writeJSONError(w, http.StatusUnauthorized, "", "this change needs Authorization: Bearer <the admin token>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func loopback(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

// writeJSON sends v as the JSON answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// writeAdminError answers a failed admin request in JSON.
func (s *Server) writeAdminError(w http.ResponseWriter, r *http.Request, err error) {
	var status int
	var param, msg string
	switch {
	case errors.Is(err, dynamo.ErrConflict), errors.Is(err, dynamo.ErrLeaseLost):
		status, msg = http.StatusConflict, err.Error()
	case errors.Is(err, ErrUnresolvable):
		status, msg = http.StatusUnprocessableEntity, err.Error()
	case errors.Is(err, dynamo.ErrInvalid):
		status, msg = http.StatusBadRequest, err.Error()
	default:
		status, param, msg = s.classify(r, err)
	}
	writeJSONError(w, status, param, msg)
}

// invalid is a client error in a request body, shown as it is.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", dynamo.ErrInvalid, fmt.Sprintf(format, args...))
}

// decodeJSON reads exactly one JSON object into v, refusing unknown fields,
// trailing data and bodies over MaxJSONBody.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	// Only a JSON type: a page on another site can make a browser send a
	// form, text/plain or untyped body without asking (no CORS preflight),
	// and with no token configured that browser may be the operator's.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return invalid("the body must be JSON, sent with Content-Type: application/json (got %q)", r.Header.Get("Content-Type"))
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxJSONBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return invalid("the body must be at most %d bytes", MaxJSONBody)
		}
		return invalid("the body is not a valid JSON object for this request: %v", err)
	}
	if dec.More() {
		return invalid("the body must hold one JSON object and nothing after it")
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid("the body must hold one JSON object and nothing after it")
	}
	return nil
}

// sourceFields is the JSON a client sends to create or change a source.
// Pointers tell absent fields from zero values, for PATCH.
type sourceFields struct {
	ID          *string          `json:"id"`
	URL         *string          `json:"url"`
	Kind        *string          `json:"kind"`
	Interval    *dynamo.Duration `json:"interval"`
	Policy      *string          `json:"policy"`
	Category    *string          `json:"category"`
	TitlePrefix *string          `json:"title_prefix"`
	Subscribers *int             `json:"subscribers"`
	Timezone    *string          `json:"timezone"`
	Paused      *bool            `json:"paused"`
}

// apply sets the given fields on src and validates the result.
func (f *sourceFields) apply(src *dynamo.Source, policies []string) error {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	set(&src.ID, f.ID)
	set(&src.URL, f.URL)
	if f.Kind != nil {
		src.Kind = dynamo.SourceKind(strings.ToLower(strings.TrimSpace(*f.Kind)))
	}
	if f.Interval != nil {
		src.Interval = *f.Interval
	}
	set(&src.Policy, f.Policy)
	set(&src.Category, f.Category)
	if f.TitlePrefix != nil {
		src.TitlePrefix = *f.TitlePrefix
	}
	if f.Subscribers != nil {
		src.Subscribers = *f.Subscribers
	}
	set(&src.Timezone, f.Timezone)
	if f.Paused != nil {
		src.Paused = *f.Paused
	}
	return validateSource(src, policies)
}

func validateSource(src *dynamo.Source, policies []string) error {
	if !validID.MatchString(src.ID) {
		return invalid("id %q must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", src.ID)
	}
	if err := checkSourceURL(src.URL); err != nil {
		return err
	}
	switch src.Kind {
	case dynamo.KindAuto, dynamo.KindHTML, dynamo.KindFeed:
	default:
		return invalid("kind %q is unknown: want auto, html or feed", src.Kind)
	}
	if d := time.Duration(src.Interval); d < MinInterval || d > MaxInterval {
		return invalid("interval %s must be from %s to %s, written like 90s, 15m, 2h or 1d",
			src.Interval, dynamo.Duration(MinInterval), dynamo.Duration(MaxInterval))
	}
	if src.Policy != "" && policies != nil && !slices.Contains(policies, src.Policy) {
		return invalid("policy %q is unknown: want one of %s, or empty to follow the global policy", src.Policy, strings.Join(policies, ", "))
	}
	if src.Subscribers < 0 {
		return invalid("subscribers must be 0 or more, not %d", src.Subscribers)
	}
	if src.Timezone != "" {
		if _, err := time.LoadLocation(src.Timezone); err != nil || src.Timezone == "Local" {
			return invalid("timezone %q is not an IANA time zone name such as Europe/Paris or UTC", src.Timezone)
		}
	}
	if len(src.Category) > MaxCategoryLength || len(src.TitlePrefix) > 256 {
		return invalid("category and title_prefix must be at most %d bytes", MaxCategoryLength)
	}
	return nil
}

func checkSourceURL(raw string) error {
	if raw == "" {
		return invalid("url is required: the page or feed to poll")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(raw) > 2048 {
		return invalid("url %q must be an absolute http or https URL of at most 2048 bytes", raw)
	}
	return nil
}

// deriveID makes an id from a URL's host and path, for sources registered
// without one: https://www.example.org/news/ → example.org-news.
func deriveID(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	s := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") + "-" + strings.ToLower(u.Path)
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	id := strings.Trim(b.String(), "-.")
	if len(id) > 64 {
		id = strings.TrimRight(id[:64], "-.")
	}
	return id
}

func (s *Server) policies() []string {
	if s.cfg.Poller == nil {
		return nil
	}
	return s.cfg.Poller.Policies()
}

// createSource answers POST /api/sources.
func (s *Server) createSource(w http.ResponseWriter, r *http.Request) {
	var f sourceFields
	if err := decodeJSON(w, r, &f); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	src := &dynamo.Source{Kind: dynamo.KindAuto, Interval: DefaultInterval, CreatedAt: s.cfg.Now().UTC()}
	if f.ID == nil && f.URL != nil {
		id := deriveID(*f.URL)
		f.ID = &id
	}
	if err := f.apply(src, s.policies()); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	found, err := s.resolve(r.Context(), src)
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	if err := s.cfg.Store.CreateSource(r.Context(), src); err != nil {
		if errors.Is(err, dynamo.ErrConflict) {
			err = fmt.Errorf("a source with id %q exists: %w", src.ID, dynamo.ErrConflict)
		}
		s.writeAdminError(w, r, err)
		return
	}
	s.cache.invalidate(src.ID)
	stored, err := s.cfg.Store.Source(r.Context(), src.ID)
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("read created source %s: %w", src.ID, err))
		return
	}
	w.Header().Set("Location", "/api/sources/"+url.PathEscape(src.ID))
	writeJSON(w, http.StatusCreated, createdSource{Source: stored, Discovery: found})
}

// createdSource is a registered source and, when its URL was a site whose
// feed was discovered, the discovery: the feed chosen and every other
// candidate, with how each was found.
type createdSource struct {
	*dynamo.Source
	Discovery *discovery.Result `json:"discovery,omitempty"`
}

// resolve resolves kind "auto" with the configured Resolver, if any.
func (s *Server) resolve(ctx context.Context, src *dynamo.Source) (*discovery.Result, error) {
	if s.cfg.Resolve == nil {
		return nil, nil
	}
	found, err := s.cfg.Resolve(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", src.URL, err)
	}
	return found, nil
}

// listSources answers GET /api/sources: the active sources.
func (s *Server) listSources(w http.ResponseWriter, r *http.Request) {
	sources, err := s.cfg.Store.Sources(r.Context())
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("list sources: %w", err))
		return
	}
	if sources == nil {
		sources = []dynamo.Source{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"sources": sources})
}

// sourceDetail is a source with what its scheduler learnt and its recent
// polls, as GET answers it.
type sourceDetail struct {
	*dynamo.Source
	Schedule policy.Summary        `json:"schedule"`
	Polls    []dynamo.PollLogEntry `json:"polls"`
}

// getSource answers GET /api/sources/{id}.
func (s *Server) getSource(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	src, err := s.source(r.Context(), id)
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	polls, err := s.cfg.Store.Polls(r.Context(), id, DefaultPolls)
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("read polls of %s: %w", id, err))
		return
	}
	if polls == nil {
		polls = []dynamo.PollLogEntry{}
	}
	writeJSON(w, http.StatusOK, sourceDetail{Source: src, Schedule: scheduleSummary(src, s.cfg.Now()), Polls: polls})
}

func (s *Server) source(ctx context.Context, id string) (*dynamo.Source, error) {
	src, err := s.cfg.Store.Source(ctx, id)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, notFound("no source %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read source %s: %w", id, err)
	}
	return src, nil
}

// changeSource answers PATCH (change the given fields) and PUT (replace
// the configuration; absent fields take their defaults) on a source.
func (s *Server) changeSource(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	var f sourceFields
	if err := decodeJSON(w, r, &f); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	if f.ID != nil && *f.ID != id {
		s.writeAdminError(w, r, invalid("id cannot be changed (the body says %q, the URL %q): create a new source instead", *f.ID, id))
		return
	}
	src, err := s.source(r.Context(), id)
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	before := *src
	if r.Method == http.MethodPut {
		if f.URL == nil {
			s.writeAdminError(w, r, invalid("url is required: PUT replaces the whole configuration (PATCH changes some fields)"))
			return
		}
		*src = dynamo.Source{ID: src.ID, Kind: dynamo.KindAuto, Interval: DefaultInterval, CreatedAt: src.CreatedAt, State: src.State, Summary: src.Summary}
	}
	if err := f.apply(src, s.policies()); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	if src.URL != before.URL || src.Kind != before.Kind {
		if _, err := s.resolve(r.Context(), src); err != nil {
			s.writeAdminError(w, r, err)
			return
		}
	}
	if err := s.cfg.Store.UpdateSource(r.Context(), src); err != nil {
		if errors.Is(err, dynamo.ErrNotFound) {
			err = notFound("source %q is removed: create it again to revive its archive", id)
		}
		s.writeAdminError(w, r, err)
		return
	}
	s.cache.invalidate(id)
	stored, err := s.cfg.Store.Source(r.Context(), id)
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("read changed source %s: %w", id, err))
		return
	}
	writeJSON(w, http.StatusOK, stored)
}

// deleteSource answers DELETE /api/sources/{id}[?purge=true].
func (s *Server) deleteSource(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	purge := false
	for name, values := range r.URL.Query() {
		if name != "purge" || len(values) != 1 {
			s.writeAdminError(w, r, badParam(name, "DELETE accepts one parameter, purge=true|false"))
			return
		}
		switch values[0] {
		case "true", "1":
			purge = true
		case "false", "0":
		default:
			s.writeAdminError(w, r, badParam("purge", "purge must be true or false, not %q", values[0]))
			return
		}
	}
	if err := s.cfg.Store.DeleteSource(r.Context(), id, purge); err != nil {
		if errors.Is(err, dynamo.ErrNotFound) {
			err = notFound("no source %q", id)
		}
		s.writeAdminError(w, r, err)
		return
	}
	s.cache.invalidate(id)
	w.WriteHeader(http.StatusNoContent)
}

// pollSource answers POST /api/sources/{id}/poll with the poll's outcome.
func (s *Server) pollSource(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Poller == nil {
		writeJSONError(w, http.StatusServiceUnavailable, "", "this process runs no poller (--role api)")
		return
	}
	id := chi.URLParam(r, "id")
	out, err := s.cfg.Poller.PollNow(r.Context(), id)
	if errors.Is(err, dynamo.ErrNotFound) {
		err = notFound("no active source %q", id)
	}
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	// The store's change feed will say so too, but this client reads
	// next and must not be served the old answer meanwhile.
	s.cache.invalidate(id)
	writeJSON(w, http.StatusOK, out)
}

// pollerState is what GET and PUT /api/poller answer.
type pollerState struct {
	Policy   string   `json:"policy"`
	Policies []string `json:"policies"`
}

func (s *Server) getPoller(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Poller == nil {
		writeJSONError(w, http.StatusServiceUnavailable, "", "this process runs no poller (--role api)")
		return
	}
	writeJSON(w, http.StatusOK, pollerState{Policy: s.cfg.Poller.Policy(), Policies: s.cfg.Poller.Policies()})
}

func (s *Server) putPoller(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Poller == nil {
		writeJSONError(w, http.StatusServiceUnavailable, "", "this process runs no poller (--role api)")
		return
	}
	var body struct {
		Policy *string `json:"policy"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	policies := s.cfg.Poller.Policies()
	if body.Policy == nil || !slices.Contains(policies, *body.Policy) {
		s.writeAdminError(w, r, invalid("policy must be one of %s", strings.Join(policies, ", ")))
		return
	}
	if err := s.cfg.Poller.SetPolicy(r.Context(), *body.Policy); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	s.getPoller(w, r)
}

// statsAnswer is the store's counts, what the scheduling policies learnt
// of each source, and the cache's state.
type statsAnswer struct {
	dynamo.Stats
	// PerSource replaces Stats.PerSource in the JSON, each source's counts
	// with its schedule.
	PerSource []sourceStatsAnswer `json:"per_source"`
	Cache     cacheStats          `json:"cache"`
}

// sourceStatsAnswer is one source's counts and, for an active source, its
// learnt schedule (λ, S, hourly rates, τ, weekday history and forecast),
// so that an operator can see why it is polled when it is. Schedule is
// null for a removed source whose archive is kept.
type sourceStatsAnswer struct {
	dynamo.SourceStats
	Schedule *policy.Summary `json:"schedule"`
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	st, err := s.cfg.Store.Stats(r.Context())
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("stats: %w", err))
		return
	}
	sources, err := s.cfg.Store.Sources(r.Context())
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("stats: list sources: %w", err))
		return
	}
	active := make(map[string]*dynamo.Source, len(sources))
	for i := range sources {
		active[sources[i].ID] = &sources[i]
	}
	ans := statsAnswer{Stats: st, PerSource: make([]sourceStatsAnswer, len(st.PerSource)), Cache: s.cache.stats()}
	now := s.cfg.Now()
	for i, ss := range st.PerSource {
		ans.PerSource[i].SourceStats = ss
		if src, ok := active[ss.ID]; ok {
			sum := scheduleSummary(src, now)
			ans.PerSource[i].Schedule = &sum
		}
	}
	writeJSON(w, http.StatusOK, ans)
}

// scheduleSummary is what the policies learnt of src, as of now. The
// summary reads only smart's α, the default interval and weekday's horizon,
// which serve leaves at their defaults, so it uses the default configuration. An unreadable state is summarized as
// the fresh one the poller starts again from.
func scheduleSummary(src *dynamo.Source, now time.Time) policy.Summary {
	state, _ := policy.LoadState(src.State.Schedule)
	return state.Summarize(policy.Config{}, time.Duration(src.Interval), now)
}

// wrapAnswer is what the playground shows: the document, the feed, the
// warnings and where each annotation is.
type wrapAnswer struct {
	XMLData     string             `json:"xmldata"`
	Type        transform.Format   `json:"type"`
	ContentType string             `json:"content_type"`
	Feed        string             `json:"feed"`
	Warnings    []dynamo.Warning   `json:"warnings"`
	Annotations []annotationAnswer `json:"annotations"`
	Charset     string             `json:"charset"`
	CharsetFrom string             `json:"charset_from"`
	Items       int                `json:"items"`
}

// annotationAnswer is one annotation found, with byte offsets into the
// page as decoded to UTF-8 (wrapper.Annotation).
type annotationAnswer struct {
	Name         string `json:"name"`
	Index        int    `json:"index,omitempty"`
	Item         int    `json:"item,omitempty"`
	Line         int    `json:"line"`
	Start        int    `json:"start"`
	End          int    `json:"end"`
	ContentStart int    `json:"content_start"`
	ContentEnd   int    `json:"content_end"`
	Value        string `json:"value"`
	Closed       bool   `json:"closed"`
}

// wrap answers POST /api/wrap?base=URL&type=T&id=ID&timezone=TZ with the
// page as the body.
func (s *Server) wrap(w http.ResponseWriter, r *http.Request) {
	opts, format, err := wrapOptions(r.URL.Query())
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	page, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxWrapBody))
	if err != nil {
		s.writeAdminError(w, r, invalid("the page must be at most %d bytes", MaxWrapBody))
		return
	}
	opts.ContentType = r.Header.Get("Content-Type")
	opts.Now = s.cfg.Now()
	res := wrapper.Wrap(page, opts)
	var feed bytes.Buffer
	if err := transform.Render(&feed, res.Resource, format); err != nil {
		s.writeAdminError(w, r, fmt.Errorf("wrap: %w", err))
		return
	}
	ans := wrapAnswer{
		XMLData:     string(res.Resource.XML()),
		Type:        format,
		ContentType: format.ContentType(),
		Feed:        feed.String(),
		Warnings:    res.Warnings,
		Annotations: []annotationAnswer{},
		Charset:     res.Charset,
		CharsetFrom: res.CharsetFrom,
		Items:       len(res.Resource.Items),
	}
	if ans.Warnings == nil {
		ans.Warnings = []dynamo.Warning{}
	}
	for _, a := range res.Annotations {
		ans.Annotations = append(ans.Annotations, annotationAnswer{
			Name: a.Name, Index: a.Index, Item: a.Item, Line: a.Line, Start: a.Start, End: a.End,
			ContentStart: a.ContentStart, ContentEnd: a.ContentEnd, Value: a.Value, Closed: a.Closed,
		})
	}
	writeJSON(w, http.StatusOK, ans)
}

// wrapOptions reads /api/wrap's parameters.
func wrapOptions(q url.Values) (wrapper.Options, transform.Format, error) {
	opts := wrapper.Options{RSSID: "playground"}
	format := transform.RSS2
	for name, values := range q {
		if len(values) != 1 {
			return opts, format, badParam(name, "%s must be given at most once", name)
		}
		v := values[0]
		switch name {
		case "base":
			if v != "" {
				if err := checkSourceURL(v); err != nil {
					return opts, format, badParam("base", "base %q must be the page's absolute http or https URL", v)
				}
			}
			opts.URL = v
		case "type":
			f, err := transform.ParseFormat(v)
			if err != nil {
				return opts, format, badParam("type", "type must be one of %s (got %q)", formatList(), v)
			}
			format = f
		case "id":
			if !validID.MatchString(v) {
				return opts, format, badParam("id", "id %q must be 1 to 64 letters, digits, '.', '_' or '-'", v)
			}
			opts.RSSID = v
		case "timezone":
			loc, err := time.LoadLocation(v)
			if err != nil || v == "Local" {
				return opts, format, badParam("timezone", "timezone %q is not an IANA time zone name such as Europe/Paris", v)
			}
			opts.Location = loc
		default:
			return opts, format, badParam(name, "unknown parameter %q: /api/wrap accepts base, type, id, timezone", name)
		}
	}
	return opts, format, nil
}
