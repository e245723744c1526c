package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/dynamo-feeds/dynamo"
)

// noPollerMessage answers what needs a poller in a process without one.
const noPollerMessage = "this process runs no poller (--role api): the processes of --role poller or all poll the sources on their schedule, " +
	"and the global policy is theirs to switch"

// pollSource answers POST /api/sources/{id}/poll with the poll's outcome.
func (s *Server) pollSource(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Poller == nil {
		writeJSONError(w, http.StatusServiceUnavailable, "", noPollerMessage)
		return
	}
	id := r.PathValue("id")
	out, err := s.cfg.Poller.PollNow(r.Context(), id)
	if errors.Is(err, dynamo.ErrNotFound) {
		err = notFound("no active source %q", id)
	}
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	// The store's change feed will say so too, but this client reads
	// next and must not be served the old answer meanwhile.
	s.cache.invalidate(id)
	writeJSON(w, http.StatusOK, out)
}

// pollerState is what GET and PUT /api/poller answer.
type pollerState struct {
	Policy   string   `json:"policy"`
	Policies []string `json:"policies"`
}

func (s *Server) getPoller(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Poller == nil {
		writeJSONError(w, http.StatusServiceUnavailable, "", noPollerMessage)
		return
	}
	writeJSON(w, http.StatusOK, pollerState{Policy: s.cfg.Poller.Policy(), Policies: s.cfg.Poller.Policies()})
}

func (s *Server) putPoller(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Poller == nil {
		writeJSONError(w, http.StatusServiceUnavailable, "", noPollerMessage)
		return
	}
	var body struct {
		Policy *string `json:"policy"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	policies := s.cfg.Poller.Policies()
	if body.Policy == nil || !slices.Contains(policies, *body.Policy) {
		s.writeAdminError(w, r, invalid("policy must be one of %s", strings.Join(policies, ", ")))
		return
	}
	if err := s.cfg.Poller.SetPolicy(r.Context(), *body.Policy); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	s.getPoller(w, r)
}
