package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/annotate"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/nativefeed"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/wrapper"
)

// addData is what the page that adds a source shows: the form, and after
// "Preview" what Dynamo found at the URL, before anything is saved.
type addData struct {
	Fields  []settingField
	Preview *addPreview
	Error   string // a failure that concerns no one field
}

// addPreview is the resolution of a URL, as it would be registered.
type addPreview struct {
	Given     string // the URL typed
	URL       string // what the source would poll
	Kind      dynamo.SourceKind
	Discovery *discovery.Result // when discovery chose the feed
	Title     string            // the channel's
	Items     []dynamo.Item     // the first items read, at most previewItems
	Total     int               // items read
	ItemsNote string            // why no items are shown, if none are
}

// previewItems bounds the items a preview lists.
const previewItems = 5

// addPage shows the form that adds a source.
func (h *Server) addPage(w http.ResponseWriter, r *http.Request) {
	src := dynamo.NewSource("", "")
	if u := r.URL.Query().Get("url"); u != "" {
		src.URL = u
	}
	h.render(w, r, http.StatusOK, "add.html", view{Title: "Add a source", Section: "sources",
		Data: addData{Fields: h.settingFields(src, true)}})
}

// previewAction resolves the form's URL as registering it would (kind
// auto: the page, a feed, or discovery) and reads its first items, saving
// nothing: the form comes back filled with what was found, to be added as
// it is or changed.
func (h *Server) previewAction(w http.ResponseWriter, r *http.Request) {
	src := dynamo.NewSource("", "")
	if err := readSettings(r, src); err != nil {
		h.formRefused(w, r, src, err)
		return
	}
	if src.ID == "" {
		src.ID = dynamo.DeriveSourceID(src.URL) // as registering derives it, from the URL given
	}
	if err := h.sources.Check(src); err != nil {
		h.formRefused(w, r, src, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*timeout)
	defer cancel()
	p := &addPreview{Given: src.URL}
	if src.Kind == dynamo.KindAuto && h.cfg.Resolve != nil {
		found, err := h.cfg.Resolve(ctx, src)
		if err != nil {
			h.formRefused(w, r, src, err)
			return
		}
		p.Discovery = found
	}
	p.URL, p.Kind = src.URL, src.Kind
	h.readPreview(ctx, src, p)
	h.render(w, r, http.StatusOK, "add.html", view{Title: "Add a source", Section: "sources",
		Data: addData{Fields: h.settingFields(src, true), Preview: p}})
}

// readPreview fetches the resolved URL and reads it as the poller would,
// keeping the first items.
func (h *Server) readPreview(ctx context.Context, src *dynamo.Source, p *addPreview) {
	if h.cfg.Fetch == nil {
		p.ItemsNote = "This server does not fetch pages for previews; the items will show after the first poll."
		return
	}
	if src.Kind == dynamo.KindAuto {
		p.ItemsNote = "The kind is still auto (no resolver runs here): it is found out when the source is saved."
		return
	}
	body, contentType, final, err := h.cfg.Fetch(ctx, src.URL)
	if err != nil {
		p.ItemsNote = "Reading " + src.URL + " failed: " + err.Error()
		return
	}
	if final == "" {
		final = src.URL
	}
	res, err := readAs(src, body, contentType, final)
	if err != nil {
		p.ItemsNote = err.Error()
		return
	}
	p.Title, p.Total = res.Channel.Title, len(res.Items)
	p.Items = res.Items[:min(len(res.Items), previewItems)]
	if p.Total == 0 {
		p.ItemsNote = "The page was read, and holds no item yet."
	}
}

// readAs reads a fetched body as a source of src's kind reads it.
func readAs(src *dynamo.Source, body []byte, contentType, final string) (*dynamo.Resource, error) {
	loc := time.UTC
	if src.Timezone != "" {
		if l, err := time.LoadLocation(src.Timezone); err == nil {
			loc = l
		}
	}
	switch src.Kind {
	case dynamo.KindFeed:
		res, err := nativefeed.Parse(body, contentType, nativefeed.Options{URL: final, RSSID: "preview", Location: loc})
		if err != nil {
			return nil, fmt.Errorf("the feed does not read: %v", err)
		}
		return res.Resource, nil
	case dynamo.KindSelectors:
		c, err := annotate.SourceSelectors(src).Compile()
		if err != nil {
			return nil, fmt.Errorf("the selectors do not read: %v", err)
		}
		f, err := annotate.Follow(body, c, annotate.Options{URL: final, ContentType: contentType, Location: loc, RSSID: "preview"})
		if err != nil {
			return nil, fmt.Errorf("the selectors do not read this page: %v", err)
		}
		return f.Wrapped.Resource, nil
	}
	return wrapper.Wrap(body, wrapper.Options{URL: final, ContentType: contentType, Location: loc, RSSID: "preview"}).Resource, nil
}

// fieldOf names the configuration field an error concerns, "" when it
// concerns none: the field a form value did not read as, else the one the
// domain's message starts with ("interval 1s must be …"), the URL for a
// URL that cannot be read or holds nothing to poll, the id for a taken id.
func fieldOf(err error) string {
	var pe *dynamo.ParamError
	if errors.As(err, &pe) && pe.Param != "" {
		return pe.Param
	}
	switch {
	case errors.Is(err, sources.ErrUnresolvable):
		return "url"
	case errors.Is(err, dynamo.ErrConflict):
		return "id"
	}
	msg := refusal(err)
	if strings.HasPrefix(msg, "kind auto:") {
		return "url"
	}
	if strings.HasPrefix(msg, "selectors are set") {
		return "kind"
	}
	best := ""
	for _, name := range dynamo.ConfigFields() {
		if strings.HasPrefix(msg, name+" ") && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		for _, name := range dynamo.ConfigFields() {
			if strings.Contains(msg, name) && strings.HasSuffix(name, "_selector") {
				return name
			}
		}
	}
	return best
}

// withError returns the fields as the refused form was filled (values as
// typed, even those that do not read), with err's message next to the
// field it concerns; ok is false when it concerns none.
func withError(fields []settingField, r *http.Request, err error) (out []settingField, ok bool) {
	name := fieldOf(err)
	for i := range fields {
		if v, typed := r.PostForm[fields[i].Name]; typed && len(v) > 0 {
			fields[i].Value = v[0]
		}
		if fields[i].Name == name {
			fields[i].Error = refusal(err)
			ok = true
		}
	}
	return fields, ok
}

// formRefused answers a refused add form: the form again, as it was
// filled, with the reason next to its field, 400 (409 for a taken id, 500
// when the store failed).
func (h *Server) formRefused(w http.ResponseWriter, r *http.Request, src *dynamo.Source, err error) {
	status := http.StatusBadRequest
	switch {
	case errors.Is(err, dynamo.ErrConflict):
		status = http.StatusConflict
	case !errors.Is(err, dynamo.ErrInvalid) && !errors.Is(err, sources.ErrUnresolvable):
		h.storeFailed(w, r, "register the source", err)
		return
	}
	d := addData{}
	var ok bool
	if d.Fields, ok = withError(h.settingFields(src, true), r, err); !ok {
		d.Error = refusal(err)
	}
	h.render(w, r, status, "add.html", view{Title: "Add a source", Section: "sources", Data: d})
}

// editData is the page that changes a source's settings.
type editData struct {
	Source *dynamo.Source
	Fields []settingField
	Error  string
}

// editPage shows a source's settings form on a page of its own.
func (h *Server) editPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	src, err := h.cfg.Store.Source(r.Context(), id)
	if errors.Is(err, dynamo.ErrNotFound) {
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no source %q.", id))
		return
	}
	if err != nil {
		h.storeFailed(w, r, "read source", err)
		return
	}
	h.render(w, r, http.StatusOK, "edit.html", view{Title: "Settings of " + id, Section: "sources",
		Data: editData{Source: src, Fields: h.settingFields(src, false)}})
}

// editRefused answers a refused settings form like formRefused.
func (h *Server) editRefused(w http.ResponseWriter, r *http.Request, src *dynamo.Source, err error) {
	status := http.StatusBadRequest
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no active source %q.", r.PathValue("id")))
		return
	case errors.Is(err, dynamo.ErrInvalid), errors.Is(err, sources.ErrUnresolvable):
	default:
		h.storeFailed(w, r, "store the source", err)
		return
	}
	d := editData{Source: src}
	var ok bool
	if d.Fields, ok = withError(h.settingFields(src, false), r, err); !ok {
		d.Error = refusal(err)
	}
	h.render(w, r, status, "edit.html", view{Title: "Settings of " + src.ID, Section: "sources", Data: d})
}

// deleteAction stops polling a source; purge=true removes its archive
// too, else its feeds stay served.
func (h *Server) deleteAction(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	purge, err := strconv.ParseBool(r.PostFormValue("purge"))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "Choose whether to keep or purge the archive (purge=true or false).")
		return
	}
	err = h.cfg.Store.DeleteSource(r.Context(), id, purge)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no source %q to delete.", id))
		return
	case err != nil:
		h.storeFailed(w, r, "delete the source", err)
		return
	}
	msg := fmt.Sprintf("Deleted %s: it is no longer polled; its archive and feeds stay, listed as removed.", id)
	if purge {
		msg = fmt.Sprintf("Deleted %s and purged its archive: its feeds are gone.", id)
	}
	h.setFlash(w, r, msg)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// categoryFeeds are a category's aggregate feed (docs/API.md "Feeds") in each format.
func categoryFeeds(category string) []subscribeLink {
	var out []subscribeLink
	for _, f := range feedFormats() {
		out = append(out, subscribeLink{Label: formatLabel(f),
			URL: "/aggregate?" + url.Values{"category": {category}, "max": {"50"}, "type": {string(f)}}.Encode()})
	}
	return out
}

// categoryGroup is one category and its sources.
type categoryGroup struct {
	Name    string // "" for the sources in no category
	Sources []sourceRow
	Failing int
	Feeds   []subscribeLink // the category's aggregate feed; none for ""
	List    string          // the sources list narrowed to the category
}

// categoriesPage groups the sources by category, each category with its
// aggregate feed.
func (h *Server) categoriesPage(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	index := map[string]int{}
	var groups []categoryGroup
	err := h.eachRow(ctx, h.globalPolicy(ctx), func(row sourceRow) error {
		i, ok := index[row.Category]
		if !ok {
			i = len(groups)
			index[row.Category] = i
			g := categoryGroup{Name: row.Category, List: Prefix + "?" + url.Values{"category": {row.Category}}.Encode()}
			if row.Category != "" {
				g.Feeds = categoryFeeds(row.Category)
			}
			groups = append(groups, g)
		}
		groups[i].Sources = append(groups[i].Sources, row)
		if row.Status == "failing" {
			groups[i].Failing++
		}
		return nil
	})
	if err != nil {
		h.storeFailed(w, r, "list sources", err)
		return
	}
	slices.SortFunc(groups, func(a, b categoryGroup) int {
		switch {
		case a.Name == "" || b.Name == "":
			return strings.Compare(b.Name, a.Name) // no category last
		}
		return strings.Compare(a.Name, b.Name)
	})
	h.render(w, r, http.StatusOK, "categories.html", view{Title: "Categories", Section: "sources",
		Alternates: feedAlternates("Every source", func(typ string) string { return "/aggregate?max=50&type=" + typ }), Data: struct {
			Groups   []categoryGroup
			Everyone []subscribeLink
		}{groups, aggregateFeeds()}})
}

// aggregateFeeds are the feed of every source, each story once.
func aggregateFeeds() []subscribeLink {
	var out []subscribeLink
	for _, f := range feedFormats() {
		out = append(out, subscribeLink{Label: formatLabel(f), URL: "/aggregate?max=50&type=" + string(f)})
	}
	return out
}
