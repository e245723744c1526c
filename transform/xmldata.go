package transform

import (
	"io"
	"strings"

	"github.com/dynamo-feeds/dynamo"
)

// writeXMLData writes r, with the items that items hands, as XMLData with
// Resource.WriteItems, after mending what
// would make the document invalid against schema/xmldata.xsd although
// WriteTo writes it: characters that xsd:anyURI does not admit in a link
// (spaces, quotes, angle brackets, a stray '%') are percent-encoded, and
// extensions bound to the xml or xmlns namespaces, which no prefix may be
// bound to, are left out. A resource the wrapper produced has none of
// these, and gives exactly Resource.XML's bytes.
func writeXMLData(w io.Writer, r *dynamo.Resource, items Items, schemaURL string) error {
	c := *r
	c.URL = anyURI(r.URL)
	c.Channel.Link = anyURI(r.Channel.Link)
	c.Channel.Image = anyURIImage(r.Channel.Image)
	c.Channel.Extensions = namespaceableExtensions(r.Channel.Extensions)
	c.Items = nil
	return c.WriteItems(w, schemaURL, func(yield func(*dynamo.Item) error) error {
		return items(func(it *dynamo.Item) error {
			mended := *it
			mended.Link = anyURI(it.Link)
			mended.Image = anyURIImage(it.Image)
			mended.Extensions = namespaceableExtensions(it.Extensions)
			return yield(&mended)
		})
	})
}

// anyURI returns s as a valid xsd:anyURI: cleaned, trimmed, and with the
// ASCII characters a URI cannot contain percent-encoded.
func anyURI(s string) string { return escapeIRI(strings.TrimSpace(cleanText(s))) }

func anyURIImage(img *dynamo.Image) *dynamo.Image {
	if img == nil {
		return nil
	}
	return &dynamo.Image{URL: anyURI(img.URL), Link: anyURI(img.Link), Title: img.Title}
}

// namespaceableExtensions returns exts without those whose namespace no
// prefix may be bound to, with namespace URIs trimmed and cleaned of
// characters XML cannot carry (WriteTo leaves out those left empty). It
// returns exts itself when nothing changes.
func namespaceableExtensions(exts []dynamo.Extension) []dynamo.Extension {
	changed := false
	for _, e := range exts {
		if e.URI != namespaceName(e.URI) || e.URI == nsXML || e.URI == nsXMLNS {
			changed = true
			break
		}
	}
	if !changed {
		return exts
	}
	var out []dynamo.Extension
	for _, e := range exts {
		e.URI = namespaceName(e.URI)
		if e.URI != nsXML && e.URI != nsXMLNS {
			out = append(out, e)
		}
	}
	return out
}

// namespaceName returns uri as it can be declared: trimmed, and without the
// characters XML cannot carry.
func namespaceName(uri string) string { return strings.TrimSpace(cleanText(uri)) }
