package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/opml"
)

// Bounds on POST /api/sources/import. A reader's export of a few thousand
// feeds is well under a megabyte.
const (
	MaxImportBody    = 4 << 20 // bytes of an OPML document
	MaxImportEntries = 10_000  // feeds in one import
)

// OPMLContentType is the media type GET /api/sources.opml answers with;
// POST /api/sources/import accepts it, application/xml and text/xml.
const OPMLContentType = "text/x-opml; charset=utf-8"

// opmlFeedItems is how many items the feed a reader subscribes to through
// an exported xmlUrl holds: the source's archive, as the web page's first
// subscribe link offers it.
const opmlFeedItems = 50

// WriteOPML writes sources as an OPML 2.0 subscription list. Each outline's
// xmlUrl is the feed Dynamo serves for the source (its archive, under base,
// the service's public URL), so a feed reader importing the file subscribes
// to Dynamo's feeds; htmlUrl is the page of an html source. The source's
// configuration travels in attributes of opml.Namespace (dynamo:id,
// dynamo:url, dynamo:kind, dynamo:interval, and the others when set), which
// ImportOPML reads back; its category is the outline's folder. The title is
// the source's newest channel title, else its id.
func WriteOPML(w io.Writer, sources []dynamo.Source, base string) error {
	base = strings.TrimRight(base, "/")
	entries := make([]opml.Entry, len(sources))
	for i := range sources {
		entries[i] = opmlEntry(&sources[i], base)
	}
	return opml.Write(w, entries)
}

// opmlEntry is one source's outline.
func opmlEntry(src *dynamo.Source, base string) opml.Entry {
	title := src.Summary.Title
	if title == "" {
		title = src.ID
	}
	e := opml.Entry{
		Title:    title,
		XMLURL:   base + "/resources/" + url.PathEscape(src.ID) + "?max=" + strconv.Itoa(opmlFeedItems),
		Category: src.Category,
		Extra: map[string]string{
			"id":       src.ID,
			"url":      src.URL,
			"kind":     string(src.Kind),
			"interval": src.Interval.String(),
		},
	}
	if src.Kind == dynamo.KindHTML {
		e.HTMLURL = src.URL
	}
	set := func(key, value string) {
		if value != "" {
			e.Extra[key] = value
		}
	}
	set("policy", src.Policy)
	set("title_prefix", src.TitlePrefix)
	set("timezone", src.Timezone)
	if src.Subscribers != 0 {
		e.Extra["subscribers"] = strconv.Itoa(src.Subscribers)
	}
	if src.Paused {
		e.Extra["paused"] = "true"
	}
	// A folder path is read back trimmed and without empty segments; a
	// category that would not survive that travels as it is, too.
	if src.Category != "" && opml.NormalizeCategory(src.Category) != src.Category {
		e.Extra["category"] = src.Category
	}
	return e
}

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

	err error // the failure, to tell the client's errors from the server's
}

// Importer registers the entries of OPML files as sources, with the checks
// and defaults of POST /api/sources. Both POST /api/sources/import and
// `dynamo sources import` use it, so a file means the same to both.
type Importer struct {
	Store dynamo.Store
	// Resolve, when set, resolves kind "auto" (see Config.Resolve). It is
	// called only for entries that ask for kind auto: an entry from another
	// reader's file is a feed by OPML's definition and is registered as
	// one without being fetched.
	Resolve Resolver
	// Policies are the scheduling policy names a source may name; nil
	// accepts any.
	Policies []string
	// Progress, when set, is called after each entry with its result.
	Progress func(ImportResult)
	// Now stamps the sources' creation; nil means time.Now.
	Now func() time.Time
}

// Import registers entries in order and reports each: registered; skipped
// when an active source has the entry's id (given in dynamo:id) or its URL,
// or an earlier entry registered that URL; failed when the entry is not a
// valid source (the reason says why). An entry without dynamo:id gets the
// id POST /api/sources would derive from its URL, made unique with a
// suffix (-2, -3, …) rather than taking over another source's id or kept
// archive. The error is non-nil only when the existing sources cannot be
// listed (nothing is registered) or ctx ends (the results so far are
// returned).
func (im *Importer) Import(ctx context.Context, entries []opml.Entry) ([]ImportResult, error) {
	active, err := im.Store.Sources(ctx)
	if err != nil {
		return nil, fmt.Errorf("import: list sources: %w", err)
	}
	// Removed sources whose archive is kept keep their ids: re-using one
	// for another URL would revive that archive under it.
	kept, err := im.Store.Collections(ctx)
	if err != nil {
		return nil, fmt.Errorf("import: list collections: %w", err)
	}
	st := importState{active: map[string]bool{}, taken: map[string]bool{}, byURL: map[string]string{}}
	for _, s := range active {
		st.active[s.ID], st.taken[s.ID] = true, true
		st.byURL[sameURL(s.URL)] = s.ID
	}
	for _, s := range kept {
		st.taken[s.ID] = true
	}
	now := im.Now
	if now == nil {
		now = time.Now
	}
	results := make([]ImportResult, 0, len(entries))
	for i, e := range entries {
		if err := ctx.Err(); err != nil {
			return results, fmt.Errorf("import stopped after %d of %d entries: %w", i, len(entries), err)
		}
		res := im.importEntry(ctx, &st, e, now().UTC())
		res.Entry, res.Title, res.XMLURL = i+1, e.Title, e.XMLURL
		if res.err != nil && res.Reason == "" {
			res.Reason = res.err.Error()
		}
		results = append(results, res)
		if im.Progress != nil {
			im.Progress(res)
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

func (im *Importer) importEntry(ctx context.Context, st *importState, e opml.Entry, now time.Time) ImportResult {
	src, derived, err := entrySource(e, im.Policies)
	src.CreatedAt = now
	// A failed entry's id is named only when the file gave it.
	failed := func(err error) ImportResult {
		res := ImportResult{Outcome: ImportFailed, URL: src.URL, err: err}
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
	if src.Kind == dynamo.KindAuto && im.Resolve != nil {
		if _, err := im.Resolve(ctx, src); err != nil {
			return failed(err)
		}
		// Discovery may have chosen a feed that is already polled.
		if id, dup := st.byURL[sameURL(src.URL)]; dup {
			return ImportResult{Outcome: ImportSkipped, ID: id, URL: src.URL, Reason: fmt.Sprintf("duplicate: source %q polls %s, the feed found for this URL", id, src.URL)}
		}
	}
	if derived {
		id, ok := freeID(st.taken, src.ID)
		if !ok {
			return failed(invalid("ids %s to %s-99 are all taken: give the entry one in dynamo:id", src.ID, src.ID))
		}
		src.ID = id
	}
	if err := im.Store.CreateSource(ctx, src); err != nil {
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

// entrySource makes the source an entry describes, validated as POST
// /api/sources validates; derived is true when its id was not given but
// derived from its URL. Without dynamo:kind an entry is a feed, since
// OPML's xmlUrl is a feed's address.
func entrySource(e opml.Entry, policies []string) (src *dynamo.Source, derived bool, err error) {
	src = &dynamo.Source{Kind: dynamo.KindFeed, Interval: DefaultInterval}
	f := sourceFields{}
	str := func(v string) *string { return &v }
	feedURL, category := strings.TrimSpace(e.XMLURL), e.Category
	var unknown []string
	for k, v := range e.Extra {
		switch k {
		case "id":
			f.ID = str(v)
		case "url":
			feedURL = strings.TrimSpace(v)
		case "kind":
			f.Kind = str(v)
		case "interval":
			d, err := dynamo.ParseDuration(v)
			if err != nil {
				src.URL = feedURL
				return src, false, invalid("dynamo:interval: %v", err)
			}
			f.Interval = &d
		case "policy":
			f.Policy = str(v)
		case "category":
			category = v
		case "title_prefix":
			f.TitlePrefix = str(v)
		case "subscribers":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				src.URL = feedURL
				return src, false, invalid("dynamo:subscribers %q is not a whole number", v)
			}
			f.Subscribers = &n
		case "timezone":
			f.Timezone = str(v)
		case "paused":
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				src.URL = feedURL
				return src, false, invalid("dynamo:paused %q must be true or false", v)
			}
			f.Paused = &b
		default:
			unknown = append(unknown, "dynamo:"+k)
		}
	}
	src.URL = feedURL
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return src, false, invalid("unknown attribute %s: Dynamo reads dynamo:id, url, kind, interval, policy, category, title_prefix, subscribers, timezone, paused", strings.Join(unknown, ", "))
	}
	f.URL, f.Category = &feedURL, &category
	if f.ID == nil {
		derived = true
		f.ID = str(deriveID(feedURL))
	}
	if err := f.apply(src, policies); err != nil {
		return src, derived, err
	}
	return src, derived, nil
}

// freeID returns id, or id with the first suffix -2, -3, … that is not
// taken, within the 64 bytes of an id.
func freeID(taken map[string]bool, id string) (string, bool) {
	for n := 1; n < 100; n++ {
		candidate := id
		if n > 1 {
			suffix := "-" + strconv.Itoa(n)
			candidate = strings.TrimRight(id[:min(len(id), 64-len(suffix))], "-.") + suffix
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

// exportOPML answers GET /api/sources.opml: every active source.
func (s *Server) exportOPML(w http.ResponseWriter, r *http.Request) {
	sources, err := s.cfg.Store.Sources(r.Context())
	if err != nil {
		s.writeAdminError(w, r, fmt.Errorf("list sources: %w", err))
		return
	}
	var buf bytes.Buffer
	if err := WriteOPML(&buf, sources, s.baseURL(r)); err != nil {
		s.writeAdminError(w, r, fmt.Errorf("export sources: %w", err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", OPMLContentType)
	h.Set("Content-Disposition", `attachment; filename="dynamo-sources.opml"`)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Write(buf.Bytes())
}

// importAnswer is what POST /api/sources/import answers.
type importAnswer struct {
	Registered int            `json:"registered"`
	Skipped    int            `json:"skipped"`
	Failed     int            `json:"failed"`
	Entries    []ImportResult `json:"entries"`
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
	im := &Importer{Store: s.cfg.Store, Resolve: s.resolve, Policies: s.policies(), Now: s.cfg.Now}
	results, err := im.Import(r.Context(), entries)
	if err != nil && len(results) == 0 {
		s.writeAdminError(w, r, err)
		return
	}
	ans := importAnswer{Entries: results}
	for i := range results {
		res := &results[i]
		switch res.Outcome {
		case ImportRegistered:
			ans.Registered++
			s.cache.invalidate(res.ID)
		case ImportSkipped:
			ans.Skipped++
		case ImportFailed:
			ans.Failed++
			if !errors.Is(res.err, dynamo.ErrInvalid) && !errors.Is(res.err, ErrUnresolvable) {
				s.log.Error("api: import entry failed", "entry", res.Entry, "url", res.URL, "err", res.err)
				res.Reason = "internal error; it has been logged"
			}
		}
	}
	if err != nil {
		s.log.Warn("api: import stopped", "err", err, "done", len(results), "entries", len(entries))
	}
	writeJSON(w, http.StatusOK, ans)
}
