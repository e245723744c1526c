package dynamo

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Resource is one XMLData document: what Dynamo extracted from one retrieval
// of a source. It is the unit that is versioned, stored and rendered.
type Resource struct {
	URL       string    // the page or feed it was read from
	RSSID     string    // the collection (source) id
	Timestamp time.Time // when it was retrieved
	Channel   Channel
	Items     []Item // in page order
}

// Channel describes the feed as a whole.
type Channel struct {
	Title       string
	Link        string
	Description string
	Image       *Image
	Extensions  []Extension
}

// Item is one entry of a Resource.
type Item struct {
	Index       int    // position in the page's annotations, 1-based; orders the items
	ID          string // stable across versions of the page, see ItemID
	Title       string // plain text
	Link        string // absolute URL
	Description string // sanitized HTML; may be empty
	Image       *Image
	// Enclosures are the files the item carries (a podcast's audio, a
	// video, a document), in the order the source gives them.
	Enclosures []Enclosure
	// Updated is when the item was last changed, when the source says so
	// and it is later than its publication date; zero otherwise.
	Updated    time.Time
	Extensions []Extension

	// The fields below are derived by the producer of the item and travel with
	// it to storage; they are not part of the XMLData document.

	// Text is the description's plain text, which keyword search matches.
	Text string
	// IDFromContent reports that ID was derived from the title and
	// description because the item has no link or guid of its own; the
	// archive then recognizes an earlier item with the same title as this one.
	IDFromContent bool
}

// Enclosure is a file an item carries, as RSS 2.0's <enclosure>, Atom's
// link rel="enclosure" and JSON Feed's attachments describe it.
type Enclosure struct {
	URL    string `json:"url"`              // absolute
	Type   string `json:"type,omitempty"`   // media type (audio/mpeg); "" when unknown
	Length int64  `json:"length,omitempty"` // size in bytes; 0 when unknown
}

// Image is a channel's or an item's picture.
type Image struct {
	URL   string
	Link  string
	Title string
}

// Extension is an element in a namespace of its own, such as dc:language on
// a channel or dc:date on an item. Its value is text.
type Extension struct {
	URI       string // namespace URI, e.g. http://purl.org/dc/elements/1.1/
	Prefix    string // e.g. dc
	LocalName string // e.g. date
	Value     string
}

// Well-known namespaces used for extensions.
const (
	NamespaceDC      = "http://purl.org/dc/elements/1.1/"
	NamespaceDynamo  = "https://dynamo-feeds.github.io/ns/1.0"
	NamespaceContent = "http://purl.org/rss/1.0/modules/content/"
	NamespaceDCTerms = "http://purl.org/dc/terms/"
	// NamespaceAggregation is RSS 1.0's mod_aggregation: an aggregated
	// item's source (ag:source, its name; ag:sourceURL, its address).
	NamespaceAggregation = "http://purl.org/rss/1.0/modules/aggregation/"
)

// AllEnclosures returns the item's enclosures and, after them, those that
// documents stored before enclosures were XMLData elements carry as
// dynamo:enclosure extensions (a URL alone), each URL once.
func (it *Item) AllEnclosures() []Enclosure {
	out := it.Enclosures
	for _, e := range it.Extensions {
		if !IsLegacyEnclosure(e) || strings.TrimSpace(e.Value) == "" {
			continue
		}
		u := strings.TrimSpace(e.Value)
		if !slices.ContainsFunc(out, func(x Enclosure) bool { return x.URL == u }) {
			out = append(slices.Clip(out), Enclosure{URL: u})
		}
	}
	return out
}

// IsLegacyEnclosure reports whether e is a dynamo:enclosure extension, the
// form enclosures had before they were XMLData elements (see AllEnclosures).
func IsLegacyEnclosure(e Extension) bool {
	return e.URI == NamespaceDynamo && e.LocalName == "enclosure"
}

// Modified returns when the item was last changed: Updated, else a
// dcterms:modified extension holding an RFC 3339 time (documents stored
// before Updated existed, and annotated pages that declare one).
func (it *Item) Modified() (time.Time, bool) {
	if !it.Updated.IsZero() {
		return it.Updated, true
	}
	for _, e := range it.Extensions {
		if IsModifiedExtension(e) {
			if t, err := time.Parse(time.RFC3339, strings.TrimSpace(e.Value)); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// IsModifiedExtension reports whether e is dcterms:modified (see Modified).
func IsModifiedExtension(e Extension) bool {
	return e.URI == NamespaceDCTerms && e.LocalName == "modified"
}

// Valid reports why the extension cannot be written as an XML element, or nil.
func (e Extension) Valid() error {
	switch {
	case e.URI == "":
		return fmt.Errorf("extension %s:%s has no namespace uri", e.Prefix, e.LocalName)
	case !isNCName(e.Prefix):
		return fmt.Errorf("extension prefix %q is not an XML name", e.Prefix)
	case strings.HasPrefix(strings.ToLower(e.Prefix), "xml"):
		return fmt.Errorf("extension prefix %q is reserved", e.Prefix)
	case !isNCName(e.LocalName):
		return fmt.Errorf("extension localName %q is not an XML name", e.LocalName)
	}
	return nil
}

// IsDateName reports whether an extension with this local name carries a
// date (dc:date, pubDate, published, updated), which Dynamo parses into the
// item's or channel's date.
func IsDateName(localName string) bool {
	switch strings.ToLower(localName) {
	case "date", "pubdate", "published", "updated":
		return true
	}
	return false
}

// Date returns the channel's date: the first date extension whose value is
// an RFC 3339 time (producers normalize the dates they could parse to that).
func (c *Channel) Date() (time.Time, bool) { return extensionDate(c.Extensions) }

// Date returns the item's date: the first date extension whose value is an
// RFC 3339 time (producers normalize the dates they could parse to that).
func (it *Item) Date() (time.Time, bool) { return extensionDate(it.Extensions) }

func extensionDate(exts []Extension) (time.Time, bool) {
	for _, e := range exts {
		if !IsDateName(e.LocalName) {
			continue
		}
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(e.Value)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// XML returns the document as XMLData, valid against schema/xmldata.xsd.
func (r *Resource) XML() []byte {
	var buf bytes.Buffer
	r.WriteTo(&buf) // a bytes.Buffer does not fail
	return buf.Bytes()
}

// WriteTo writes the document as XMLData, valid against schema/xmldata.xsd.
// Characters that XML 1.0 cannot carry become U+FFFD; extensions that cannot
// be written as elements (see Extension.Valid) are left out.
func (r *Resource) WriteTo(w io.Writer) (int64, error) { return r.WriteWithSchema(w, "") }

// WriteWithSchema is WriteTo naming the document's schema: with a
// schemaURL, the root element says xsi:noNamespaceSchemaLocation, so that
// a reader of a served document finds the schema it is valid against
// (`dynamo serve` publishes it at schema.XMLDataPath: docs/API.md
// "XMLData's schema").
func (r *Resource) WriteWithSchema(w io.Writer, schemaURL string) (int64, error) {
	cw := &countingWriter{w: w}
	err := r.WriteItems(cw, schemaURL, func(yield func(*Item) error) error {
		for i := range r.Items {
			if err := yield(&r.Items[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return cw.n, err
}

// WriteItems is WriteWithSchema with the items handed by items, in order,
// instead of r's: each is written as it comes and not kept, so that a
// document of any number of items is written in the memory of one (the
// API's streamed listings). An error from items or from w stops the
// writing and is returned.
func (r *Resource) WriteItems(w io.Writer, schemaURL string, items func(yield func(*Item) error) error) error {
	x := &xmlWriter{}
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.raw(`<resource `)
	if schemaURL != "" {
		x.raw(`xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="`)
		x.escape(schemaURL)
		x.raw(`" `)
	}
	x.raw(`url="`)
	x.escape(r.URL)
	x.raw(`" rssId="`)
	x.escape(r.RSSID)
	x.raw(`" timestamp="`)
	x.escape(r.Timestamp.UTC().Format(time.RFC3339))
	x.raw(`">` + "\n  <channel>\n")
	x.element("    ", "title", r.Channel.Title)
	x.element("    ", "link", r.Channel.Link)
	x.element("    ", "description", r.Channel.Description)
	x.image("    ", r.Channel.Image)
	x.extensions("    ", r.Channel.Extensions)
	x.raw("  </channel>\n")
	err := items(func(it *Item) error {
		x.raw(`  <item index="` + strconv.Itoa(it.Index) + `" id="`)
		x.escape(it.ID)
		x.raw("\">\n")
		x.element("    ", "title", it.Title)
		x.element("    ", "link", it.Link)
		if it.Description != "" {
			x.element("    ", "description", it.Description)
		}
		x.image("    ", it.Image)
		if !it.Updated.IsZero() {
			x.element("    ", "updated", it.Updated.Format(time.RFC3339))
		}
		x.enclosures("    ", it.Enclosures)
		x.extensions("    ", it.Extensions)
		x.raw("  </item>\n")
		if x.buf.Len() < writeChunk {
			return nil
		}
		_, err := w.Write(x.buf.Bytes())
		x.buf.Reset()
		return err
	})
	if err != nil {
		return err
	}
	x.raw("</resource>\n")
	_, err = w.Write(x.buf.Bytes())
	return err
}

// writeChunk is how many bytes WriteItems gathers before writing them.
const writeChunk = 32 << 10

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type xmlWriter struct{ buf bytes.Buffer }

func (x *xmlWriter) raw(s string)    { x.buf.WriteString(s) }
func (x *xmlWriter) escape(s string) { xml.EscapeText(&x.buf, []byte(s)) }

func (x *xmlWriter) element(indent, name, text string) {
	x.raw(indent + "<" + name + ">")
	x.escape(text)
	x.raw("</" + name + ">\n")
}

func (x *xmlWriter) image(indent string, img *Image) {
	if img == nil {
		return
	}
	x.raw(indent + "<image>\n")
	x.element(indent+"  ", "title", img.Title)
	x.element(indent+"  ", "link", img.Link)
	x.element(indent+"  ", "url", img.URL)
	x.raw(indent + "</image>\n")
}

func (x *xmlWriter) enclosures(indent string, encs []Enclosure) {
	if len(encs) == 0 {
		return
	}
	x.raw(indent + "<enclosures>\n")
	for _, e := range encs {
		x.raw(indent + `  <enclosure url="`)
		x.escape(e.URL)
		x.raw(`"`)
		if e.Type != "" {
			x.raw(` type="`)
			x.escape(e.Type)
			x.raw(`"`)
		}
		if e.Length > 0 {
			x.raw(` length="` + strconv.FormatInt(e.Length, 10) + `"`)
		}
		x.raw("/>\n")
	}
	x.raw(indent + "</enclosures>\n")
}

func (x *xmlWriter) extensions(indent string, exts []Extension) {
	var valid []Extension
	for _, e := range exts {
		if e.Valid() == nil {
			valid = append(valid, e)
		}
	}
	if len(valid) == 0 {
		return
	}
	x.raw(indent + "<extensions>\n")
	for _, e := range valid {
		name := e.Prefix + ":" + e.LocalName
		x.raw(indent + "  <" + name + " xmlns:" + e.Prefix + `="`)
		x.escape(e.URI)
		x.raw(`">`)
		x.escape(e.Value)
		x.raw("</" + name + ">\n")
	}
	x.raw(indent + "</extensions>\n")
}

// DecodeResource parses an XMLData document, such as one written by
// Resource.WriteTo. Derived item fields (Text, IDFromContent)
// are not part of XMLData and come back empty.
func DecodeResource(data []byte) (*Resource, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	p := &xmlParser{d: d}
	r, err := p.resource()
	if err != nil {
		return nil, fmt.Errorf("xmldata: %w", err)
	}
	return r, nil
}

// xmlParser reads XMLData with RawToken, so that extension prefixes survive;
// it resolves their namespaces itself from the xmlns attributes in scope.
type xmlParser struct {
	d      *xml.Decoder
	scopes []map[string]string // prefix → uri, one map per open element
}

func (p *xmlParser) next() (xml.Token, error) {
	for {
		tok, err := p.d.RawToken()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			scope := map[string]string{}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" {
					scope[a.Name.Local] = a.Value
				}
			}
			p.scopes = append(p.scopes, scope)
			return t.Copy(), nil
		case xml.EndElement:
			if len(p.scopes) > 0 {
				p.scopes = p.scopes[:len(p.scopes)-1]
			}
			return t, nil
		case xml.CharData:
			return t.Copy(), nil
		}
	}
}

func (p *xmlParser) namespace(prefix string) string {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if uri, ok := p.scopes[i][prefix]; ok {
			return uri
		}
	}
	return ""
}

// children calls fn for each child element of the element just opened, and
// returns at its end.
func (p *xmlParser) children(fn func(xml.StartElement) error) error {
	for {
		tok, err := p.next()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := fn(t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// text reads the character data of the element just opened, up to its end.
func (p *xmlParser) text() (string, error) {
	var sb strings.Builder
	depth := 0
	for {
		tok, err := p.next()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.StartElement:
			depth++
		case xml.EndElement:
			if depth == 0 {
				return sb.String(), nil
			}
			depth--
		}
	}
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (p *xmlParser) resource() (*Resource, error) {
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if se.Name.Local != "resource" {
			return nil, fmt.Errorf("root element is <%s>, want <resource>", se.Name.Local)
		}
		r := &Resource{URL: attr(se, "url"), RSSID: attr(se, "rssId")}
		if ts := attr(se, "timestamp"); ts != "" {
			if r.Timestamp, err = time.Parse(time.RFC3339, ts); err != nil {
				return nil, fmt.Errorf("timestamp: %w", err)
			}
		}
		err = p.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "channel":
				return p.channel(&r.Channel)
			case "item":
				it, err := p.item(se)
				if err == nil {
					r.Items = append(r.Items, it)
				}
				return err
			}
			_, err := p.text()
			return err
		})
		return r, err
	}
}

func (p *xmlParser) channel(c *Channel) error {
	return p.children(func(se xml.StartElement) error {
		var err error
		switch se.Name.Local {
		case "title":
			c.Title, err = p.text()
		case "link":
			c.Link, err = p.text()
		case "description":
			c.Description, err = p.text()
		case "image":
			c.Image, err = p.image()
		case "extensions":
			c.Extensions, err = p.extensions()
		default:
			_, err = p.text()
		}
		return err
	})
}

func (p *xmlParser) item(start xml.StartElement) (Item, error) {
	it := Item{ID: attr(start, "id")}
	index, err := strconv.Atoi(attr(start, "index"))
	if err != nil {
		return it, fmt.Errorf("item index: %w", err)
	}
	it.Index = index
	err = p.children(func(se xml.StartElement) error {
		var err error
		switch se.Name.Local {
		case "title":
			it.Title, err = p.text()
		case "link":
			it.Link, err = p.text()
		case "description":
			it.Description, err = p.text()
		case "image":
			it.Image, err = p.image()
		case "updated":
			var v string
			if v, err = p.text(); err == nil {
				if it.Updated, err = time.Parse(time.RFC3339, strings.TrimSpace(v)); err != nil {
					err = fmt.Errorf("item updated: %w", err)
				}
			}
		case "enclosures":
			err = p.children(func(se xml.StartElement) error {
				if se.Name.Local == "enclosure" {
					e := Enclosure{URL: attr(se, "url"), Type: attr(se, "type")}
					if l := attr(se, "length"); l != "" {
						n, err := strconv.ParseInt(l, 10, 64)
						if err != nil || n < 0 {
							return fmt.Errorf("enclosure length %q is not a size", l)
						}
						e.Length = n
					}
					it.Enclosures = append(it.Enclosures, e)
				}
				_, err := p.text()
				return err
			})
		case "extensions":
			it.Extensions, err = p.extensions()
		default:
			_, err = p.text()
		}
		return err
	})
	return it, err
}

func (p *xmlParser) image() (*Image, error) {
	img := &Image{}
	err := p.children(func(se xml.StartElement) error {
		var err error
		switch se.Name.Local {
		case "title":
			img.Title, err = p.text()
		case "link":
			img.Link, err = p.text()
		case "url":
			img.URL, err = p.text()
		default:
			_, err = p.text()
		}
		return err
	})
	return img, err
}

func (p *xmlParser) extensions() ([]Extension, error) {
	var exts []Extension
	err := p.children(func(se xml.StartElement) error {
		value, err := p.textKeepingScope(se)
		if err != nil {
			return err
		}
		exts = append(exts, value)
		return nil
	})
	return exts, err
}

// textKeepingScope reads an extension element: its namespace must be resolved
// before its end tag closes the scope that declares it.
func (p *xmlParser) textKeepingScope(se xml.StartElement) (Extension, error) {
	e := Extension{Prefix: se.Name.Space, LocalName: se.Name.Local, URI: p.namespace(se.Name.Space)}
	v, err := p.text()
	e.Value = v
	return e, err
}

// isNCName reports whether s is a non-colonized XML name. It accepts the
// ASCII subset only (letters, digits, '-', '_', '.'; not starting with a
// digit, '-' or '.'), which every XML processor reads the same way.
func isNCName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z':
		case i > 0 && (r == '-' || r == '.' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}
