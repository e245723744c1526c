package metrics_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/metrics"
)

func TestMetricsExposition(t *testing.T) {
	m := metrics.New()
	m.ObservePoll("a", dynamo.StatusChanged, 30*time.Millisecond, true)
	m.ObservePoll("a", dynamo.StatusError, 2*time.Second, false)
	m.ObserveRequest("/resources/{rssId}", 304, time.Millisecond)
	m.CacheHit()
	m.CacheMiss()
	m.CacheMiss()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`dynamo_polls_total{status="changed"} 1`,
		`dynamo_polls_total{status="error"} 1`,
		`dynamo_polls_total{status="not_modified"} 0`,
		`dynamo_versions_stored_total 1`,
		`dynamo_poll_duration_seconds_bucket{status="error",le="1"} 0`,
		`dynamo_poll_duration_seconds_bucket{status="error",le="2.5"} 1`,
		`dynamo_http_requests_total{code="304",route="/resources/{rssId}"} 1`,
		`dynamo_cache_lookups_total{result="hit"} 1`,
		`dynamo_cache_lookups_total{result="miss"} 2`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("exposition lacks %s", want)
		}
	}
}

// TestNilMetrics: components built without metrics call the same methods.
func TestNilMetrics(t *testing.T) {
	var m *metrics.Metrics
	m.ObservePoll("a", dynamo.StatusChanged, time.Second, true)
	m.ObserveRequest("/", 200, time.Second)
	m.CacheHit()
	m.CacheMiss()
	if m.Registry() != nil {
		t.Error("a nil Metrics has a registry")
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 404 {
		t.Errorf("a nil Metrics serves %d, want 404", rec.Code)
	}
}
