package metrics_test

import (
	"encoding/json"
	"github.com/dynamo-feeds/dynamo/internal/logtest"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/metrics"
)

// TestAccessLog: one JSON line per request, with the route pattern (not
// the raw path) as the route, the body's bytes, the status and the client,
// written even when the handler's level hides info.
func TestAccessLog(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /resources/{rssId}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello, "+r.PathValue("rssId")) })
	mux.HandleFunc("POST /api/sources", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) })
	var out logtest.Buffer
	h := slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelError})
	// A handler between the access log and Observe that hands on a copy
	// of the request, as serve's does.
	observed := metrics.New().Observe(mux)
	copying := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { observed.ServeHTTP(w, r.WithContext(r.Context())) })
	srv := httptest.NewServer(metrics.AccessLog(h, copying))
	defer srv.Close()
	for _, req := range []struct{ method, path string }{{"GET", "/resources/news"}, {"POST", "/api/sources"}, {"GET", "/nowhere"}} {
		r, _ := http.NewRequest(req.method, srv.URL+req.path, nil)
		resp, err := srv.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	type line struct {
		Level, Msg, Method, Route, Path, Remote string
		Status                                  int
		Bytes                                   int64
		Duration                                float64
	}
	var got []line
	for l := range strings.Lines(out.String()) {
		var ln line
		if err := json.Unmarshal([]byte(l), &ln); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		got = append(got, ln)
	}
	want := []line{
		{Level: "INFO", Msg: "request", Method: "GET", Route: "/resources/{rssId}", Path: "/resources/news", Status: 200, Bytes: int64(len("hello, news"))},
		{Level: "INFO", Msg: "request", Method: "POST", Route: "/api/sources", Path: "/api/sources", Status: 201},
		{Level: "INFO", Msg: "request", Method: "GET", Route: "unmatched", Path: "/nowhere", Status: 404, Bytes: int64(len("404 page not found\n"))},
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), out.String())
	}
	for i, w := range want {
		g := got[i]
		if !strings.HasPrefix(g.Remote, "127.0.0.1:") || g.Duration <= 0 {
			t.Errorf("line %d: remote %q, duration %v; want the client's address and a duration", i, g.Remote, g.Duration)
		}
		g.Remote, g.Duration = "", 0
		if g != w {
			t.Errorf("line %d: %+v, want %+v", i, g, w)
		}
	}
}
