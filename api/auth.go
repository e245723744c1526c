package api

import (
	"net/http"
	"time"

	"github.com/dynamo-feeds/dynamo/auth"
)

// authorize lets a change through when the access rule does (auth.Access):
// with the configured bearer token, or, when none is configured, from a
// local client that addressed Dynamo by a loopback literal.
func (s *Server) authorize(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait := s.access.Check(r)
		switch {
		case ok:
			// An operator's change (a poll, an OPML import resolving
			// every entry) may take longer than the write timeout meant
			// for anonymous slow readers (serve --write-timeout).
			http.NewResponseController(w).SetWriteDeadline(time.Time{})
			next(w, r)
		case wait > 0:
			auth.RetryAfter(w, wait)
			writeJSONError(w, http.StatusTooManyRequests, "", auth.TooManyGuesses)
		case s.access.Token == "":
			writeJSONError(w, http.StatusForbidden, "", s.access.Refusal())
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="dynamo"`)
			writeJSONError(w, http.StatusUnauthorized, "", s.access.Refusal())
		}
	})
}

// sameSite refuses requests that a browser reports as coming from another
// site (http.CrossOriginProtection: Sec-Fetch-Site, else Origin against
// Host), whatever their body or content type, so that a form or a fetch on
// another site cannot make a visitor's browser act here.
func sameSite(next http.Handler) http.Handler {
	return crossOrigin.Handler(next)
}

var crossOrigin = func() *http.CrossOriginProtection {
	c := http.NewCrossOriginProtection()
	c.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusForbidden, "", "a browser sent this change from another site: refused (cross-origin protection)")
	}))
	return c
}()
