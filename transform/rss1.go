package transform

import (
	"io"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// writeRSS1 writes f as RSS 1.0 (https://web.resource.org/rss/1.0/spec), an
// RDF/XML document. Descriptions are plain text, as the specification has
// them, and the HTML goes in content:encoded (the content module), which is
// where RSS 1.0 readers look for markup. Dates are Dublin Core dc:date in
// W3CDTF, an item's updated time dcterms:modified. Enclosures are Atom
// enclosure links: the enc: module that RSS 1.0 once had is unknown to the
// W3C validator (a warning) and to feedparser, which both read Atom links.
// The rdf:about of an item is its own link, as RSS 1.0 means it, when
// the item has one that no other item of the feed (nor the channel)
// shares: RDF merges resources that share a URI, and readers take
// rdf:about as the entry's id, which must be unique. Otherwise it is the
// entry's feed-wide id (urn:uuid).
func writeRSS1(w io.Writer, f *feed, es entries, fc *facts) error {
	x := newXMLWriter(w)
	defer x.release()
	x.ns.bind("rdf", nsRDF)
	if !f.updated.IsZero() || fc.dates {
		x.ns.bind("dc", nsDC)
	}
	if fc.html {
		x.ns.bind("content", nsContent)
	}
	if fc.images {
		x.ns.bind("media", nsMedia)
	}
	if fc.enclosures >= 1 || f.hub != "" || f.history.needsAtom() {
		x.ns.bind("atom", nsAtom)
	}
	if f.history.Archive {
		x.ns.bind("fh", nsHistory)
	}
	if fc.updates {
		x.ns.bind("dcterms", dynamo.NamespaceDCTerms)
	}
	x.ns.bindExtensions(f.extensions, ownedByRSS1, &fc.bindings)
	x.startRoot("rdf:RDF", nsRSS1, "")

	const in = "    "
	x.raw(`  <channel rdf:about="`)
	x.attr(firstNonEmpty(f.self, f.id))
	x.raw("\">\n")
	x.element(in, "title", f.title)
	x.element(in, "link", f.link)
	x.element(in, "description", htmlText.Replace(firstNonEmpty(plainText("", f.description), f.title)))
	if !f.updated.IsZero() {
		x.timeElement(in, "dc:date", f.updated, time.RFC3339)
	}
	if f.hub != "" {
		// WebSub discovery (§4) reads Atom links; rdf:about is the self URL.
		x.atomLinkNS(in, "self", f.self)
		x.atomLinkNS(in, "hub", f.hub)
	}
	x.writeHistory(in, f.history, false)
	if f.image != nil {
		x.elementAttr(in, "image", "rdf:resource", f.image.url)
	}
	x.tag(in, "<", "items", ">\n")
	x.tag(in, "  <", "rdf:Seq", ">\n")
	channelAbout := firstNonEmpty(f.self, f.id)
	err := es(func(e *entry) error {
		x.elementAttr(in+"    ", "rdf:li", "rdf:resource", fc.about(e, channelAbout))
		return x.err()
	})
	if err != nil {
		return err
	}
	x.tag(in, "  </", "rdf:Seq", ">\n")
	x.tag(in, "</", "items", ">\n")
	x.extensions(in, f.extensions, skipRSS1(!f.updated.IsZero()))
	x.raw("  </channel>\n")

	if img := f.image; img != nil {
		x.raw(`  <image rdf:about="`)
		x.attr(img.url)
		x.raw("\">\n")
		x.element(in, "title", img.title)
		x.element(in, "link", img.link)
		x.element(in, "url", img.url)
		x.raw("  </image>\n")
	}
	err = es(func(e *entry) error {
		writeRSS1Item(x, e, fc.about(e, channelAbout))
		return x.err()
	})
	if err != nil {
		return err
	}
	x.raw("</rdf:RDF>\n")
	return x.flush()
}

// htmlText escapes plain text for RSS 1.0's description, which holds
// text, but which feedparser and most readers take for HTML: text that
// looks like markup ("<svg onload=…>" in a plain-text JSON Feed item) must
// reach them as text, not as a tag. Quotes are left alone, since only
// <, > and & start markup, so that a reader that does show the text as it
// is shows "&amp;" for an ampersand at worst, never for an apostrophe.
var htmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func writeRSS1Item(x *xmlWriter, e *entry, about string) {
	const in = "    "
	x.raw(`  <item rdf:about="`)
	x.attr(about)
	x.raw("\">\n")
	x.element(in, "title", e.title)
	x.element(in, "link", e.link)
	if text := e.text(); text != "" {
		x.element(in, "description", htmlText.Replace(text))
	}
	if e.description != "" {
		x.element(in, "content:encoded", e.description)
	}
	if !e.date.IsZero() {
		x.timeElement(in, "dc:date", e.date, time.RFC3339)
	}
	if !e.updated.IsZero() {
		x.timeElement(in, "dcterms:modified", e.updated, time.RFC3339)
	}
	for _, enc := range e.enclosures {
		x.enclosureLink(in, "atom:link", enc)
	}
	if e.image != "" {
		x.mediaImage(in, e.image)
	}
	skipDate := skipRSS1(!e.date.IsZero())
	x.extensions(in, e.extensions, func(ext dynamo.Extension) bool {
		return skipDate(ext) || e.skipMediaImage(ext) ||
			e.description != "" && ext.URI == nsContent && ext.LocalName == "encoded"
	})
	x.raw("  </item>\n")
}

// ownedByRSS1 reports whether uri is one of the namespaces RSS 1.0 itself is
// written in; an extension there would be read as part of the format.
func ownedByRSS1(uri string) bool { return uri == nsRSS1 || uri == nsRDF }

// skipRSS1 returns the filter of a channel's or an item's extensions: those
// in RSS 1.0's own namespaces, and dc:date when the element already carries
// its date as dc:date (a second dc:date would contradict or repeat it).
func skipRSS1(wroteDate bool) func(dynamo.Extension) bool {
	return func(e dynamo.Extension) bool {
		return ownedByRSS1(e.URI) || wroteDate && e.URI == nsDC && e.LocalName == "date"
	}
}
