package api_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/metrics"
)

// TestFastPathAnswersAsTheRoutes: a cached feed asked for again as it was
// before is answered before the routing (api.Server.Cached); its status,
// headers and body must be those the routes gave the same request, for
// every way of asking that the answer depends on (compression, the
// conditional headers), and the metrics and the access log must name its
// route.
func TestFastPathAnswersAsTheRoutes(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newsEnv(t, open)
		var logged bytes.Buffer
		logServer := httptest.NewServer(metrics.AccessLog(slog.NewJSONHandler(&logged, nil), e.server))
		t.Cleanup(logServer.Close)
		maxAge := regexp.MustCompile(`max-age=\d+`) // counts down between requests
		for _, path := range []string{"/resources/news?max=5", "/resources/news?index=1&type=atom", "/resources/news?max=2&type=json", "/aggregate", "/resources"} {
			first := e.get(path, "Accept-Encoding", "identity").must(t, http.StatusOK, path)
			etag, lm := first.header.Get("ETag"), first.header.Get("Last-Modified")
			for _, header := range [][]string{
				{"Accept-Encoding", "identity"},
				{"Accept-Encoding", "gzip"},
				{"Accept-Encoding", "gzip", "If-None-Match", etag},
				{"Accept-Encoding", "identity", "If-None-Match", etag},
				{"Accept-Encoding", "gzip", "If-Modified-Since", lm},
				{"Accept-Encoding", "gzip", "If-None-Match", `"other"`},
				{"Accept-Encoding", "identity", "Accept", "application/rss+xml"},
			} {
				// The first names the request (a hit through the
				// routes), the next ones take the fast path.
				routed := e.get(path, header...)
				for range 2 {
					fast := e.get(path, header...)
					if fast.status != routed.status || !bytes.Equal(fast.body, routed.body) {
						t.Errorf("%s %v: %d, %d bytes from the fast path; %d, %d bytes through the routes", path, header, fast.status, len(fast.body), routed.status, len(routed.body))
					}
					for _, h := range []http.Header{fast.header, routed.header} {
						h.Del("Date")
						h["Cache-Control"] = []string{maxAge.ReplaceAllString(h.Get("Cache-Control"), "max-age=N")}
					}
					for name := range mergedKeys(fast.header, routed.header) {
						if !slices.Equal(fast.header[name], routed.header[name]) {
							t.Errorf("%s %v: %s %q from the fast path, %q through the routes", path, header, name, fast.header[name], routed.header[name])
						}
					}
				}
			}
		}

		// The metrics and the access log name the route.
		path := "/resources/news?max=5"
		for range 3 {
			r, err := http.NewRequest(http.MethodGet, logServer.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			r.Header.Set("Accept-Encoding", "identity")
			resp, err := logServer.Client().Do(r)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		dec := json.NewDecoder(&logged)
		for n := 0; ; n++ {
			var line struct{ Route, Path string }
			if err := dec.Decode(&line); err != nil {
				if n != 3 {
					t.Errorf("%d access log lines, want 3 (%v)", n, err)
				}
				break
			}
			if line.Route != "/resources/{rssId}" {
				t.Errorf("access log line %d: route %q, want /resources/{rssId}", n+1, line.Route)
			}
		}
		families, err := e.metrics.Registry().Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if f.GetName() == "dynamo_http_requests_total" && l.GetName() == "route" && l.GetValue() == "unmatched" {
						t.Errorf("requests counted as unmatched: %v", m)
					}
				}
			}
		}
	})
}

// mergedKeys is the set of both headers' names.
func mergedKeys(a, b http.Header) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}
