// Package allow holds the one rule by which the API and the web pages answer
// a method a path has no route for: 405 with an Allow header listing the
// methods it has (RFC 9110 §15.5.6), rather than the 404 of the catch-all
// route ("/" or "/ui/") that ServeMux otherwise picks for it.
package allow

import (
	"net/http"
	"strings"
)

// probed are the methods a route may be registered for. HEAD is not among
// them: ServeMux answers HEAD with a GET route.
var probed = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// Methods lists the methods for which mux has a route of r's path other
// than a catch-all one (a pattern without a method), and HEAD with GET; nil
// when it has none, which makes r's answer a 404.
func Methods(mux *http.ServeMux, r *http.Request) []string {
	var allow []string
	for _, m := range probed {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); strings.HasPrefix(pattern, m+" ") {
			allow = append(allow, m)
			if m == http.MethodGet {
				// ServeMux answers HEAD with a GET route, so HEAD is allowed
				// wherever GET is (a HEAD request never gets here then).
				allow = append(allow, http.MethodHead)
			}
		}
	}
	return allow
}

// Refuse answers 405 when mux has routes of r's path for other methods: it
// sets the Allow header, calls write with the status and a message naming
// the method and path, and reports true. Otherwise it writes nothing and
// reports false, and the caller answers its own 404.
func Refuse(mux *http.ServeMux, w http.ResponseWriter, r *http.Request, write func(status int, msg string)) bool {
	methods := Methods(mux, r)
	if len(methods) == 0 {
		return false
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	write(http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed on "+r.URL.Path)
	return true
}
