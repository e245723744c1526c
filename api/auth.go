package api

import (
	"net/http"

	"github.com/dynamo-feeds/dynamo/auth"
)

// authorize lets a change through when auth.Authorized does: with the
// configured bearer token, or, when none is configured, from a loopback
// client.
func (s *Server) authorize(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case auth.Authorized(r, s.cfg.AdminToken):
			next(w, r)
		case s.cfg.AdminToken == "":
			writeJSONError(w, http.StatusForbidden, "", "no admin token is configured (DYNAMO_ADMIN_TOKEN), so changes are accepted from loopback clients only")
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="dynamo"`)
			writeJSONError(w, http.StatusUnauthorized, "", "this change needs Authorization: Bearer <the admin token>")
		}
	})
}
