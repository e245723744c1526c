package transform

import (
	"io"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// writeRSS2 writes f as RSS 2.0 (https://www.rssboard.org/rss-specification).
// Descriptions are HTML, escaped rather than wrapped in CDATA, so no "]]>"
// inside them can end a section early. Item pictures are Media RSS
// media:content elements: an <enclosure> needs a byte length and a media
// type that Dynamo does not know, and validators reject made-up ones.
func writeRSS2(w io.Writer, f *feed) error {
	x := newXMLWriter(w)
	if f.self != "" {
		x.ns.bind("atom", nsAtom)
	}
	if f.hasEntryImages() {
		x.ns.bind("media", nsMedia)
	}
	x.ns.bindExtensions(f, ownsNothing)
	x.startRoot("rss", "", ` version="2.0"`)
	x.raw("  <channel>\n")
	const in = "    "
	x.element(in, "title", f.title)
	x.element(in, "link", f.link)
	x.element(in, "description", firstNonEmpty(f.description, f.title))
	if f.language != "" {
		x.element(in, "language", f.language)
	}
	if !f.updated.IsZero() {
		x.element(in, "lastBuildDate", f.updated.Format(time.RFC1123Z))
	}
	if f.self != "" {
		x.raw(in)
		x.raw(`<atom:link rel="self" type="application/rss+xml" href="`)
		x.attr(f.self)
		x.raw("\"/>\n")
	}
	if img := f.image; img != nil {
		x.raw(in + "<image>\n")
		x.element(in+"  ", "url", img.url)
		x.element(in+"  ", "title", img.title)
		x.element(in+"  ", "link", img.link)
		x.raw(in + "</image>\n")
	}
	x.extensions(in, f.extensions, func(e dynamo.Extension) bool {
		return f.self != "" && e.URI == nsAtom && e.LocalName == "link"
	})
	for i := range f.entries {
		writeRSS2Item(x, &f.entries[i])
	}
	x.raw("  </channel>\n</rss>\n")
	return x.flush()
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
	x.raw(in)
	x.raw(`<guid isPermaLink="false">`)
	x.text(e.id)
	x.raw("</guid>\n")
	if !e.date.IsZero() {
		x.element(in, "pubDate", e.date.Format(time.RFC1123Z))
	}
	if e.image != "" {
		x.mediaImage(in, e.image)
	}
	x.extensions(in, e.extensions, e.skipMediaImage)
	x.raw("    </item>\n")
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

func (f *feed) hasEntryImages() bool {
	for i := range f.entries {
		if f.entries[i].image != "" {
			return true
		}
	}
	return false
}

func ownsNothing(string) bool { return false }
