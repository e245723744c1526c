package sources

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/opml"
)

// Bounds on one OPML import, for every entry point that takes a file (the
// admin API, the web form). A reader's export of a few thousand feeds is
// well under a megabyte.
const (
	MaxImportBytes   = 4 << 20 // bytes of an OPML document
	MaxImportEntries = 10_000  // feeds in one import
)

// ImportOutcome is what became of one entry of an imported OPML file.
type ImportOutcome string

// The outcomes of an entry.
const (
	ImportRegistered ImportOutcome = "registered" // a new source was created
	ImportSkipped    ImportOutcome = "skipped"    // a source with its id or URL exists
	ImportFailed     ImportOutcome = "failed"     // the entry is not a valid source
)

// ImportResult reports one entry of an imported OPML file.
type ImportResult struct {
	Entry   int           `json:"entry"` // 1-based position among the file's feeds
	Title   string        `json:"title,omitempty"`
	XMLURL  string        `json:"xml_url"` // as the file gives it
	Outcome ImportOutcome `json:"outcome"`
	// ID is the created source's id; for a skipped entry, the existing
	// source's; for a failed one, the id the file gave, if any.
	ID string `json:"id,omitempty"`
	// URL is what the source polls (registered), or the URL the entry
	// asked for (skipped, failed).
	URL    string            `json:"url,omitempty"`
	Kind   dynamo.SourceKind `json:"kind,omitempty"`
	Reason string            `json:"reason,omitempty"` // why it was skipped or failed
	// Err is a failed entry's error, to tell the client's mistakes
	// (dynamo.ErrInvalid, ErrUnresolvable) from the server's.
	Err error `json:"-"`
}

// Import registers OPML entries as sources, in order, and reports each:
// registered; skipped when an active source has the entry's id (given in
// dynamo:id) or its URL, or an earlier entry registered that URL; failed
// when the entry is not a valid source (the reason says why). Entries are
// read by opml.EntrySource and checked as Create checks; kind auto is
// resolved (an entry from another reader's file is a feed and is
// registered as one without being fetched). An entry without dynamo:id
// gets its derived id made unique with a suffix (-2, -3, …) rather than
// taking over another source's id or kept archive. progress, when set, is
// called after each entry. The error is non-nil only when the existing
// sources cannot be listed (nothing is registered) or ctx ends (the
// results so far are returned).
func (s *Service) Import(ctx context.Context, entries []opml.Entry, progress func(ImportResult)) ([]ImportResult, error) {
	active, err := s.Store.Sources(ctx)
	if err != nil {
		return nil, fmt.Errorf("import: list sources: %w", err)
	}
	// Removed sources whose archive is kept keep their ids: re-using one
	// for another URL would revive that archive under it.
	kept, err := s.Store.Collections(ctx)
	if err != nil {
		return nil, fmt.Errorf("import: list collections: %w", err)
	}
	st := importState{active: map[string]bool{}, taken: map[string]bool{}, byURL: map[string]string{}}
	for _, src := range active {
		st.active[src.ID], st.taken[src.ID] = true, true
		st.byURL[sameURL(src.URL)] = src.ID
	}
	for _, src := range kept {
		st.taken[src.ID] = true
	}
	results := make([]ImportResult, 0, len(entries))
	for i, e := range entries {
		if err := ctx.Err(); err != nil {
			return results, fmt.Errorf("import stopped after %d of %d entries: %w", i, len(entries), err)
		}
		res := s.importEntry(ctx, &st, e)
		res.Entry, res.Title, res.XMLURL = i+1, e.Title, e.XMLURL
		if res.Err != nil && res.Reason == "" {
			res.Reason = res.Err.Error()
		}
		results = append(results, res)
		if progress != nil {
			progress(res)
		}
	}
	return results, nil
}

// importState is what an import knows of the store's active sources,
// updated as entries are registered.
type importState struct {
	active map[string]bool   // ids of active sources
	taken  map[string]bool   // ids of active sources and of kept archives
	byURL  map[string]string // active sources' ids by URL (sameURL form)
}

func (s *Service) importEntry(ctx context.Context, st *importState, e opml.Entry) ImportResult {
	src, derived, err := opml.EntrySource(e)
	if err == nil {
		err = s.Check(src)
	}
	// A failed entry's id is named only when the file gave it.
	failed := func(err error) ImportResult {
		res := ImportResult{Outcome: ImportFailed, URL: src.URL, Err: err}
		if !derived {
			res.ID = src.ID
		}
		return res
	}
	if err != nil {
		return failed(err)
	}
	if id, dup := st.byURL[sameURL(src.URL)]; dup {
		return ImportResult{Outcome: ImportSkipped, ID: id, URL: src.URL, Reason: fmt.Sprintf("duplicate: source %q polls this URL", id)}
	}
	if !derived && st.active[src.ID] {
		return ImportResult{Outcome: ImportSkipped, ID: src.ID, URL: src.URL, Reason: fmt.Sprintf("duplicate: a source with id %q exists", src.ID)}
	}
	auto := src.Kind == dynamo.KindAuto
	if _, err := s.resolve(ctx, src); err != nil {
		return failed(err)
	}
	if auto {
		// Discovery may have chosen a feed that is already polled.
		if id, dup := st.byURL[sameURL(src.URL)]; dup {
			return ImportResult{Outcome: ImportSkipped, ID: id, URL: src.URL, Reason: fmt.Sprintf("duplicate: source %q polls %s, the feed found for this URL", id, src.URL)}
		}
	}
	if derived {
		id, ok := freeID(st.taken, src.ID)
		if !ok {
			return failed(dynamo.Invalidf("ids %s to %s-99 are all taken: give the entry one in dynamo:id", src.ID, src.ID))
		}
		src.ID = id
	}
	src.CreatedAt = s.now()
	if err := s.Store.CreateSource(ctx, src); err != nil {
		if errors.Is(err, dynamo.ErrConflict) {
			// Created meanwhile by another client.
			return ImportResult{Outcome: ImportSkipped, ID: src.ID, URL: src.URL, Reason: fmt.Sprintf("duplicate: a source with id %q exists", src.ID)}
		}
		return failed(fmt.Errorf("create source %s: %w", src.ID, err))
	}
	st.active[src.ID], st.taken[src.ID] = true, true
	st.byURL[sameURL(src.URL)] = src.ID
	return ImportResult{Outcome: ImportRegistered, ID: src.ID, URL: src.URL, Kind: src.Kind}
}

// freeID returns id, or id with the first suffix -2, -3, … that is not
// taken, within the bytes of an id.
func freeID(taken map[string]bool, id string) (string, bool) {
	for n := 1; n < 100; n++ {
		candidate := id
		if n > 1 {
			suffix := "-" + strconv.Itoa(n)
			candidate = strings.TrimRight(id[:min(len(id), dynamo.MaxSourceIDLength-len(suffix))], "-.") + suffix
		}
		if !taken[candidate] {
			return candidate, true
		}
	}
	return "", false
}

// sameURL is the form in which URLs are compared to find duplicates: the
// scheme and host in lower case, without a fragment.
func sameURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	u.Scheme, u.Host, u.Fragment, u.RawFragment = strings.ToLower(u.Scheme), strings.ToLower(u.Host), "", ""
	return u.String()
}
