package allow_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/allow"
)

func TestMethods(t *testing.T) {
	ok := func(http.ResponseWriter, *http.Request) {}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", ok)
	mux.HandleFunc("DELETE /items/{id}", ok)
	mux.HandleFunc("POST /items/{id}/poll", ok)
	mux.HandleFunc("/", ok) // a catch-all allows nothing by itself
	for _, tc := range []struct {
		method, path string
		want         []string
	}{
		{http.MethodPost, "/items/a", []string{"GET", "HEAD", "DELETE"}},
		{http.MethodGet, "/items/a/poll", []string{"POST"}},
		{http.MethodHead, "/items/a/poll", []string{"POST"}},
		{http.MethodGet, "/nothing", nil},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		if got := allow.Methods(mux, r); !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.path, got, tc.want)
		}
		w := httptest.NewRecorder()
		var status int
		refused := allow.Refuse(mux, w, r, func(s int, _ string) { status = s })
		if refused != (tc.want != nil) || (refused && status != http.StatusMethodNotAllowed) {
			t.Errorf("%s %s: Refuse %v, status %d", tc.method, tc.path, refused, status)
		}
	}
}
