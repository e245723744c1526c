package transform

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/dynamo-feeds/dynamo"
)

// Format is an output format of Render, named as the "type" parameter of
// Dynamo's URLs and the --type flag of "dynamo wrap" name it.
type Format string

// The formats Render writes.
const (
	XMLData Format = "xmldata" // the stored document itself (schema/xmldata.xsd)
	RSS1    Format = "rss1"    // RSS 1.0 (RDF Site Summary)
	RSS2    Format = "rss2"    // RSS 2.0, the default
	Atom    Format = "atom"    // Atom 1.0 (RFC 4287)
	JSON    Format = "json"    // JSON Feed 1.1
)

// Formats returns every format Render writes, in a fixed order (the order
// error messages and user interfaces list them in).
func Formats() []Format { return []Format{XMLData, RSS1, RSS2, Atom, JSON} }

// ParseFormat reads a format name as users write it in a URL or a flag,
// ignoring case and surrounding spaces. An empty name means RSS 2.0, the
// default of docs/API.md "Feeds"; an unknown one is an error (wrapping
// dynamo.ErrInvalid) that lists the accepted names, so it can be shown to
// the user as it is.
func ParseFormat(s string) (Format, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "" {
		return RSS2, nil
	}
	for _, f := range Formats() {
		if string(f) == name {
			return f, nil
		}
	}
	return "", fmt.Errorf("%w: unknown feed type %q: want one of %s", dynamo.ErrInvalid, s, formatNames())
}

func formatNames() string {
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// ContentType returns the media type to serve the format with. RSS 1.0 is
// served as application/rdf+xml, the registered type of what it is (an RDF
// document): application/rss+xml was never registered and names RSS 2.0 to
// browsers, and readers recognize RSS 1.0 by its root element whatever the
// header says. An unknown format gets application/octet-stream.
func (f Format) ContentType() string {
	switch f {
	case XMLData:
		return "application/xml; charset=utf-8"
	case RSS1:
		return "application/rdf+xml; charset=utf-8"
	case RSS2:
		return "application/rss+xml; charset=utf-8"
	case Atom:
		return "application/atom+xml; charset=utf-8"
	case JSON:
		return "application/feed+json; charset=utf-8"
	}
	return "application/octet-stream"
}

// Option adjusts what Render writes beyond the resource itself.
type Option func(*options)

type options struct {
	self, hub string
	schema    string
	history   History
}

// SchemaURL tells Render where XMLData's schema is published; an XMLData
// document then names it (xsi:noNamespaceSchemaLocation). The feed formats
// ignore it.
func SchemaURL(url string) Option {
	return func(o *options) { o.schema = url }
}

// SelfURL tells Render the URL the feed is served at, which the resource
// does not know (its URL is the page's or the source feed's). It becomes
// the Atom link rel="self", RSS 2.0's atom:link rel="self", RSS 1.0's
// channel rdf:about and JSON Feed's feed_url, which readers use to find the
// feed again; without it they are left out (rdf:about falls back to the
// feed id). A URL that is not absolute is ignored.
func SelfURL(url string) Option {
	return func(o *options) { o.self = url }
}

// HubURL tells Render the WebSub hub of the feed (docs/WEBSUB.md): an Atom
// link rel="hub", an atom:link rel="hub" in RSS 2.0, a JSON Feed hubs
// entry of type WebSub. A URL that is not absolute is ignored.
func HubURL(url string) Option {
	return func(o *options) { o.hub = url }
}

// prepare builds the feed model of r with the options' links.
func (o *options) prepare(r *dynamo.Resource) *feed {
	f := prepare(r, o.self)
	f.hub = absoluteURL(o.hub, nil)
	f.history = o.history.clean()
	return f
}

// Render writes r in format f. Any resource renders to a valid document.
// In the feed formats, missing required elements are filled in (a feed
// title from the rssId, an item title from its description, links from the
// channel or the resource URL, dates from the resource's timestamp),
// characters the format cannot carry are dropped, and links are made
// absolute or left out; XMLData is the document as Resource.WriteTo writes
// it, with only what would break the schema mended. The same resource
// always gives the same bytes, so an ETag over them is stable.
// docs/TRANSFORM.md lists every mapping and decision. Errors come from w,
// and from an unknown format or a nil resource (wrapping dynamo.ErrInvalid).
func Render(w io.Writer, r *dynamo.Resource, f Format, opts ...Option) error {
	if r == nil {
		return fmt.Errorf("render %s: %w: no resource", f, dynamo.ErrInvalid)
	}
	if err := f.check(); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	o := newOptions(opts)
	var err error
	if f == XMLData {
		err = writeXMLData(w, r, itemsOf(r.Items), o.schema)
	} else {
		fd := o.prepare(r)
		ents := getEntries(len(r.Items))
		fc := newFacts(f)
		for i := range r.Items {
			ents[i] = fd.entry(&r.Items[i])
			fc.add(&ents[i])
		}
		err = writeFeed(w, f, fd, entriesOf(ents), fc)
		freeEntries(ents)
	}
	if err != nil {
		return fmt.Errorf("render %s: %w", f, err)
	}
	return nil
}

// entrySlices keeps the entry lists of finished renderings: every uncached
// answer prepares its items' entries before writing any, and a new list
// each time was a sixth of an answer's allocated bytes.
var entrySlices = sync.Pool{New: func() any { return new([]entry) }}

// maxPooledEntries bounds the lists entrySlices keeps: a rare long
// rendering's list is let go rather than held by the pool.
const maxPooledEntries = 1000

// getEntries returns a list of n zero entries, pooled when it can be.
func getEntries(n int) []entry {
	if n > maxPooledEntries {
		return make([]entry, n)
	}
	p := entrySlices.Get().(*[]entry)
	if cap(*p) < n {
		*p = make([]entry, n)
	}
	return (*p)[:n]
}

// freeEntries gives a list of getEntries back, emptied so that the pool
// holds on to nothing of its rendering.
func freeEntries(ents []entry) {
	if cap(ents) > maxPooledEntries {
		return
	}
	clear(ents)
	ents = ents[:0]
	entrySlices.Put(&ents)
}

// check returns an error (wrapping dynamo.ErrInvalid) for a format Render
// does not write.
func (f Format) check() error {
	for _, known := range Formats() {
		if f == known {
			return nil
		}
	}
	return fmt.Errorf("%w: unknown format %q: want one of %s", dynamo.ErrInvalid, string(f), formatNames())
}

func newOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// writeFeed writes the feed f in format (any but XMLData), with the
// entries es, of which fc says what the root element needs to know.
func writeFeed(w io.Writer, format Format, f *feed, es entries, fc *facts) error {
	switch format {
	case RSS1:
		return writeRSS1(w, f, es, fc)
	case RSS2:
		return writeRSS2(w, f, es, fc)
	case Atom:
		return writeAtom(w, f, es, fc)
	}
	return writeJSON(w, f, es)
}

// Label names the format for people ("RSS 2.0", "JSON Feed"): the web
// pages' menus and the readable page of a feed use it.
func (f Format) Label() string {
	switch f {
	case RSS1:
		return "RSS 1.0"
	case RSS2:
		return "RSS 2.0"
	case Atom:
		return "Atom"
	case JSON:
		return "JSON Feed"
	case XMLData:
		return "XMLData"
	}
	return string(f)
}
