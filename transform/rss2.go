package transform

import (
	"io"
	"strconv"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// writeRSS2 writes f as RSS 2.0 (https://www.rssboard.org/rss-specification).
// Descriptions are HTML, escaped rather than wrapped in CDATA, so no "]]>"
// inside them can end a section early. Item pictures are Media RSS
// media:content elements: an <enclosure> needs a byte length and a media
// type that Dynamo does not know for a picture. An item's first enclosure
// is its <enclosure> (length 0 and application/octet-stream when the source
// did not say, as the RSS Advisory Board recommends), the others Atom
// enclosure links; its updated time is dcterms:modified.
func writeRSS2(w io.Writer, f *feed, es entries, fc *facts) error {
	x := newXMLWriter(w)
	defer x.release()
	if f.self != "" || f.hub != "" || f.history.needsAtom() {
		x.ns.bind("atom", nsAtom)
	}
	if f.history.Archive {
		x.ns.bind("fh", nsHistory)
	}
	if fc.images {
		x.ns.bind("media", nsMedia)
	}
	if fc.enclosures >= 2 {
		x.ns.bind("atom", nsAtom)
	}
	if fc.updates {
		x.ns.bind("dcterms", dynamo.NamespaceDCTerms)
	}
	x.ns.bindExtensions(f.extensions, leftOutOfRSS2, &fc.bindings)
	x.startRoot("rss", "", ` version="2.0"`)
	x.raw("  <channel>\n")
	const in = "    "
	x.element(in, "title", f.title)
	x.element(in, "link", f.link)
	// The channel's description is a sentence, not markup: the W3C
	// validator warns on HTML there (ContainsHTML), down to an apostrophe
	// the sanitizer wrote as &#39;.
	x.element(in, "description", firstNonEmpty(plainText("", f.description), f.title))
	if f.language != "" {
		x.element(in, "language", f.language)
	}
	if !f.updated.IsZero() {
		x.timeElement(in, "lastBuildDate", f.updated, time.RFC1123Z)
	}
	if f.self != "" {
		x.raw(in)
		x.raw(`<atom:link rel="self" type="application/rss+xml" href="`)
		x.attr(f.self)
		x.raw("\"/>\n")
	}
	if f.hub != "" {
		x.atomLinkNS(in, "hub", f.hub)
	}
	x.writeHistory(in, f.history, false)
	if img := f.image; img != nil {
		// RSS 2.0 means the image's title and link to be the channel's
		// (the W3C validator warns otherwise): it is the channel's
		// picture, shown as a link to the channel.
		x.raw(in + "<image>\n")
		x.element(in+"  ", "url", img.url)
		x.element(in+"  ", "title", f.title)
		x.element(in+"  ", "link", firstNonEmpty(f.link, img.link))
		x.raw(in + "</image>\n")
	}
	native := nativeDC(!f.updated.IsZero() && f.updatedFromChannel, f.language != "", false, false)
	x.extensions(in, f.extensions, func(e dynamo.Extension) bool {
		return native(e) || leftOutOfRSS2(e.URI) || f.self != "" && e.URI == nsAtom && e.LocalName == "link"
	})
	err := es(func(e *entry) error {
		writeRSS2Item(x, e)
		return x.err()
	})
	if err != nil {
		return err
	}
	x.raw("  </channel>\n</rss>\n")
	return x.flush()
}

// atomLinkNS writes an atom:link of rel to href, for formats that borrow
// Atom's link; an empty href writes nothing.
func (x *xmlWriter) atomLinkNS(indent, rel, href string) {
	if href == "" {
		return
	}
	x.tag(indent, `<atom:link rel="`, rel, `" href="`)
	x.attr(href)
	x.raw("\"/>\n")
}

func writeRSS2Item(x *xmlWriter, e *entry) {
	const in = "      "
	x.raw("    <item>\n")
	x.element(in, "title", e.title)
	if e.link != "" {
		x.element(in, "link", e.link)
	}
	if e.description != "" {
		x.element(in, "description", e.description)
	}
	for _, s := range e.subjects {
		x.element(in, "category", s)
	}
	x.raw(in)
	x.raw(`<guid isPermaLink="false">`)
	x.text(e.id)
	x.raw("</guid>\n")
	if !e.date.IsZero() {
		x.timeElement(in, "pubDate", e.date, time.RFC1123Z)
	}
	if !e.updated.IsZero() {
		x.timeElement(in, "dcterms:modified", e.updated, time.RFC3339)
	}
	for i, enc := range e.enclosures {
		if i > 0 {
			// RSS 2.0 has one enclosure per item (validators warn on
			// more); the others are Atom enclosure links, which RSS 2.0
			// readers that know Atom (feedparser) read as enclosures too.
			x.enclosureLink(in, "atom:link", enc)
			continue
		}
		x.raw(in + `<enclosure url="`)
		x.attr(enc.url)
		x.raw(`" length="` + strconv.FormatInt(enc.length, 10) + `" type="`)
		x.attr(enc.typeOrDefault())
		x.raw("\"/>\n")
	}
	if e.image != "" {
		x.mediaImage(in, e.image)
	}
	native := nativeDC(!e.date.IsZero(), false, false, true)
	x.extensions(in, e.extensions, func(ext dynamo.Extension) bool {
		return native(ext) || leftOutOfRSS2(ext.URI) || e.skipMediaImage(ext)
	})
	x.raw("    </item>\n")
}

// enclosureLink writes an enclosure as an Atom link (name is "link" in
// Atom, "atom:link" elsewhere), always with a type (feedparser reads a link
// without one as text/html) and with its length when known.
func (x *xmlWriter) enclosureLink(indent, name string, enc enclosure) {
	x.raw(indent + "<" + name + ` rel="enclosure" type="`)
	x.attr(enc.typeOrDefault())
	x.raw(`"`)
	if enc.length > 0 {
		x.raw(` length="` + strconv.FormatInt(enc.length, 10) + `"`)
	}
	x.raw(` href="`)
	x.attr(enc.url)
	x.raw("\"/>\n")
}

// mediaImage writes an item's picture as a Media RSS element, which RSS 1.0,
// RSS 2.0 and Atom readers all understand and which needs neither a length
// nor a media type.
func (x *xmlWriter) mediaImage(indent, url string) {
	x.raw(indent)
	x.raw(`<media:content medium="image" url="`)
	x.attr(url)
	x.raw("\"/>\n")
}

// skipMediaImage reports whether ext would repeat the media:content element
// written for the entry's picture.
func (e *entry) skipMediaImage(ext dynamo.Extension) bool {
	return e.image != "" && ext.URI == nsMedia && ext.LocalName == "content"
}

// leftOutOfRSS2 reports whether extensions in namespace uri stay out of
// RSS 2.0: iTunes' (itunes:duration, itunes:episode…). In RSS 2.0 they make
// the feed an Apple podcast, which must then carry channel fields Dynamo
// cannot (itunes:category and itunes:image are attributes, itunes:owner
// nested elements; the W3C validator warns on each one missing). The
// episodes and their files are in RSS 2.0 all the same; the iTunes fields
// are in RSS 1.0, Atom, JSON Feed and XMLData.
func leftOutOfRSS2(uri string) bool { return uri == nsITunes }
