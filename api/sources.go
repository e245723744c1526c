package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/poller/policy"
)

// DefaultPolls is how many recent polls are shown with a source.
const DefaultPolls = 20

// sourceBody reads a source's JSON body: the object as it was sent, to
// apply with dynamo.Source.ApplyJSON, and which fields it names.
func sourceBody(w http.ResponseWriter, r *http.Request) (json.RawMessage, map[string]json.RawMessage, error) {
	var raw json.RawMessage
	if err := decodeJSON(w, r, &raw); err != nil {
		return nil, nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, nil, invalid("the body is not a valid JSON object for this request: want an object of source fields")
	}
	return raw, fields, nil
}

// applyBody sets the fields of a source's body on src.
func applyBody(src *dynamo.Source, raw json.RawMessage) error {
	if err := src.ApplyJSON(raw); err != nil {
		if errors.Is(err, dynamo.ErrInvalid) {
			return err
		}
		return invalid("the body is not a valid JSON object for this request: %v", err)
	}
	return nil
}

// stringField reads a string field of a body, "" when absent or not one.
func stringField(fields map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := fields[name]
	var s string
	if ok && json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, ok && string(raw) != "null"
}

// createSource answers POST /api/sources. A body without an id gets the
// one dynamo.DeriveSourceID makes of its URL.
func (s *Server) createSource(w http.ResponseWriter, r *http.Request) {
	raw, fields, err := sourceBody(w, r)
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	src := dynamo.NewSource("", "")
	if err := applyBody(src, raw); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	if _, given := stringField(fields, "id"); !given {
		src.ID = dynamo.DeriveSourceID(src.URL)
	}
	found, err := s.sources.Create(r.Context(), src)
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	s.cache.invalidate(src.ID)
	stored, err := s.cfg.Store.Source(r.Context(), src.ID)
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("read created source %s: %w", src.ID, err))
		return
	}
	w.Header().Set("Location", "/api/sources/"+url.PathEscape(src.ID))
	writeJSON(w, http.StatusCreated, createdSource{Source: stored, Discovery: found})
}

// createdSource is a registered source and, when its URL was a site whose
// feed was discovered, the discovery: the feed chosen and every other
// candidate, with how each was found.
type createdSource struct {
	*dynamo.Source
	Discovery *discovery.Result `json:"discovery,omitempty"`
}

// listSources answers GET /api/sources: the active sources.
func (s *Server) listSources(w http.ResponseWriter, r *http.Request) {
	err := writeJSONList(w, nil, "sources", func(item func(any) error) error {
		return s.cfg.Store.EachSource(r.Context(), false, func(src *dynamo.Source) error { return item(src) })
	})
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("list sources: %w", err))
	}
}

// sourceDetail is a source with what its scheduler learnt and its recent
// polls, as GET answers it.
type sourceDetail struct {
	*dynamo.Source
	Schedule policy.Summary        `json:"schedule"`
	Polls    []dynamo.PollLogEntry `json:"polls"`
	// Warnings are the warnings of the last page read (the state's), an
	// empty list when there are none, where an operator looks first.
	Warnings []dynamo.Warning `json:"warnings"`
	// WebSub is the source's subscription to its hub, when it advertises
	// one and Dynamo subscribed (docs/WEBSUB.md).
	WebSub *dynamo.Subscription `json:"websub,omitempty"`
}

// getSource answers GET /api/sources/{id}.
func (s *Server) getSource(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	src, err := s.source(r.Context(), id)
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	polls, err := s.cfg.Store.Polls(r.Context(), id, DefaultPolls)
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("read polls of %s: %w", id, err))
		return
	}
	if polls == nil {
		polls = []dynamo.PollLogEntry{}
	}
	warnings := src.State.Warnings
	if warnings == nil {
		warnings = []dynamo.Warning{}
	}
	sub, err := s.cfg.Store.Subscription(r.Context(), id)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		s.writeAdminError(w, r, fmt.Errorf("read the websub subscription of %s: %w", id, err))
		return
	}
	writeJSON(w, http.StatusOK, sourceDetail{Source: src, Schedule: scheduleSummary(src, s.cfg.Now()), Polls: polls, Warnings: warnings, WebSub: sub})
}

func (s *Server) source(ctx context.Context, id string) (*dynamo.Source, error) {
	src, err := s.cfg.Store.Source(ctx, id)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, notFound("no source %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read source %s: %w", id, err)
	}
	return src, nil
}

// changeSource answers PATCH (change the given fields) and PUT (replace
// the configuration; absent fields take their defaults) on a source.
func (s *Server) changeSource(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	raw, fields, err := sourceBody(w, r)
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	if bodyID, given := stringField(fields, "id"); given && bodyID != id {
		s.writeAdminError(w, r, invalid("id cannot be changed (the body says %q, the URL %q): create a new source instead", bodyID, id))
		return
	}
	src, err := s.source(r.Context(), id)
	if err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	before := *src
	if r.Method == http.MethodPut {
		if _, given := stringField(fields, "url"); !given {
			s.writeAdminError(w, r, invalid("url is required: PUT replaces the whole configuration (PATCH changes some fields)"))
			return
		}
		fresh := dynamo.NewSource(src.ID, "")
		fresh.CreatedAt, fresh.State, fresh.Summary = src.CreatedAt, src.State, src.Summary
		src = fresh
	}
	if err := applyBody(src, raw); err != nil {
		s.writeAdminError(w, r, err)
		return
	}
	if err := s.sources.Change(r.Context(), src, &before); err != nil {
		if errors.Is(err, dynamo.ErrNotFound) {
			err = notFound("source %q is removed: create it again to revive its archive", id)
		}
		s.writeAdminError(w, r, err)
		return
	}
	s.cache.invalidate(id)
	stored, err := s.cfg.Store.Source(r.Context(), id)
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("read changed source %s: %w", id, err))
		return
	}
	writeJSON(w, http.StatusOK, stored)
}

// deleteSource answers DELETE /api/sources/{id}[?purge=true].
func (s *Server) deleteSource(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	purge := false
	for name, values := range r.URL.Query() {
		if name != "purge" || len(values) != 1 {
			s.writeAdminError(w, r, badParam(name, "DELETE accepts one parameter, purge=true|false"))
			return
		}
		switch values[0] {
		case "true", "1":
			purge = true
		case "false", "0":
		default:
			s.writeAdminError(w, r, badParam("purge", "purge must be true or false, not %q", values[0]))
			return
		}
	}
	if err := s.cfg.Store.DeleteSource(r.Context(), id, purge); err != nil {
		if errors.Is(err, dynamo.ErrNotFound) {
			err = notFound("no source %q", id)
		}
		s.writeAdminError(w, r, err)
		return
	}
	s.cache.invalidate(id)
	w.WriteHeader(http.StatusNoContent)
}
