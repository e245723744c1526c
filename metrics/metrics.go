// Package metrics holds Dynamo's Prometheus collectors: what the poller did
// (polls by outcome, how long they took, versions stored) and what the HTTP
// interface served (requests by route and status, cache hits and misses).
//
// One Metrics value is shared by the poller, which records into it through
// ObservePoll, and the API, which records requests and cache lookups and
// serves the registry at /metrics. Every method is safe on a nil *Metrics,
// so that components built without metrics (tests, one-shot commands) need
// no special case.
package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dynamo-feeds/dynamo"
)

// Metrics is the set of Dynamo's collectors and the registry they live in.
type Metrics struct {
	registry *prometheus.Registry

	polls           *prometheus.CounterVec
	pollDuration    *prometheus.HistogramVec
	versions        prometheus.Counter
	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	cache           *prometheus.CounterVec
	hits, misses    lazyCounter // cache's series, made on first use
	// series holds the request series already looked up in requests and
	// requestDuration: a vector's lookup formats and hashes the labels on
	// every call, a cost each request would pay (routes and codes are few).
	series struct {
		sync.RWMutex
		counts    map[routeCode]prometheus.Counter
		durations map[string]prometheus.Observer
	}
	// WebSub (docs/WEBSUB.md).
	verifications *prometheus.CounterVec
	deliveries    *prometheus.CounterVec
	pushes        *prometheus.CounterVec
	badSignatures prometheus.Counter
}

// New creates the collectors in a registry of their own, together with the
// Go runtime and process collectors, so that /metrics shows exactly
// Dynamo's series and a test can create as many as it likes.
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		polls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynamo_polls_total",
			Help: "Polls of sources, by outcome (changed, unchanged, not_modified, error).",
		}, []string{"status"}),
		pollDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "dynamo_poll_duration_seconds",
			Help:    "Time from the start of a poll to its recording, by outcome.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"status"}),
		versions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dynamo_versions_stored_total",
			Help: "New versions stored by this process's polls.",
		}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynamo_http_requests_total",
			Help: "HTTP requests answered, by route pattern and status code.",
		}, []string{"route", "code"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "dynamo_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynamo_cache_lookups_total",
			Help: "Lookups in the cache of rendered answers, by result (hit or miss).",
		}, []string{"result"}),
		verifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynamo_websub_verifications_total",
			Help: "WebSub verifications of intent, by role (hub: Dynamo verified a subscriber; subscriber: a hub verified Dynamo) and outcome (ok, failed).",
		}, []string{"role", "outcome"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynamo_websub_deliveries_total",
			Help: "Content distributions Dynamo's hub attempted, by outcome (ok; retry: failed, to be retried; given_up: failed for the last time).",
		}, []string{"outcome"}),
		pushes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynamo_websub_pushes_total",
			Help: "Content distributions received from sources' hubs, by outcome (stored, unchanged, error, rejected_signature, too_large, unknown).",
		}, []string{"outcome"}),
		badSignatures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dynamo_websub_signatures_rejected_total",
			Help: "Pushes refused for a missing or wrong X-Hub-Signature; nothing of them was stored.",
		}),
	}
	m.registry.MustRegister(
		m.verifications, m.deliveries, m.pushes, m.badSignatures,
		m.polls, m.pollDuration, m.versions, m.requests, m.requestDuration, m.cache,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	// Every outcome appears from the start, so that rates over a fresh
	// process read 0 rather than "no data".
	for _, s := range []dynamo.PollStatus{dynamo.StatusChanged, dynamo.StatusUnchanged, dynamo.StatusNotModified, dynamo.StatusError} {
		m.polls.WithLabelValues(string(s))
	}
	m.cache.WithLabelValues("hit")
	m.cache.WithLabelValues("miss")
	for _, role := range []string{"hub", "subscriber"} {
		m.verifications.WithLabelValues(role, "ok")
		m.verifications.WithLabelValues(role, "failed")
	}
	for _, o := range []string{"ok", "retry", "given_up"} {
		m.deliveries.WithLabelValues(o)
	}
	for _, o := range []string{"stored", "unchanged", "error", "rejected_signature", "too_large", "unknown"} {
		m.pushes.WithLabelValues(o)
	}
	return m
}

// Verification counts a WebSub verification of intent (websub.Observer).
func (m *Metrics) Verification(role, outcome string) {
	if m != nil {
		m.verifications.WithLabelValues(role, outcome).Inc()
	}
}

// Delivery counts a content distribution by Dynamo's hub (websub.Observer).
func (m *Metrics) Delivery(outcome string) {
	if m != nil {
		m.deliveries.WithLabelValues(outcome).Inc()
	}
}

// Push counts a content distribution received (websub.Observer); a
// rejected signature is also counted on its own.
func (m *Metrics) Push(outcome string) {
	if m == nil {
		return
	}
	m.pushes.WithLabelValues(outcome).Inc()
	if outcome == "rejected_signature" {
		m.badSignatures.Inc()
	}
}

// Registry is the registry holding the collectors, for callers that add
// their own.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.registry
}

// Handler serves the registry in Prometheus's exposition format; with a nil
// Metrics it answers 404, as there is nothing to show.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// ObservePoll records one poll. Its signature is the poller's OnPoll hook,
// so that the poller can be given m.ObservePoll directly. The source id is
// not a label: sources are unbounded in number, series must not be.
func (m *Metrics) ObservePoll(sourceID string, status dynamo.PollStatus, took time.Duration, stored bool) {
	if m == nil {
		return
	}
	m.polls.WithLabelValues(string(status)).Inc()
	m.pollDuration.WithLabelValues(string(status)).Observe(took.Seconds())
	if stored {
		m.versions.Inc()
	}
}

// ObserveRequest records one HTTP answer. route must be a route pattern
// such as "/resources/{rssId}", never a raw path, to keep the number of
// series bounded.
func (m *Metrics) ObserveRequest(route string, code int, took time.Duration) {
	if m == nil {
		return
	}
	count, duration := m.requestSeries(route, code)
	count.Inc()
	duration.Observe(took.Seconds())
}

// lazyCounter is one series of a vector, looked up once, on first use
// (so that it shows in /metrics only once counted).
type lazyCounter struct {
	once sync.Once
	c    prometheus.Counter
}

func (l *lazyCounter) get(vec *prometheus.CounterVec, label string) prometheus.Counter {
	l.once.Do(func() { l.c = vec.WithLabelValues(label) })
	return l.c
}

// routeCode names one series of requests.
type routeCode struct {
	route string
	code  int
}

// requestSeries returns the series of requests to route answered with
// code, looking them up in the vectors only the first time.
func (m *Metrics) requestSeries(route string, code int) (prometheus.Counter, prometheus.Observer) {
	k := routeCode{route, code}
	m.series.RLock()
	count, ok := m.series.counts[k]
	duration, ok2 := m.series.durations[route]
	m.series.RUnlock()
	if ok && ok2 {
		return count, duration
	}
	count = m.requests.WithLabelValues(route, strconv.Itoa(code))
	duration = m.requestDuration.WithLabelValues(route)
	m.series.Lock()
	defer m.series.Unlock()
	if m.series.counts == nil {
		m.series.counts = map[routeCode]prometheus.Counter{}
		m.series.durations = map[string]prometheus.Observer{}
	}
	m.series.counts[k] = count
	m.series.durations[route] = duration
	return count, duration
}

// CacheHit records an answer served from the cache.
func (m *Metrics) CacheHit() {
	if m != nil {
		m.hits.get(m.cache, "hit").Inc()
	}
}

// CacheMiss records an answer that had to be rendered.
func (m *Metrics) CacheMiss() {
	if m != nil {
		m.misses.get(m.cache, "miss").Inc()
	}
}

// Observe records every request next answers, labelled with the route
// pattern the standard library's ServeMux matched (http.Request.Pattern,
// its method left out: "/resources/{rssId}", "/ui/"), or "unmatched". The
// API and the web interface register on one ServeMux, so one Observe around
// it labels both.
func (m *Metrics) Observe(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		m.ObserveRequest(Route(r.Pattern), sw.status, time.Since(start))
		if pattern, ok := r.Context().Value(patternKey{}).(*string); ok {
			*pattern = r.Pattern
		}
	})
}

// Route is the label of a ServeMux pattern: its path without the method,
// host or the {$} that anchors it; "unmatched" for none.
func Route(pattern string) string {
	if pattern == "" {
		return "unmatched"
	}
	if _, path, ok := strings.Cut(pattern, " "); ok {
		pattern = strings.TrimLeft(path, " \t")
	}
	if i := strings.IndexByte(pattern, '/'); i > 0 { // a host
		pattern = pattern[i:]
	}
	return strings.TrimSuffix(pattern, "{$}")
}

// statusWriter remembers the status code a handler wrote and counts the
// bytes of its body.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
