package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/internal/pagetest"
	"github.com/dynamo-feeds/dynamo/limits"
)

// POST /api/wrap reads what the poller reads (docs/WRAPPER.md, "Size
// cap"): the page of exactly dynamo.MaxPageBytes once the suggester
// annotated it, a page of exactly dynamo.MaxAnnotatedPageBytes, and not
// one byte more.
func TestWrapPagesAtTheSizeLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores[0].open(t))
	annotated := pagetest.AnnotatedAtLimit(t)
	items := pagetest.Items(dynamo.MaxPageBytes)
	tests := []struct {
		name   string
		page   []byte
		status int
	}{
		{"the page at the limit, annotated", annotated, http.StatusOK},
		{"exactly what Dynamo reads", pagetest.Padded(annotated, dynamo.MaxAnnotatedPageBytes), http.StatusOK},
		{"one byte more", pagetest.Padded(annotated, dynamo.MaxAnnotatedPageBytes+1), http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/wrap?type=xmldata&base="+url.QueryEscape(pagetest.URL), tt.page, "Content-Type", "text/html; charset=utf-8").must(t, tt.status, tt.name)
			if tt.status != http.StatusOK {
				if !strings.Contains(string(r.body), "the page must be at most 20971520 bytes (20 MiB)") {
					t.Errorf("answer %s, want it to say the limit", r.body)
				}
				return
			}
			var ans struct {
				Items int `json:"items"`
			}
			if err := json.Unmarshal(r.body, &ans); err != nil {
				t.Fatal(err)
			}
			if ans.Items != items {
				t.Errorf("%d items, want %d", ans.Items, items)
			}
		})
	}
}

// Wraps of pages share the slots of the expensive reads, taken before the
// page is read (docs/RELIABILITY.md, "Security", issue 23): while the
// slots are taken, concurrent 20 MiB wraps are refused with 503 and
// Retry-After without their pages being read, and /healthz and a feed
// still answer; once a slot is free, the page is wrapped.
func TestWrapTakesAHeavySlot(t *testing.T) {
	t.Parallel()
	gate := limits.NewGate(1, 1, 50*time.Millisecond)
	e := newsEnv(t, stores[0].open)
	e2 := newEnv(t, e.store, func(c *api.Config) { c.Heavy = gate })
	page := pagetest.Padded(pagetest.AnnotatedAtLimit(t), dynamo.MaxAnnotatedPageBytes)
	const path = "/api/wrap?type=xmldata"
	release, err := gate.Enter(context.Background()) // the crowd holds the one slot
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	answers := make([]response, 4)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = e2.do(http.MethodPost, path, page, "Content-Type", "text/html; charset=utf-8")
		}()
	}
	wg.Wait()
	for i, r := range answers {
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
			t.Errorf("wrap %d while saturated: %d, Retry-After %q, %.200s", i, r.status, r.header.Get("Retry-After"), r.body)
		}
	}
	e2.get("/healthz").must(t, http.StatusOK, "healthz while saturated")
	e2.get("/resources/news").must(t, http.StatusOK, "a feed while saturated")
	release()
	e2.do(http.MethodPost, path, page, "Content-Type", "text/html; charset=utf-8").must(t, http.StatusOK, "a wrap once the slot is free")
}
