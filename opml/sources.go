package opml

import (
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dynamo-feeds/dynamo"
)

// FeedItems is how many items the feed a reader subscribes to through an
// exported xmlUrl holds: the source's archive, as the web page's first
// subscribe link offers it.
const FeedItems = 50

// WriteSources writes sources as an OPML 2.0 subscription list. Each
// outline's xmlUrl is the feed Dynamo serves for the source (its archive,
// under base, the service's public URL), so a feed reader importing the
// file subscribes to Dynamo's feeds; htmlUrl is the page of an html source.
// The source's configuration travels in attributes of Namespace, one per
// field that is set (dynamo:id, dynamo:url, dynamo:kind, dynamo:interval,
// …, named as dynamo.ConfigFields names them), which EntrySource reads
// back; its category is the outline's folder. The title is the source's
// newest channel title, else its id.
func WriteSources(w io.Writer, sources []dynamo.Source, base string) error {
	base = strings.TrimRight(base, "/")
	entries := make([]Entry, len(sources))
	for i := range sources {
		entries[i] = SourceEntry(&sources[i], base)
	}
	return Write(w, entries)
}

// SourceEntry is one source's outline (see WriteSources).
func SourceEntry(src *dynamo.Source, base string) Entry {
	title := src.Summary.Title
	if title == "" {
		title = src.ID
	}
	e := Entry{
		Title:    title,
		XMLURL:   base + "/resources/" + url.PathEscape(src.ID) + "?max=" + strconv.Itoa(FeedItems),
		Category: src.Category,
		Extra:    map[string]string{},
	}
	if src.Kind == dynamo.KindHTML {
		e.HTMLURL = src.URL
	}
	for _, name := range dynamo.ConfigFields() {
		text, set := src.ConfigText(name)
		// The category is the folder; a folder path is read back trimmed
		// and without empty segments, so a category that would not
		// survive that travels as it is, too.
		if set && (name != "category" || NormalizeCategory(text) != text) {
			e.Extra[name] = text
		}
	}
	return e
}

// EntrySource makes the source an entry describes: the feed at its xmlUrl,
// in its category, with the settings of its dynamo: attributes, and
// otherwise the defaults of a registration, except that an entry without
// dynamo:kind is a feed, since OPML's xmlUrl is a feed's address. An entry
// without dynamo:id gets the id dynamo.DeriveSourceID makes of its URL, and
// derived says so. The source is neither normalized nor validated; an
// attribute that does not read, or is not a setting, is an error wrapping
// dynamo.ErrInvalid.
func EntrySource(e Entry) (src *dynamo.Source, derived bool, err error) {
	src = dynamo.NewSource("", strings.TrimSpace(e.XMLURL))
	src.Kind, src.Category = dynamo.KindFeed, e.Category
	fields := dynamo.ConfigFields()
	var unknown []string
	for k := range e.Extra {
		if !slices.Contains(fields, k) {
			unknown = append(unknown, "dynamo:"+k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return src, false, dynamo.Invalidf("unknown attribute %s: Dynamo reads dynamo:%s",
			strings.Join(unknown, ", "), strings.Join(fields, ", "))
	}
	for _, k := range fields { // in order: the id and URL first, for the report of a failure
		if v, ok := e.Extra[k]; ok {
			if err := src.SetConfigText(k, v); err != nil {
				return src, false, fmt.Errorf("dynamo:%s: %w", k, err)
			}
		}
	}
	if _, given := e.Extra["id"]; !given {
		derived = true
		src.ID = dynamo.DeriveSourceID(strings.TrimSpace(src.URL))
	}
	return src, derived, nil
}
