package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/sources"
)

// settingField is one configuration field of a source in the settings
// forms: the form to add a source and a source's settings form. The fields
// are the domain's (dynamo.ConfigFields), so a field added to dynamo.Source
// appears in the forms by itself; settingLabels gives it a label and hint.
type settingField struct {
	Name    string // the field's JSON name, and the form field's
	Label   string
	Hint    string
	Value   string
	Options []string // a menu's choices; nil for a text field
	Error   string   // why the value was refused, shown next to the field
}

// settingLabels names each configuration field for people.
var settingLabels = map[string]struct{ label, hint string }{
	"id":                   {"Id", "names the collection and its feeds for good: letters, digits, '.', '_', '-'; empty to derive one from the URL"},
	"url":                  {"URL", "the annotated page, the feed, or the page read through selectors, http or https"},
	"title":                {"Title", "your name for the source, shown until its feed's own title is known and written in OPML exports; an imported outline's title"},
	"kind":                 {"Kind", "auto finds out: annotations make html, a feed makes feed, else the site's feed is discovered; selectors reads a page one cannot annotate through the selectors below"},
	"interval":             {"Interval", "how often to poll (the flat policy) and where the others start: 90s, 15m, 2h, 1d"},
	"policy":               {"Policy", "empty follows the global policy"},
	"category":             {"Category", "groups sources for /aggregate?category="},
	"title_prefix":         {"Title prefix", "removed from titles before near-duplicate detection"},
	"subscribers":          {"Subscribers", "weighs the source in ranking policies"},
	"timezone":             {"Time zone", "IANA name in which dates without a zone are read, such as Europe/Paris"},
	"paused":               {"Paused", "a paused source is not polled"},
	"ignore_robots":        {"Ignore robots.txt", "html and selectors sources: poll the page even where its site's robots.txt disallows it, e.g. your own page; native feeds never read robots.txt"},
	"selector_syntax":      {"Selector syntax", "kind selectors only: css (the default) or xpath (XPath 1.0, as FreshRSS's HTML + XPath feeds)"},
	"item_selector":        {"Item selector", "kind selectors: where the items are, in the whole page (ul.news > li, //article)"},
	"title_selector":       {"Title selector", "from each item (h2 a, descendant::h2)"},
	"link_selector":        {"Link selector", "from each item: a link (its href), or an element holding one"},
	"description_selector": {"Description selector", "from each item; its HTML is sanitized"},
	"date_selector":        {"Date selector", "from each item: a text holding a date (Posted on 3 July 2024)"},
	"author_selector":      {"Author selector", "from each item; becomes dc:creator"},
	"image_selector":       {"Image selector", "from each item: an img, or an element holding one"},
	"enclosure_selector":   {"Enclosure selector", "from each item: a link to a podcast's audio, say; becomes the item's enclosure"},
}

// settingFields lists src's configuration fields for a form; the id is
// left out of a form that changes an existing source, whose id is fixed.
func (h *Server) settingFields(src *dynamo.Source, withID bool) []settingField {
	var out []settingField
	for _, name := range dynamo.ConfigFields() {
		if name == "id" && !withID {
			continue
		}
		value, _ := src.ConfigText(name)
		f := settingField{Name: name, Label: name, Value: value}
		if l, ok := settingLabels[name]; ok {
			f.Label, f.Hint = l.label, l.hint
		}
		switch name {
		case "kind":
			f.Options = []string{string(dynamo.KindAuto), string(dynamo.KindHTML), string(dynamo.KindFeed), string(dynamo.KindSelectors)}
		case "selector_syntax":
			f.Options = []string{"", "css", "xpath"}
		case "policy":
			f.Options = append([]string{""}, h.policies()...)
		case "paused", "ignore_robots":
			f.Options = []string{"false", "true"}
		}
		out = append(out, f)
	}
	return out
}

// readSettings sets on src the configuration fields the posted form gives.
func readSettings(r *http.Request, src *dynamo.Source) error {
	for _, name := range dynamo.ConfigFields() {
		if values, ok := r.PostForm[name]; ok && len(values) > 0 {
			if err := src.SetConfigText(name, values[0]); err != nil {
				return err
			}
		}
	}
	return nil
}

// createAction registers the source the form describes, through the
// sources service, as POST /api/sources does: an empty id is derived from
// the URL, kind auto is resolved.
func (h *Server) createAction(w http.ResponseWriter, r *http.Request) {
	src := dynamo.NewSource("", "")
	err := readSettings(r, src)
	if err == nil {
		if src.ID == "" {
			src.ID = dynamo.DeriveSourceID(src.URL)
		}
		_, err = h.sources.Create(r.Context(), src)
	}
	if err != nil {
		h.formRefused(w, r, dynamo.NewSource("", ""), err)
		return
	}
	h.setFlash(w, r, fmt.Sprintf("Registered %s: %s (%s).", src.ID, src.URL, src.Kind))
	http.Redirect(w, r, Prefix+"sources/"+url.PathEscape(src.ID), http.StatusSeeOther)
}

// settingsAction changes a source's configuration to the form's.
func (h *Server) settingsAction(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	src, err := h.cfg.Store.Source(r.Context(), id)
	if err == nil {
		before := *src
		if err = readSettings(r, src); err == nil {
			src.ID = id
			err = h.sources.Change(r.Context(), src, &before)
		}
	}
	if errors.Is(err, dynamo.ErrNotFound) || src == nil {
		h.refused(w, r, "The source was not changed", err)
		return
	}
	if err != nil {
		h.editRefused(w, r, src, err)
		return
	}
	h.done(w, r, fmt.Sprintf("Saved the settings of %s.", id))
}

// refused answers a registration or change that failed: 400 with the
// domain's reason for a refusal, 404, 409, or 500 for the store.
func (h *Server) refused(w http.ResponseWriter, r *http.Request, what string, err error) {
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no active source %q.", r.PathValue("id")))
	case errors.Is(err, dynamo.ErrConflict):
		h.fail(w, r, http.StatusConflict, what+": "+err.Error()+".")
	case errors.Is(err, dynamo.ErrInvalid), errors.Is(err, sources.ErrUnresolvable):
		h.fail(w, r, http.StatusBadRequest, what+": "+refusal(err))
	default:
		h.storeFailed(w, r, "store the source", err)
	}
}
