package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/httpcompress"
	"github.com/dynamo-feeds/dynamo/metrics"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// TestCachedFastPath checks which requests Server.Cached answers without
// the routes behind it: a GET of a cached answer made as one the routes
// answered from the cache before, and nothing else; and that the names it
// finds answers by are bounded, counted and dropped with their answer.
func TestCachedFastPath(t *testing.T) {
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "dynamo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s, err := New(Config{Store: store, Metrics: metrics.New()})
	if err != nil {
		t.Fatal(err)
	}
	s.cache.setEnabled(true)
	mux := http.NewServeMux()
	s.Mount(mux)
	routed := 0
	h := s.Cached(httpcompress.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		routed++
		mux.ServeHTTP(w, r)
	})))

	// The answer of /resources/news?max=50 for Host example.org, as if
	// rendered; the store has no such source, so a request the cache
	// cannot answer is a 404.
	const key = "http://example.org/resources/news?max=50"
	a := &answer{body: []byte(strings.Repeat("<rss/>", 100)), contentType: "application/rss+xml; charset=utf-8",
		etag: `"abc"`, lastModified: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), gz: &lazyGzip{}}
	a.prepare()
	s.cache.put(key, "news", s.cache.generation("news"), a)

	type want struct {
		status int
		routed bool
	}
	serve := func(what string, w want, r *http.Request) *httptest.ResponseRecorder {
		t.Helper()
		before := routed
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != w.status || (routed > before) != w.routed {
			t.Errorf("%s: status %d, routed %v; want %d, routed %v", what, rec.Code, routed > before, w.status, w.routed)
		}
		return rec
	}
	req := func(method, target string, header ...string) *http.Request {
		r := httptest.NewRequest(method, target, nil)
		r.Host = "example.org"
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		return r
	}
	const target = "/resources/news?max=50"
	serve("first GET", want{200, true}, req("GET", target))
	serve("the same GET again", want{200, false}, req("GET", target))
	if rec := serve("gzip", want{200, false}, req("GET", target, "Accept-Encoding", "gzip")); rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Etag") != `"abc-gzip"` {
		t.Errorf("gzip from the fast path: %v", rec.Header())
	}
	serve("If-None-Match, plain tag", want{304, false}, req("GET", target, "If-None-Match", `"abc"`))
	if rec := serve("If-None-Match, gzip tag, gzip", want{304, false}, req("GET", target, "If-None-Match", `W/"abc-gzip"`, "Accept-Encoding", "gzip")); rec.Header().Get("Etag") != `"abc-gzip"` {
		t.Errorf("a 304 to a gzip client from the fast path tags %q", rec.Header().Get("Etag"))
	}
	serve("If-Modified-Since", want{304, false}, req("GET", target, "If-Modified-Since", "Tue, 24 Nov 2026 12:00:00 GMT"))
	serve("HEAD", want{200, true}, req("HEAD", target))
	other := req("GET", target)
	other.Host = "example.net"
	serve("another Host", want{404, true}, other)
	serve("another spelling of the query", want{200, true}, req("GET", target+"&type=rss2"))
	serve("that spelling again", want{200, false}, req("GET", target+"&type=rss2"))
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for range 2 { // the readable page is made per request, never named
		if rec := serve("a browser", want{200, true}, req("GET", target, "Accept", browser)); rec.Header().Get("Content-Security-Policy") == "" {
			t.Errorf("the readable page has no Content-Security-Policy: %v", rec.Header())
		}
	}
	operator := req("GET", target)
	serve("an operator's latest read", want{404, true}, operator.WithContext(dynamo.WithLatestReads(operator.Context())))
	serve("an answer's route", want{200, false}, req("GET", target))

	// Names are bounded and counted; they go with their answer.
	for i := range 2 * maxNames {
		r := req("GET", target+"&unknown="+strings.Repeat("x", i))
		serve("another spelling", want{200, true}, r)
	}
	el := s.cache.byKey[key]
	e := el.Value.(*cacheEntry)
	if len(e.names) != maxNames || len(s.cache.byRequest) != maxNames {
		t.Errorf("%d names of the answer, %d in all: want %d", len(e.names), len(s.cache.byRequest), maxNames)
	}
	size := a.size()
	for _, k := range e.names {
		size += k.size()
	}
	if e.size != size || s.cache.bytes != size {
		t.Errorf("the answer counts %d bytes, the cache %d: want %d with its names", e.size, s.cache.bytes, size)
	}
	s.cache.invalidate("news")
	if len(s.cache.byRequest) != 0 || s.cache.bytes != 0 {
		t.Errorf("after a change of the source: %d names, %d bytes left", len(s.cache.byRequest), s.cache.bytes)
	}
	serve("after a change", want{404, true}, req("GET", target))
}
