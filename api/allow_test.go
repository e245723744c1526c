package api_test

import (
	"net/http"
	"testing"
)

// TestMethodNotAllowedNamesHEAD: a 405's Allow header lists every method
// the path answers (RFC 9110 §10.2.1), HEAD included wherever GET is, since
// a GET route answers HEAD too; a client that trusts Allow would otherwise
// believe HEAD is refused.
func TestMethodNotAllowedNamesHEAD(t *testing.T) {
	t.Parallel()
	e := newEnv(t, stores[0].open(t))
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodPost, "/resources/news", "GET, HEAD"},
		{http.MethodDelete, "/api/stats", "GET, HEAD"},
		{http.MethodPut, "/api/sources", "GET, HEAD, POST"},
		{http.MethodGet, "/api/sources/x/poll", "POST"},
		{http.MethodHead, "/api/sources/x/poll", "POST"},
	} {
		r := e.do(tc.method, tc.path, nil)
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d, Allow %q; want 405, Allow %q", tc.method, tc.path, r.status, r.header.Get("Allow"), tc.allow)
		}
	}
}
