package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// suggestView is what "Suggest annotations" shows: the list chosen and
// why, the changes to the page line by line, and the same choice as the
// selectors of a source that follows the page as it is.
type suggestView struct {
	List     annotate.Structure
	Notes    []string
	Channel  []string
	Explain  string
	Diff     []diffLine
	DiffCut  bool // Diff is the first maxShownRows changed lines
	Inserted int  // comments inserted

	Selectors     []selectorRow
	SelectorNote  string
	SelectorItems int // items the selectors give
	SelectorsJSON string
	// Register are the settings of the selectors source, for the form
	// that registers it; nil when the page has no URL to poll.
	Register []settingField
}

// selectorRow is one selector of the suggested selectors source.
type selectorRow struct{ Field, Expr string }

// diffLine is one line the suggestion changed: as it was, and as it
// becomes, the inserted comments marked.
type diffLine struct {
	N   int
	Old string
	New []run
}

// suggest runs the suggester on a page and prepares what the playground
// shows: the suggestion, and what the wrapper makes of the annotated page.
func (h *Server) suggest(page []byte, opts wrapper.Options, source string, d *playgroundData) {
	res, err := suggestion(page, opts)
	if err != nil {
		d.Error = "Dynamo could not suggest annotations for this page: " + err.Error() + "."
		return
	}
	d.Original = d.Page
	d.Result = play(res.Page, opts, source+", with the annotations Dynamo suggests", nil)
	d.Page = d.Result.pageText
	sv := &suggestView{List: res.List, Notes: res.Notes, Channel: res.Channel, Inserted: len(res.Inserted)}
	var explain strings.Builder
	if err := res.Explain(&explain); err == nil {
		sv.Explain = explain.String()
	}
	before := wrapper.Wrap(page, opts).Text
	sv.Diff = diffLines(before, d.Result.pageText)
	sv.DiffCut = len(sv.Diff) == maxShownRows
	sel, note, err := res.Selectors()
	switch {
	case err != nil:
		sv.SelectorNote = "These annotations cannot be written as selectors: " + err.Error() + "."
	default:
		sv.SelectorNote = note
		h.describeSelectors(page, opts, sel, sv)
	}
	d.Suggest = sv
}

// describeSelectors lists the selectors, counts the items they give, and
// prepares the form that registers them as a source.
func (h *Server) describeSelectors(page []byte, opts wrapper.Options, sel annotate.Selectors, sv *suggestView) {
	src := dynamo.NewSource("", "")
	if u, err := url.Parse(opts.URL); err == nil && (u.Scheme == "http" || u.Scheme == "https") && !strings.HasPrefix(opts.URL, exampleHost+"/") {
		src.URL, src.ID = opts.URL, dynamo.DeriveSourceID(opts.URL)
	}
	sel.SetOn(src)
	for _, f := range []struct{ name, expr string }{
		{"item", sel.Item}, {"title", sel.Title}, {"link", sel.Link}, {"description", sel.Description}, {"date", sel.Date},
	} {
		if f.expr != "" {
			sv.Selectors = append(sv.Selectors, selectorRow{f.name, f.expr})
		}
	}
	if c, err := sel.Compile(); err == nil {
		if f, err := annotate.Follow(page, c, annotate.Options{URL: opts.URL, ContentType: opts.ContentType, Location: opts.Location}); err == nil {
			sv.SelectorItems = len(f.Wrapped.Resource.Items)
		}
	}
	var fields []string
	for _, name := range dynamo.ConfigFields() {
		if text, set := src.ConfigText(name); set {
			fields = append(fields, fmt.Sprintf("%q: %q", name, text))
		}
	}
	sv.SelectorsJSON = "{" + strings.Join(fields, ", ") + "}"
	if src.URL != "" {
		sv.Register = h.settingFields(src, true)
	}
}

// diffLines compares a page with its annotated copy line by line: the
// suggester only inserts comments, never a line break, so line n of one is
// line n of the other.
// It lists the first maxShownRows changed lines, walking the two pages
// without splitting them (a page of ten million lines would cost 320 MB
// of slices).
func diffLines(before, after string) []diffLine {
	if strings.Count(before, "\n") != strings.Count(after, "\n") {
		return nil
	}
	var out []diffLine
	for n := 1; len(out) < maxShownRows; n++ {
		old, restOld, more := strings.Cut(before, "\n")
		cur, restCur, _ := strings.Cut(after, "\n")
		if old != cur {
			out = append(out, diffLine{N: n, Old: old, New: markInserted(old, cur)})
		}
		if !more {
			break
		}
		before, after = restOld, restCur
	}
	return out
}

// markInserted cuts an annotated line into runs, the inserted annotation
// comments marked: where the two differ, the annotated line holds a whole
// comment the page did not have there.
func markInserted(old, cur string) []run {
	var out []run
	plain := func(s string) {
		if s == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].Class == "" {
			out[n-1].Text += s
			return
		}
		out = append(out, run{Text: s})
	}
	i, j := 0, 0
	for j < len(cur) {
		if k := insertedComment(cur[j:]); k > 0 && !strings.HasPrefix(old[i:], cur[j:j+k]) {
			out = append(out, run{Text: cur[j : j+k], Class: "ins"})
			j += k
			continue
		}
		if i < len(old) && old[i] == cur[j] {
			plain(cur[j : j+1])
			i, j = i+1, j+1
			continue
		}
		plain(cur[j:])
		break
	}
	return out
}

// insertedComment returns the length of the annotation comment s starts
// with, as the suggester writes them, or 0.
func insertedComment(s string) int {
	for _, p := range []string{"<!-- <item:", "<!-- </item:", "<!-- <channel:", "<!-- </channel:"} {
		if strings.HasPrefix(s, p) {
			if k := strings.Index(s, " -->"); k > 0 {
				return k + len(" -->")
			}
		}
	}
	return 0
}

// suggestion runs the suggester on a page within the size rule every
// reader of pages follows (docs/WRAPPER.md, "Size cap"): a page of at
// most dynamo.MaxPageBytes, whose annotated copy Dynamo reads everywhere
// (the items' dates, then descriptions, left out with a note if need be).
func suggestion(page []byte, opts wrapper.Options) (*annotate.Result, error) {
	if err := dynamo.CheckPage(len(page)); err != nil {
		return nil, err
	}
	return annotate.Suggest(page, annotate.Options{URL: opts.URL, ContentType: opts.ContentType, Location: opts.Location, MaxBytes: dynamo.MaxAnnotatedPageBytes})
}

// download answers the annotated page as a file, in the page's own bytes
// and encoding; it says why when there is none (no list was found, or the
// page is too large).
func (h *Server) download(w http.ResponseWriter, page []byte, opts wrapper.Options) error {
	res, err := suggestion(page, opts)
	if err != nil {
		return err
	}
	ct := opts.ContentType
	if ct == "" {
		ct = "text/html; charset=utf-8"
	}
	name := "page"
	if u, err := url.Parse(opts.URL); err == nil {
		if base := strings.TrimSuffix(path.Base(u.Path), path.Ext(u.Path)); base != "" && base != "." && base != "/" {
			name = base
		}
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.annotated.html"`, strings.Map(func(r rune) rune {
		if r < 0x20 || r == '"' || r == '\\' || r > 0x7e {
			return '_'
		}
		return r
	}, name)))
	w.Header().Set("Cache-Control", "no-store")
	w.Write(res.Page)
	return nil
}

// sourceInput fetches a source's page for the playground, as the poller
// reads it: in its time zone, and for a selectors source, through its
// selectors (returned as follow).
func (h *Server) sourceInput(ctx context.Context, id string, d *playgroundData) ([]byte, wrapper.Options, string, *dynamo.Source, error) {
	src, err := h.cfg.Store.Source(ctx, id)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, wrapper.Options{}, "", nil, fmt.Errorf("there is no source %q", id)
	}
	if err != nil {
		return nil, wrapper.Options{}, "", nil, fmt.Errorf("the store did not answer: %v", err)
	}
	page, opts, _, err := h.fetchPage(ctx, src.URL, d)
	if err != nil {
		return nil, opts, "", nil, err
	}
	opts.RSSID = src.ID
	if loc, err := time.LoadLocation(src.Timezone); src.Timezone != "" && err == nil {
		opts.Location, d.TimeZone = loc, src.Timezone
	}
	var follow *dynamo.Source
	if src.Kind == dynamo.KindSelectors {
		follow = src
	}
	return page, opts, fmt.Sprintf("the page of source %s, fetched from %s", src.ID, opts.URL), follow, nil
}

// followSource shows a page read through a selectors source's selectors:
// the annotations their matches stand for, highlighted, and the
// selectors' warnings with the wrapper's.
func (h *Server) followSource(page []byte, opts wrapper.Options, source string, src *dynamo.Source, d *playgroundData) {
	c, err := annotate.SourceSelectors(src).Compile()
	if err != nil {
		d.Error = "The source's selectors do not read: " + err.Error() + "."
		return
	}
	f, err := annotate.Follow(page, c, annotate.Options{URL: opts.URL, ContentType: opts.ContentType, Location: opts.Location, RSSID: opts.RSSID})
	if err != nil {
		d.Error = "The source's selectors do not read this page: " + err.Error() + "."
		return
	}
	d.Result = play(f.Page, opts, source+", read through its selectors (shown as the annotations they stand for)", f.SelectorWarnings)
	d.Page = d.Result.pageText
}
