package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo"
)

// TestFirstSeenRange bounds the archive and the aggregate by when items
// were first seen (since, until), written canonically in the self link.
func TestFirstSeenRange(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(testing.TB) dynamo.Store) {
		e := newEnv(t, open(t))
		e.origin.set("/p.html", annotatedPage("Town", story{"Bridge", "http://example.org/b", "d"}, story{"Fair", "http://example.org/f", "d"}))
		e.addSource("town", "/p.html")
		e.poll("town")
		for _, tc := range []struct {
			path    string
			inRange bool // the items, first seen now, are in the range
		}{
			{"/resources/town?until=2999-12-31&type=json", true},
			{"/resources/town?since=2999-01-01&type=json", false},
			{"/aggregate?since=2000-01-01&until=2999-12-31&type=json", true},
			{"/aggregate?since=2999-01-01T00:00:00Z&type=json", false},
		} {
			r := e.get(tc.path).must(t, http.StatusOK, "GET "+tc.path)
			body := string(r.body)
			if got := strings.Contains(body, "example.org/b") && strings.Contains(body, "example.org/f"); got != tc.inRange {
				t.Errorf("%s: items shown %v, want %v", tc.path, got, tc.inRange)
			}
		}
		r := e.get("/resources/town?until=2999-12-31&type=rss2").must(t, http.StatusOK, "ranged archive")
		if !strings.Contains(string(r.body), "until=3000-01-01T00%3A00%3A00Z") {
			t.Errorf("the self link does not carry the range canonically:\n%.600s", r.body)
		}
		for _, bad := range []string{"/resources/town?since=yesterday", "/aggregate?since=2026-11-20&until=2026-11-01", "/resources/town?index=1&since=2026-01-01"} {
			if r := e.get(bad); r.status != http.StatusBadRequest {
				t.Errorf("%s: %d, want 400", bad, r.status)
			}
		}
	})
}
