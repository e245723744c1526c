package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/opml"
	"github.com/dynamo-feeds/dynamo/sources"
)

// Bounds on POST /api/sources/import: those of every import.
const (
	MaxImportBody    = sources.MaxImportBytes
	MaxImportEntries = sources.MaxImportEntries
)

// OPMLContentType is the media type GET /api/sources.opml answers with;
// POST /api/sources/import accepts it, application/xml and text/xml.
const OPMLContentType = "text/x-opml; charset=utf-8"

// exportOPML answers GET /api/sources.opml: every active source, read from
// the store as it is written (twice: opml.WriteEach), so that a list of
// any length is never held whole. A failure before the first byte is
// answered in JSON; after it, the connection is cut, so that the client
// sees a truncated document rather than a short list.
func (s *Server) exportOPML(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", OPMLContentType)
	h.Set("Content-Disposition", `attachment; filename="dynamo-sources.opml"`)
	h.Set("Cache-Control", "no-store")
	out := &countWriter{w: w}
	err := opml.WriteEachSource(out, func(yield func(*dynamo.Source) error) error {
		return s.cfg.Store.EachSource(r.Context(), false, yield)
	}, s.baseURL(r))
	switch {
	case err != nil && out.n == 0:
		h.Del("Content-Disposition")
		s.writeAdminError(w, r, fmt.Errorf("export sources: %w", err))
	case err != nil:
		if r.Context().Err() == nil { // not a client that went away
			s.log.Warn("OPML export cut short", "err", err)
		}
		panic(http.ErrAbortHandler)
	}
}

// importAnswer is what POST /api/sources/import answers.
type importAnswer struct {
	Registered int                    `json:"registered"`
	Skipped    int                    `json:"skipped"`
	Failed     int                    `json:"failed"`
	Entries    []sources.ImportResult `json:"entries"`
}

// opmlTypes are the media types an imported document may be sent as. None
// is one a web page on another site may send without asking first (CORS),
// so such a page cannot make a browser on the operator's machine import.
var opmlTypes = []string{"text/x-opml", "application/xml", "text/xml"}

// importOPML answers POST /api/sources/import with an OPML document as the
// body. A document that cannot be read whole registers nothing.
func (s *Server) importOPML(w http.ResponseWriter, r *http.Request) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	known := false
	for _, t := range opmlTypes {
		known = known || mt == t
	}
	if !known {
		writeJSONError(w, http.StatusUnsupportedMediaType, "",
			fmt.Sprintf("send the OPML document as Content-Type: text/x-opml (or application/xml, text/xml), not %q", r.Header.Get("Content-Type")))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxImportBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSONError(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("the OPML document must be at most %d bytes; nothing was registered", MaxImportBody))
			return
		}
		s.writeAdminError(w, r, fmt.Errorf("read the OPML document: %w", err))
		return
	}
	entries, err := opml.Parse(bytes.NewReader(body))
	if err != nil {
		s.writeAdminError(w, r, invalid("the OPML document cannot be read, so nothing was registered: %v", err))
		return
	}
	if len(entries) > MaxImportEntries {
		s.writeAdminError(w, r, invalid("the OPML document lists %d feeds, more than the %d one import takes; nothing was registered", len(entries), MaxImportEntries))
		return
	}
	results, err := s.sources.Import(r.Context(), entries, nil)
	if err != nil && len(results) == 0 {
		s.writeAdminError(w, r, err)
		return
	}
	ans := importAnswer{Entries: results}
	for i := range results {
		res := &results[i]
		switch res.Outcome {
		case sources.ImportRegistered:
			ans.Registered++
			s.cache.invalidate(res.ID)
		case sources.ImportSkipped:
			ans.Skipped++
		case sources.ImportFailed:
			ans.Failed++
			if !errors.Is(res.Err, dynamo.ErrInvalid) && !errors.Is(res.Err, sources.ErrUnresolvable) {
				s.log.Error("api: import entry failed", "entry", res.Entry, "url", res.URL, "err", res.Err)
				res.Reason = "internal error; it has been logged"
			}
		}
	}
	if err != nil {
		s.log.Warn("api: import stopped", "err", err, "done", len(results), "entries", len(entries))
	}
	writeJSON(w, http.StatusOK, ans)
}
