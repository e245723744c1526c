package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/limits"
	"github.com/dynamo-feeds/dynamo/transform"
)

// While every slot for expensive reads is taken, the next expensive read
// waits briefly then gets 503 with Retry-After; /healthz, a cached answer
// and a cheap read still answer.
func TestHeavyReadsSaturated(t *testing.T) {
	t.Parallel()
	gate := limits.NewGate(1, 1, 50*time.Millisecond)
	e := newsEnv(t, stores[0].open)
	e2 := newEnv(t, e.store, func(c *api.Config) { c.Heavy = gate })
	e2.get("/resources/news?max=500").must(t, http.StatusOK, "a long archive, cached before the crowd")
	release, err := gate.Enter(context.Background()) // the crowd holds the one slot
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/resources/news?xpath=//item", "/resources/news?title=a", "/aggregate?max=10", "/resources/news?max=1000"} {
		r := e2.get(path)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(string(r.body), "expensive reads") {
			t.Errorf("%s while saturated: %d, Retry-After %q, %s", path, r.status, r.header.Get("Retry-After"), r.body)
		}
	}
	e2.get("/healthz").must(t, http.StatusOK, "healthz while saturated")
	e2.get("/resources/news?max=500").must(t, http.StatusOK, "a cached answer while saturated")
	e2.get("/resources/news?index=1").must(t, http.StatusOK, "one version while saturated")
	e2.get("/resources/news?max=20").must(t, http.StatusOK, "a short archive while saturated")
	release()
	e2.get("/resources/news?xpath=//item").must(t, http.StatusOK, "xpath once a slot is free")
}

// One answer held in memory cannot grow past its bound (an archive past
// it is streamed instead: TestArchiveStreamedPastAnswerBound), and one
// XPath request cannot parse a document whose tree would pass its memory
// bound.
func TestAnswerAndXPathMemoryBounds(t *testing.T) {
	t.Parallel()
	e := newsEnv(t, stores[0].open)
	small := newEnv(t, e.store, func(c *api.Config) { c.MaxAnswerBytes = 1000; c.XPathMemory = 4000 })
	r := small.get("/resources/news?index=1&type=atom")
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "--max-answer-mib") {
		t.Errorf("a version past the answer's bound: %d %s", r.status, r.body)
	}
	r = small.get("/resources/news?xpath=//item&type=json")
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "memory bound") {
		t.Errorf("xpath over a version past the memory bound: %d %s", r.status, r.body)
	}
	e.get("/resources/news?index=1&type=atom").must(t, http.StatusOK, "the same answer under the default bound")
}

// TestArchiveStreamedPastAnswerBound: an archive answer whose items take
// more than --max-answer-mib is written as its items are read, in every
// format: the bytes the answer held in memory has under a larger bound,
// with a weak ETag and no Content-Length; 304 on that tag; compressed as
// it is written for a client that accepts gzip; headers only for HEAD; a
// keyword query too. Both stores.
func TestArchiveStreamedPastAnswerBound(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		news := newsEnv(t, open)
		const base = "https://feeds.example.org" // the two answers' self links alike
		held := newEnv(t, news.store, func(c *api.Config) { c.BaseURL = base })
		// The four items take about 300 bytes of text: past this bound.
		streamed := newEnv(t, news.store, func(c *api.Config) { c.BaseURL = base; c.MaxAnswerBytes = 200; c.CacheBytes = -1 })
		const plain = "Accept-Encoding"
		for _, path := range []string{"/resources/news?max=50", "/resources/news?max=50&title=o", "/resources/news?max=50&desc=the"} {
			for _, f := range transform.Formats() {
				path := path + "&type=" + string(f)
				want := held.get(path, plain, "identity").must(t, http.StatusOK, path)
				if strings.HasPrefix(want.header.Get("ETag"), "W/") || want.header.Get("Content-Length") == "" {
					t.Errorf("%s held: ETag %q, Content-Length %q: want a strong tag and a length", path, want.header.Get("ETag"), want.header.Get("Content-Length"))
				}
				got := streamed.get(path, plain, "identity").must(t, http.StatusOK, path)
				etag := got.header.Get("ETag")
				if !strings.HasPrefix(etag, `W/"`) {
					t.Errorf("%s streamed: ETag %q: want a weak tag, made before the body", path, etag)
				}
				if !bytes.Equal(got.body, want.body) || !strings.Contains(string(got.body), "Alpha") {
					t.Errorf("%s streamed:\n%s\nwant the held answer's bytes:\n%s", path, got.body, want.body)
				}
				if r := streamed.get(path, plain, "identity", "If-None-Match", etag).must(t, http.StatusNotModified, "If-None-Match"); len(r.body) != 0 {
					t.Errorf("%s 304: %d bytes", path, len(r.body))
				}
				zipped := streamed.get(path, "Accept-Encoding", "gzip").must(t, http.StatusOK, "gzip")
				zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
				if err != nil {
					t.Fatalf("%s gzip: %v (Content-Encoding %q)", path, err, zipped.header.Get("Content-Encoding"))
				}
				if unzipped, err := io.ReadAll(zr); err != nil || !bytes.Equal(unzipped, want.body) {
					t.Errorf("%s gzip: %v, %d bytes unzipped, want the %d of the answer", path, err, len(unzipped), len(want.body))
				}
				if r := streamed.do(http.MethodHead, path, nil, plain, "identity").must(t, http.StatusOK, "HEAD"); len(r.body) != 0 || r.header.Get("ETag") != etag {
					t.Errorf("%s HEAD: %d bytes, ETag %q, want none and %q", path, len(r.body), r.header.Get("ETag"), etag)
				}
			}
		}
	})
}
