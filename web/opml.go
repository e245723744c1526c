package web

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/opml"
	"github.com/dynamo-feeds/dynamo/sources"
)

// opmlData is the page that imports and exports OPML subscription lists.
type opmlData struct {
	File    string // the file imported, as the browser named it
	Error   string // why the file registered nothing
	Report  []sources.ImportResult
	Counts  struct{ Registered, Skipped, Failed int }
	Stopped bool // the import ended before the last entry
}

func (h *Server) opmlPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "opml.html", view{Title: "Import and export OPML", Section: "sources", Data: opmlData{}})
}

// importAction registers the entries of an uploaded OPML file through the
// sources service, as POST /api/sources/import does, and shows what became
// of each. A file that cannot be read whole registers nothing.
func (h *Server) importAction(w http.ResponseWriter, r *http.Request) {
	d := opmlData{}
	answer := func(status int) {
		h.render(w, r, status, "opml.html", view{Title: "Import and export OPML", Section: "sources", Data: d})
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		d.Error = "Choose an OPML file to import."
		answer(http.StatusBadRequest)
		return
	}
	defer f.Close()
	d.File = hdr.Filename
	body, err := io.ReadAll(io.LimitReader(f, sources.MaxImportBytes+1))
	switch {
	case err != nil:
		d.Error = "The file could not be read: " + err.Error()
		answer(http.StatusBadRequest)
		return
	case len(body) > sources.MaxImportBytes:
		d.Error = fmt.Sprintf("The file has more than %d bytes, the most one import takes; nothing was registered.", sources.MaxImportBytes)
		answer(http.StatusRequestEntityTooLarge)
		return
	}
	entries, err := opml.Parse(bytes.NewReader(body))
	if err != nil {
		d.Error = "The file cannot be read as OPML, so nothing was registered: " + err.Error()
		answer(http.StatusBadRequest)
		return
	}
	if len(entries) > sources.MaxImportEntries {
		d.Error = fmt.Sprintf("The file lists %d feeds, more than the %d one import takes; nothing was registered.", len(entries), sources.MaxImportEntries)
		answer(http.StatusBadRequest)
		return
	}
	results, err := h.sources.Import(r.Context(), entries, nil)
	if err != nil && len(results) == 0 {
		h.storeFailed(w, r, "import the file", err)
		return
	}
	d.Stopped = err != nil
	for i := range results {
		res := &results[i]
		switch res.Outcome {
		case sources.ImportRegistered:
			d.Counts.Registered++
		case sources.ImportSkipped:
			d.Counts.Skipped++
		case sources.ImportFailed:
			d.Counts.Failed++
			if !errors.Is(res.Err, dynamo.ErrInvalid) && !errors.Is(res.Err, sources.ErrUnresolvable) {
				h.log.Error("web: import entry failed", "entry", res.Entry, "url", res.URL, "err", res.Err)
				res.Reason = "the store did not answer; it has been logged"
			}
		}
	}
	d.Report = results
	answer(http.StatusOK)
}
