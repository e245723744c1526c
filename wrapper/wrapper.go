// Package wrapper extracts XMLData from an annotated HTML page: the
// annotations that webmasters write inside HTML comments (docs/WRAPPER.md) name the
// channel's and the items' titles, links, descriptions, images and
// extensions, and Wrap turns them into a dynamo.Resource.
//
// Real pages are not well-formed and annotations are placed by hand, so
// Wrap never fails: it extracts everything valid and reports every problem
// as a warning with its line. docs/WRAPPER.md is the webmaster's guide to
// the annotation language and lists every warning.
//
// Wrap does not tokenize the page. Annotations live in comments, so it
// jumps from '<' to '<' and looks closer only at comments, at the few
// elements whose content is text (so that a "<!--" in a script is not
// taken for a comment), and at the contents of the annotations themselves.
package wrapper

import (
	"bytes"
	"net/url"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// Options says where the page came from.
type Options struct {
	// URL is the page's URL. Relative links resolve against it (and the
	// page's <base href>); it is the default channel link, and the default
	// item links are it with a fragment naming the item.
	URL string
	// RSSID is the resource's rssId: the collection it belongs to.
	RSSID string
	// ContentType is the HTTP Content-Type header, if any: its charset
	// decides how the page is decoded.
	ContentType string
	// Location is the zone of dates written without one; nil means UTC.
	Location *time.Location
	// Now is the resource's timestamp; zero means time.Now().
	Now time.Time
}

// Result is everything the wrapper found.
type Result struct {
	Resource *dynamo.Resource
	// Warnings are the problems found, each with its line in Text, in line
	// order (page-wide ones, with line 0, first).
	Warnings []dynamo.Warning
	// Annotations are the annotations recognized, in page order, for tools
	// that show them in the page (the playground's highlighting).
	Annotations []Annotation
	// Indexes are the indexes the items were written with, one per item of
	// Resource.Items, as written (trimmed): "6" for index="6", "03" for
	// index="03", "" for an item whose annotations have none. Item.Index
	// is the item's position, 1 to n, which XMLData requires.
	Indexes []string
	// Text is the page decoded to UTF-8; line numbers and offsets refer to
	// it. A page that was UTF-8 already is read in place: Text shares its
	// bytes (see Wrap).
	Text string
	// Charset is the encoding the page was decoded from, by its WHATWG
	// name, e.g. "windows-1252".
	Charset string
	// CharsetFrom says how it was determined: "http", "bom", "meta",
	// "sniffed" or "default" (see the From constants).
	CharsetFrom string
}

// Annotation is one annotation recognized in the page and what came of it.
type Annotation struct {
	// Name is the annotation, lower-cased: "item:title", "channel:image".
	Name string
	// Index is the index attribute as a number; 0 when the annotation is
	// a channel's or the index is missing or not a number.
	Index int
	// Item is the Index, in the Resource, of the item the annotation went
	// to; 0 for channel annotations and for annotations left out.
	Item int
	// Line is the line of the opening tag.
	Line int
	// Start and End are byte offsets in Text: the start of the opening
	// comment and the end of the closing comment (for an annotation never
	// closed, where its content stops; for an empty element, the end of its
	// comment).
	Start, End int
	// ContentStart and ContentEnd delimit the content in Text, from the
	// first to the last byte that counted (nested annotations excluded);
	// equal when there is none.
	ContentStart, ContentEnd int
	// Attrs are the opening tag's attributes, names lower-cased, in the
	// order written, each once (the first of repeated ones); Attr finds
	// one by name.
	Attrs []Attr
	// Value is what was extracted: the title's text, the resolved link,
	// the sanitized description, the image URL, the extension's value as
	// stored (a parsed date in RFC 3339). Empty when nothing was.
	Value string
	// Closed is false for an annotation whose closing tag was not found.
	Closed bool
}

// Attr is one attribute of an annotation tag.
type Attr struct {
	Name, Value string
}

// Attr returns the value of the opening tag's attribute of that name
// (lower-case), and whether it has one.
func (a *Annotation) Attr(name string) (string, bool) {
	for _, at := range a.Attrs {
		if at.Name == name {
			return at.Value, true
		}
	}
	return "", false
}

// Wrap extracts the annotated channel and items of page. It never fails:
// whatever is wrong with the page or its annotations is reported in the
// Result's warnings, and everything valid is extracted.
//
// Wrap keeps page: when page is UTF-8 already, the Result's Text, and
// the values read from it, share page's bytes instead of copying them, so
// the caller must not change page afterwards. Every caller hands over a
// page it read for this and does not write to again.
func Wrap(page []byte, opts Options) *Result {
	w := &warnings{}
	d := decode(page, opts.ContentType)
	for _, msg := range d.warnings {
		w.add(0, "%s", msg)
	}
	ln := newLines(d.text)
	sc := scan(d.text, ln, w, false)
	annots, closes := pair(sc.tags, w)
	sweep(d.text, sc, annots, closes, w)

	if len(annots) == 0 {
		w.addFirst("no annotations found: is this the annotated page?")
	}
	b := newBuilder(d.text, ln, sc, opts, w)
	b.build(annots)
	sc.release()
	return &Result{
		Resource:    b.res,
		Indexes:     b.indexes,
		Warnings:    w.sorted(),
		Annotations: b.annotations,
		Text:        d.text,
		Charset:     d.charset,
		CharsetFrom: d.from,
	}
}

// HasAnnotations reports whether page holds at least one annotation: a
// comment with a channel: or item: annotation tag. It is cheap enough to
// decide, on every fetch, whether a page is an annotated page.
func HasAnnotations(page []byte) bool {
	if bytes.HasPrefix(page, []byte{0xFE, 0xFF}) || bytes.HasPrefix(page, []byte{0xFF, 0xFE}) {
		page = []byte(decode(page, "").text) // UTF-16 is the one charset not ASCII-compatible
	}
	for pos := 0; ; {
		i := bytes.Index(page[pos:], []byte("<!--"))
		if i < 0 {
			return false
		}
		bodyStart := pos + i + 4
		end := bytes.Index(page[bodyStart:], []byte("-->"))
		if end < 0 {
			end = len(page) - bodyStart
		}
		p := tagParser{body: string(page[bodyStart : bodyStart+end]), line: noLine, warn: &warnings{}}
		if len(p.parse(0, nil)) > 0 {
			return true
		}
		pos = bodyStart + end
	}
}

// parseURL parses the page URL; nil when there is none or it is not one.
func parseURL(s string, w *warnings) *url.URL {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		w.add(0, "the page URL %q is not a URL (%v); links stay relative", s, err)
		return nil
	}
	return u
}
