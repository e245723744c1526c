package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/limits"
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

// One answer cannot grow past its bound, and one XPath request cannot
// parse a document whose tree would pass its memory bound.
func TestAnswerAndXPathMemoryBounds(t *testing.T) {
	t.Parallel()
	e := newsEnv(t, stores[0].open)
	small := newEnv(t, e.store, func(c *api.Config) { c.MaxAnswerBytes = 1500; c.XPathMemory = 4000 })
	r := small.get("/resources/news?max=50&type=atom")
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "--max-answer-mib") {
		t.Errorf("an answer past its bound: %d %s", r.status, r.body)
	}
	r = small.get("/resources/news?xpath=//item&type=json")
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "memory bound") {
		t.Errorf("xpath over a version past the memory bound: %d %s", r.status, r.body)
	}
	e.get("/resources/news?max=50&type=atom").must(t, http.StatusOK, "the same answer under the default bound")
}
