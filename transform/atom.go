package transform

import (
	"io"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// atomNoDate stands in for the required atom:updated when neither the
// resource nor its channel has a date: a fixed instant keeps the output
// deterministic, and the Unix epoch reads as "unknown" to a person.
var atomNoDate = time.Unix(0, 0).UTC()

// writeAtom writes f as Atom 1.0 (RFC 4287). The feed always has an author
// (the channel's dc:creator, else the feed's title), so entries need none of
// their own; ids are urn:uuid IRIs stable across versions; descriptions are
// content type="html", which readers show in full and feedparser also
// reports as the summary. The feed's language, when the channel has a valid
// dc:language, is its xml:lang.
func writeAtom(w io.Writer, f *feed, es entries, fc *facts) error {
	x := newXMLWriter(w)
	defer x.release()
	if fc.images {
		x.ns.bind("media", nsMedia)
	}
	if f.history.Archive {
		x.ns.bind("fh", nsHistory)
	}
	x.ns.bindExtensions(f.extensions, ownedByAtom, &fc.bindings)
	lang := ""
	if f.language != "" {
		lang = ` xml:lang="` + f.language + `"` // isLanguageTag admits nothing to escape
	}
	x.startRoot("feed", nsAtom, lang)

	const in = "  "
	x.element(in, "id", f.id)
	x.element(in, "title", f.title)
	if f.description != "" {
		x.raw(in + `<subtitle type="html">`)
		x.text(f.description)
		x.raw("</subtitle>\n")
	}
	x.element(in, "updated", atomDate(f.updated))
	if f.link != "" {
		x.atomLink(in, "alternate", "", f.link)
	}
	if f.self != "" {
		x.atomLink(in, "self", "application/atom+xml", f.self)
	}
	if f.hub != "" {
		x.atomLink(in, "hub", "", f.hub)
	}
	x.writeHistory(in, f.history, true)
	authors := f.creators
	if len(authors) == 0 {
		authors = []string{f.title}
	}
	x.atomAuthors(in, authors)
	if f.image != nil {
		x.element(in, "logo", f.image.url)
	}
	native := nativeDC(f.updatedFromChannel, f.language != "", len(f.creators) > 0, false)
	x.extensions(in, f.extensions, func(e dynamo.Extension) bool { return native(e) || skipAtom(e) })

	entryUpdated := firstDate(f.timestamp, f.updated)
	updated := distinctDates{seen: map[string]bool{}, after: map[string]time.Time{}}
	err := es(func(e *entry) error {
		writeAtomEntry(x, e, updated.next(firstDate(e.updated, e.date, entryUpdated)))
		return x.err()
	})
	if err != nil {
		return err
	}
	x.raw("</feed>\n")
	return x.flush()
}

// distinctDates hands out the entries' atom:updated values: seen are the
// values written, and after, for each value asked, the last one handed out
// for it.
type distinctDates struct {
	seen  map[string]bool
	after map[string]time.Time
}

// next returns t, or the first whole second after it that no earlier
// entry of the feed has as its atom:updated, and records it. Entries
// dated by the day, or undated ones that take the resource's timestamp,
// would otherwise share one value, which the W3C validator flags
// (DuplicateUpdated) and readers that key on it mistake for one entry. A
// few seconds are not a significant change; published keeps the true date.
//
// Every second from t up to the last value handed out for t is taken, so
// the search starts there: 47,000 undated entries took a billion steps
// counted from t each time (issue 19's dense pages in the playground).
func (d distinctDates) next(t time.Time) time.Time {
	if t.IsZero() {
		t = atomNoDate
	}
	asked := atomDate(t)
	if last, ok := d.after[asked]; ok {
		t = last
	}
	for d.seen[atomDate(t)] && writableYear(t.Add(time.Second).Year()) {
		t = t.Add(time.Second)
	}
	d.seen[atomDate(t)] = true
	d.after[asked] = t
	return t
}

// writeAtomEntry writes one entry with its atom:updated.
func writeAtomEntry(x *xmlWriter, e *entry, updated time.Time) {
	const in = "    "
	x.raw("  <entry>\n")
	x.element(in, "id", e.id)
	x.element(in, "title", e.title)
	x.element(in, "updated", atomDate(updated))
	if !e.date.IsZero() {
		x.element(in, "published", atomDate(e.date))
	}
	x.atomAuthors(in, e.creators)
	if e.link != "" {
		x.atomLink(in, "alternate", "", e.link)
	}
	for _, s := range e.subjects {
		x.elementAttr(in, "category", "term", s)
	}
	for _, enc := range e.enclosures {
		x.enclosureLink(in, "link", enc)
	}
	// An entry needs a link or a content: without a link, an empty
	// content still satisfies RFC 4287. One with a link and no description
	// gets its title as summary, as JSON Feed's content_text: the W3C
	// validator warns on entries without textual content.
	switch {
	case e.description != "" || e.link == "":
		x.raw(in)
		x.raw(`<content type="html">`)
		x.text(e.description)
		x.raw("</content>\n")
	default:
		x.element(in, "summary", e.title)
	}
	if e.image != "" {
		x.mediaImage(in, e.image)
	}
	native := nativeDC(!e.date.IsZero(), false, len(e.creators) > 0, len(e.subjects) > 0)
	x.extensions(in, e.extensions, func(ext dynamo.Extension) bool {
		return native(ext) || skipAtom(ext) || e.skipMediaImage(ext)
	})
	x.raw("  </entry>\n")
}

func (x *xmlWriter) atomLink(indent, rel, mediaType, href string) {
	x.tag(indent, `<link rel="`, rel, `"`)
	if mediaType != "" {
		x.tag("", ` type="`, mediaType, `"`)
	}
	x.raw(` href="`)
	x.attr(href)
	x.raw("\"/>\n")
}

func (x *xmlWriter) atomAuthors(indent string, names []string) {
	for _, name := range names {
		x.tag(indent, "<", "author", ">\n")
		x.tag(indent, "  <", "name", ">")
		x.text(name)
		x.raw("</name>\n")
		x.tag(indent, "</", "author", ">\n")
	}
}

// atomDate formats t for atom:updated and atom:published, which are required
// or written only when known; a zero t is the placeholder atomNoDate.
func atomDate(t time.Time) string {
	if t.IsZero() {
		t = atomNoDate
	}
	return t.Format(time.RFC3339)
}

func firstDate(dates ...time.Time) time.Time {
	for _, d := range dates {
		if !d.IsZero() {
			return d
		}
	}
	return time.Time{}
}

// ownedByAtom reports whether uri is Atom's namespace: RFC 4287 allows only
// foreign elements as extensions, and an atom:title among them would be a
// second title.
func ownedByAtom(uri string) bool { return uri == nsAtom }

func skipAtom(e dynamo.Extension) bool { return ownedByAtom(e.URI) }
