package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestMethodNotAllowed: a path of the pages with routes for other methods
// only answers 405 with an Allow header, as the API does (internal/allow),
// rather than the "no page here" 404 of the catch-all; an unknown path stays
// a 404.
func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodGet, "/ui/sources/news/poll", http.StatusMethodNotAllowed, "POST"},
		{http.MethodHead, "/ui/sources/news/poll", http.StatusMethodNotAllowed, "POST"},
		{http.MethodGet, "/ui/logout", http.StatusMethodNotAllowed, "POST"},
		{http.MethodDelete, "/ui/add", http.StatusMethodNotAllowed, "GET, HEAD, POST"},
		{http.MethodPost, "/ui/sources/news/edit", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodGet, "/ui/nowhere", http.StatusNotFound, ""},
		{http.MethodGet, "/nowhere", http.StatusNotFound, ""},
	} {
		req, err := http.NewRequest(tc.method, e.srv.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d, Allow %q; want %d, Allow %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Allow"), tc.status, tc.allow)
		}
		if tc.status == http.StatusMethodNotAllowed && tc.method != http.MethodHead && !strings.Contains(string(body), "not allowed") {
			t.Errorf("%s %s: the page does not say the method is not allowed:\n%s", tc.method, tc.path, body)
		}
	}
}
