package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pagetest"
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
