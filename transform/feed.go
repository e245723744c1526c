package transform

import (
	"mime"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// feed is a Resource prepared for rendering: every string cleaned, every
// link absolute or empty, every id, date and fallback decided once, so that
// the format writers only lay it out and all the formats agree.
type feed struct {
	id          string
	self        string // where the rendered feed is served, absolute, or ""
	hub         string // the WebSub hub, "" for none
	history     History
	title       string // plain text, never empty
	link        string // absolute, or "" when neither the channel nor the resource has one
	description string // HTML, may be empty
	// updated is when the feed last changed: the channel's own date, else
	// the resource's timestamp; zero when neither is known.
	updated time.Time
	// updatedFromChannel reports that updated is the channel's own date
	// (so a date extension of the channel says it already).
	updatedFromChannel bool
	language           string   // a language tag (RFC 5646 shape), or ""
	creators           []string // the channel's dc:creator values
	image              *image
	extensions         []dynamo.Extension
	// rssID and base are what preparing an entry takes of the resource:
	// its collection (entry ids) and the URL that relative links are
	// resolved against.
	rssID string
	base  *url.URL
	// timestamp is when the resource was retrieved (zero if unknown): the
	// Atom "updated" of entries without a date of their own.
	timestamp time.Time
}

type image struct {
	url   string // absolute
	title string // never empty
	link  string // absolute, never empty
}

type entry struct {
	id          string
	title       string // plain text, never empty
	link        string // absolute, or ""
	ownLink     bool   // link is the item's own, not the channel's
	description string // HTML, may be empty
	derivedText string // the producer's plain text of the description, may be empty
	date        time.Time
	// updated is when the item was last changed, when it says so and that
	// is later than date; zero otherwise.
	updated    time.Time
	enclosures []enclosure
	creators   []string
	subjects   []string
	image      string // absolute URL of the item's picture, or ""
	extensions []dynamo.Extension
}

// enclosure is a file an entry carries, ready for every format.
type enclosure struct {
	url       string // absolute
	mediaType string // a media type, or "" when the source did not say
	length    int64  // bytes, 0 when unknown
}

// typeOrDefault is the enclosure's media type for the formats that require
// one (RSS 2.0's enclosure, JSON Feed's attachment): the source's, else
// application/octet-stream, which claims nothing about the content.
func (e enclosure) typeOrDefault() string {
	return firstNonEmpty(e.mediaType, "application/octet-stream")
}

// text returns the plain text of the entry's description.
func (e *entry) text() string { return plainText(e.derivedText, e.description) }

// prepare builds the feed for r, its items aside (prepareEntry). self is the
// URL the feed is served at, or "".
func prepare(r *dynamo.Resource, self string) *feed {
	base := baseURL(r.URL)
	c := &r.Channel
	f := &feed{
		id:          feedID(r),
		self:        absoluteURL(self, nil),
		title:       firstNonEmpty(cleanLine(c.Title), cleanLine(r.RSSID), cleanLine(r.URL), "Untitled"),
		link:        firstNonEmpty(absoluteURL(c.Link, base), absoluteURL(r.URL, nil)),
		description: strings.TrimSpace(cleanText(c.Description)),
		timestamp:   feedDate(r.Timestamp.UTC(), !r.Timestamp.IsZero()),
		rssID:       r.RSSID,
		base:        base,
	}
	// The channel's list is only read: it may be the channel's own.
	var date time.Time
	var dated bool
	f.extensions, date, dated, _ = cleanExtensions(c.Extensions)
	f.updated = feedDate(date, dated)
	f.updatedFromChannel = !f.updated.IsZero()
	if f.updated.IsZero() {
		f.updated = f.timestamp
	}
	f.language = languageTag(dcValues(f.extensions, "language"))
	f.creators = dcValues(f.extensions, "creator")
	if c.Image != nil {
		if u := absoluteURL(c.Image.URL, base); u != "" {
			f.image = &image{
				url:   u,
				title: firstNonEmpty(cleanLine(c.Image.Title), f.title),
				link:  firstNonEmpty(absoluteURL(c.Image.Link, base), f.link, u),
			}
		}
	}
	return f
}

// entry prepares one item of the feed's resource.
func (f *feed) entry(it *dynamo.Item) entry { return prepareEntry(f.rssID, it, f.base, f.link) }

// prepareEntry builds one entry. An item without a usable link links to the
// channel, so that every entry leads somewhere; one without a title is
// named by the start of its description's text, else by its link.
func prepareEntry(rssID string, it *dynamo.Item, base *url.URL, channelLink string) entry {
	own := absoluteURL(it.Link, base)
	e := entry{
		id:          entryID(rssID, it),
		title:       cleanLine(it.Title),
		link:        firstNonEmpty(own, channelLink),
		ownLink:     own != "",
		description: strings.TrimSpace(cleanText(it.Description)),
		derivedText: it.Text,
	}
	for _, enc := range it.AllEnclosures() {
		if u := absoluteURL(enc.URL, base); u != "" {
			e.enclosures = append(e.enclosures, enclosure{url: u, mediaType: mediaType(enc.Type), length: max(enc.Length, 0)})
		}
	}
	exts, date, dated, shared := cleanExtensions(it.Extensions)
	e.date = feedDate(date, dated)
	if t, ok := it.Modified(); ok {
		if t = feedDate(t, true); t.After(e.date) {
			e.updated = t
		}
	}
	// The enclosures and the updated time are written in each format's
	// own way; their extension forms would repeat them.
	repeated := func(x dynamo.Extension) bool {
		return dynamo.IsLegacyEnclosure(x) || dynamo.IsModifiedExtension(x) && !e.updated.IsZero()
	}
	if shared && slices.ContainsFunc(exts, repeated) {
		exts = slices.Clone(exts) // the item's own list stays as it is
	}
	e.extensions = slices.DeleteFunc(exts, repeated)
	if e.title == "" {
		e.title = firstNonEmpty(excerpt(e.text()), e.link, "Untitled")
	}
	e.creators = dcValues(e.extensions, "creator")
	e.subjects = dcValues(e.extensions, "subject")
	if it.Image != nil {
		e.image = absoluteURL(it.Image.URL, base)
	}
	return e
}

// mediaType returns s when it is a media type ("audio/mpeg", with
// parameters or not), else "": attributes that require one must not carry
// anything else.
func mediaType(s string) string {
	s = strings.TrimSpace(s)
	if mt, _, err := mime.ParseMediaType(s); err != nil || strings.Count(mt, "/") != 1 || strings.HasSuffix(mt, "/") || strings.HasPrefix(mt, "/") {
		return ""
	}
	return s
}

// feedDate returns t, in whole seconds, when ok and when every format can
// write it (years 1 to 9999); the zero time otherwise. The offset is kept
// (it says something about the source) but not the zone's rules: time.Parse
// gives a time in the machine's Local zone when the offset matches it, and
// the bytes must not depend on where they were rendered.
func feedDate(t time.Time, ok bool) time.Time {
	if !ok || !writableYear(t.Year()) || !writableYear(t.UTC().Year()) {
		return time.Time{}
	}
	_, offset := t.Zone()
	if offset == 0 {
		return t.UTC().Truncate(time.Second)
	}
	return t.In(time.FixedZone("", offset)).Truncate(time.Second)
}

func writableYear(y int) bool { return 1 <= y && y <= 9999 }

// cleanExtensions returns the extensions that can be written as elements
// (see dynamo.Extension.Valid), with clean values. Those bound to the xml or
// xmlns namespaces are dropped too: Namespaces in XML forbids binding a
// prefix to either. A date extension holding an RFC 3339 time (what
// producers normalize parsed dates to) is written like the native dates, in
// whole seconds, and dropped when its year is one readers cannot handle
// (feedparser returns year 0 as a date that Python's calendar rejects);
// a date that was kept as the page's own text is written as it is.
//
// It also returns the date of the extensions returned, as Item.Date and
// Channel.Date read it (the first date extension holding an RFC 3339
// time), so that a date no reader can handle, dropped here, gives way to
// the next one; and whether the list returned is exts itself, which it is
// when cleaning changes none of them (most often: an archive item's
// first-seen date, written in this form already), so that the caller
// copies it before changing it.
func cleanExtensions(exts []dynamo.Extension) (out []dynamo.Extension, date time.Time, dated, shared bool) {
	for i, e := range exts {
		e.URI = namespaceName(e.URI)
		drop := e.Valid() != nil || e.URI == "" || e.URI == nsXML || e.URI == nsXMLNS
		if !drop {
			e.Value = cleanText(e.Value)
		}
		if !drop && dynamo.IsDateName(e.LocalName) {
			if t, err := time.Parse(time.RFC3339, strings.TrimSpace(e.Value)); err == nil {
				if t = feedDate(t, true); t.IsZero() {
					drop = true
				} else {
					if !dated {
						date, dated = t, true
					}
					// Formatted in place: most values are already in
					// this form and keep their string.
					var buf [40]byte
					if b := t.AppendFormat(buf[:0], time.RFC3339); string(b) != e.Value {
						e.Value = string(b)
					}
				}
			}
		}
		if out == nil && (drop || e != exts[i]) {
			// The first change: the list becomes a copy.
			out = make([]dynamo.Extension, i, len(exts))
			copy(out, exts[:i])
		}
		if out != nil && !drop {
			out = append(out, e)
		}
	}
	switch {
	case out == nil:
		return exts, date, dated, len(exts) > 0
	case len(out) == 0:
		return nil, date, dated, false
	}
	return out, date, dated, false
}

// nativeDC returns the filter of the Dublin Core extensions that a format
// writes as its own elements, so that no reader or validator sees a value
// twice: a date that became the element's date (pubDate, published,
// lastBuildDate, updated), a language that became its language, creators
// that became authors (authors), subjects that became categories
// (subjects). A date kept as unparsed text stays out anyway (see
// unparsedDate); dc:creator stays where the format has no author element
// for names.
func nativeDC(wroteDate, wroteLanguage, authors, subjects bool) func(dynamo.Extension) bool {
	return func(e dynamo.Extension) bool {
		switch {
		case wroteDate && dynamo.IsDateName(e.LocalName) && (e.URI == nsDC || e.URI == dynamo.NamespaceDCTerms):
			return true
		case e.URI != nsDC:
			return false
		case e.LocalName == "language":
			return wroteLanguage
		case e.LocalName == "creator":
			return authors
		case e.LocalName == "subject":
			return subjects
		}
		return false
	}
}

// dcValues returns the non-empty values of the Dublin Core extensions named
// localName, on one line each.
func dcValues(exts []dynamo.Extension, localName string) []string {
	var vals []string
	for _, e := range exts {
		if e.URI == dynamo.NamespaceDC && e.LocalName == localName {
			if v := cleanLine(e.Value); v != "" {
				vals = append(vals, v)
			}
		}
	}
	return vals
}

// languageTag returns the first of values shaped like a language tag
// ("en", "en-US"; "en_US" is read as "en-US"), or "". Atom's xml:lang and
// JSON Feed's language admit nothing else.
func languageTag(values []string) string {
	for _, v := range values {
		v = strings.ReplaceAll(v, "_", "-")
		if isLanguageTag(v) {
			return v
		}
	}
	return ""
}

// isLanguageTag matches [A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*, the pattern of
// RFC 4287's schema.
func isLanguageTag(s string) bool {
	for i, sub := range strings.Split(s, "-") {
		if len(sub) < 1 || len(sub) > 8 {
			return false
		}
		for j := 0; j < len(sub); j++ {
			c := sub[j]
			letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
			if !letter && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// Namespaces of the formats and of the modules they use.
const (
	nsXML     = "http://www.w3.org/XML/1998/namespace"
	nsXMLNS   = "http://www.w3.org/2000/xmlns/"
	nsAtom    = "http://www.w3.org/2005/Atom"
	nsRDF     = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsRSS1    = "http://purl.org/rss/1.0/"
	nsMedia   = "http://search.yahoo.com/mrss/"
	nsITunes  = "http://www.itunes.com/dtds/podcast-1.0.dtd"
	nsContent = dynamo.NamespaceContent
	nsDC      = dynamo.NamespaceDC
)
