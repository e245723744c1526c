package opml

import (
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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
// back; its category is the outline's folder. The title is the user's
// (Source.Title, also in dynamo:title), else the source's newest channel
// title, else its id (outlineTitle).
func WriteSources(w io.Writer, sources []dynamo.Source, base string) error {
	return WriteEachSource(w, func(yield func(*dynamo.Source) error) error {
		for i := range sources {
			if err := yield(&sources[i]); err != nil {
				return err
			}
		}
		return nil
	}, base)
}

// WriteEachSource is WriteSources for the sources each hands to yield (a
// store's EachSource), written as WriteEach writes: each is called twice and
// must hand the same sources.
func WriteEachSource(w io.Writer, each func(yield func(*dynamo.Source) error) error, base string) error {
	base = strings.TrimRight(base, "/")
	return WriteEach(w, func(yield func(*Entry) error) error {
		return each(func(src *dynamo.Source) error {
			e := SourceEntry(src, base)
			return yield(&e)
		})
	})
}

// freshRSSSelectors map FreshRSS's XPath attributes to a selectors
// source's settings. FreshRSS's xPathItemTimeFormat, xPathItemCategories
// and xPathItemUid have no counterpart (Dynamo reads dates leniently and
// derives ids) and are not kept.
var freshRSSSelectors = []struct{ attr, field string }{
	{"xPathItem", "item_selector"},
	{"xPathItemTitle", "title_selector"},
	{"xPathItemContent", "description_selector"},
	{"xPathItemUri", "link_selector"},
	{"xPathItemTimestamp", "date_selector"},
	{"xPathItemAuthor", "author_selector"},
	{"xPathItemThumbnail", "image_selector"},
}

// FreshRSSXPath is the outline type of FreshRSS's "HTML + XPath" feeds: a
// page read through XPath expressions, Dynamo's kind selectors.
const FreshRSSXPath = "HTML+XPath"

// SourceEntry is one source's outline (see WriteSources). A selectors
// source in XPath is written as FreshRSS writes an "HTML + XPath" feed, so
// that FreshRSS, and Dynamo, read it back: type HTML+XPath, the page as
// xmlUrl and htmlUrl, its selectors in frss: attributes, its refresh
// interval (when not the default; negative when paused, as FreshRSS mutes
// a feed) as frss:ttl, and in dynamo: attributes
// only the settings a FreshRSS import would not give (the user's title
// among them only when there are others, the outline's title saying it
// otherwise).
func SourceEntry(src *dynamo.Source, base string) Entry {
	if src.Kind == dynamo.KindSelectors && src.SelectorSyntax == "xpath" {
		return freshRSSEntry(src)
	}
	e := Entry{
		Title:    outlineTitle(src),
		XMLURL:   base + "/resources/" + url.PathEscape(src.ID) + "?max=" + strconv.Itoa(FeedItems),
		Category: src.Category,
		Extra:    map[string]string{},
	}
	if src.Kind == dynamo.KindHTML {
		e.HTMLURL = src.URL
	}
	e.Disabled = src.Paused // Miniflux's paused feed; dynamo:paused says it too
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

// freshRSSEntry writes a selectors source in XPath as FreshRSS writes an
// "HTML + XPath" feed.
func freshRSSEntry(src *dynamo.Source) Entry {
	e := Entry{Title: outlineTitle(src), XMLURL: src.URL, HTMLURL: src.URL, Category: src.Category, Type: FreshRSSXPath,
		FreshRSS: map[string]string{}, Extra: map[string]string{}}
	implied := map[string]bool{"kind": true, "url": true, "selector_syntax": true}
	for _, m := range freshRSSSelectors {
		implied[m.field] = true
		if text, set := src.ConfigText(m.field); set {
			e.FreshRSS[m.attr] = text
		}
	}
	secs := int64(time.Duration(src.Interval) / time.Second)
	switch {
	case src.Paused: // FreshRSS's muted feed
		e.FreshRSS["ttl"] = strconv.FormatInt(-secs, 10)
	case src.Interval != dynamo.DefaultInterval:
		e.FreshRSS["ttl"] = strconv.FormatInt(secs, 10)
	}
	implied["interval"], implied["paused"], implied["title"] = true, true, true
	if src.ID == dynamo.DeriveSourceID(src.URL) {
		implied["id"] = true
	}
	for _, name := range dynamo.ConfigFields() {
		text, set := src.ConfigText(name)
		if set && !implied[name] && (name != "category" || NormalizeCategory(text) != text) {
			e.Extra[name] = text
		}
	}
	if len(e.Extra) > 0 && src.Title != "" {
		// With dynamo: attributes the outline's title is not read as
		// the user's (EntrySource): it travels in dynamo:title.
		e.Extra["title"] = src.Title
	}
	return e
}

// outlineTitle is a source's outline title: a name the user gave it is
// kept over the feed's own, as readers keep a feed renamed.
func outlineTitle(src *dynamo.Source) string {
	if src.Title != "" {
		return src.Title
	}
	return src.DisplayTitle()
}

// EntrySource makes the source an entry describes: the feed at its xmlUrl,
// in its category, with the settings of its dynamo: attributes, and
// otherwise the defaults of a registration (paused when Miniflux disabled
// it and dynamo:paused does not say), except that an entry without
// dynamo:kind is a feed, since OPML's xmlUrl is a feed's address. An entry
// without dynamo:id gets the id dynamo.DeriveSourceID makes of its URL, and
// derived says so. The outline's title is the source's Title, the user's
// name for the feed, when the entry has no dynamo: attribute (another
// reader's file); an entry with some is Dynamo's export, whose outline
// title may be the feed's own or the id, and its Title is dynamo:title's.
// The source is neither normalized nor validated; an
// attribute that does not read, or is not a setting, is an error wrapping
// dynamo.ErrInvalid.
//
// A FreshRSS "HTML + XPath" outline (type HTML+XPath) is a selectors
// source on its xmlUrl, its frss:xPath… attributes its selectors, its
// frss:ttl its interval (a negative one pauses it); FreshRSS's other kinds of scraped feed (XML+XPath,
// JSON+DotNotation…) are refused with the reason.
func EntrySource(e Entry) (src *dynamo.Source, derived bool, err error) {
	src = dynamo.NewSource("", strings.TrimSpace(e.XMLURL))
	src.Kind, src.Category = dynamo.KindFeed, e.Category
	switch {
	case strings.EqualFold(e.Type, FreshRSSXPath):
		if err := freshRSSSource(src, e); err != nil {
			return src, false, err
		}
	case e.Type != "":
		return src, false, dynamo.Invalidf("outline type %s is not one Dynamo reads: it follows feeds, annotated pages, and HTML+XPath pages", e.Type)
	}
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
	if len(e.Extra) == 0 {
		src.Title = e.Title
	}
	if _, given := e.Extra["paused"]; !given && e.Disabled {
		src.Paused = true // Miniflux's miniflux:disabled
	}
	if _, given := e.Extra["id"]; !given {
		derived = true
		src.ID = dynamo.DeriveSourceID(strings.TrimSpace(src.URL))
	}
	return src, derived, nil
}

// freshRSSSource makes src the selectors source an HTML+XPath outline
// describes.
func freshRSSSource(src *dynamo.Source, e Entry) error {
	src.Kind, src.SelectorSyntax = dynamo.KindSelectors, "xpath"
	for _, m := range freshRSSSelectors {
		if v, ok := e.FreshRSS[m.attr]; ok {
			if err := src.SetConfigText(m.field, v); err != nil {
				return fmt.Errorf("frss:%s: %w", m.attr, err)
			}
		}
	}
	if ttl := strings.TrimSpace(e.FreshRSS["ttl"]); ttl != "" {
		secs, err := strconv.Atoi(ttl)
		switch {
		case err != nil:
			return dynamo.Invalidf("frss:ttl %q is not a number of seconds", ttl)
		case secs > 0:
			src.Interval = dynamo.Duration(time.Duration(secs) * time.Second)
		case secs < 0: // FreshRSS's muted feed
			src.Paused, src.Interval = true, dynamo.Duration(time.Duration(-secs)*time.Second)
		}
	}
	return nil
}
