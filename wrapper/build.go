package wrapper

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/values"
)

// builder turns the annotations, their contents found, into the Resource.
type builder struct {
	text    string
	lines   *lines
	sc      *scanned
	opts    Options
	warn    *warnings
	pageURL *url.URL // nil when there is none
	base    *url.URL // the page URL with <base href> applied; nil when none
	loc     *time.Location
	// baseString is base as a string, "" when none: what the values
	// resolved against it are memoized under.
	baseString string
	sanitizer  values.Sanitizer // b.sanitized
	links      values.LinkResolver

	res         *dynamo.Resource
	annotations []Annotation // one per annot, in the same order
	indexes     []string     // the index each item was written with, in the order of res.Items
	// extRoom is room for the extensions of the items not yet drafted,
	// one allocation for the page rather than one an item.
	extRoom []dynamo.Extension
	// dateFields are the page's date fields whose numeric dates could be
	// read in two orders, in the order first seen (dates.go).
	dateFields dateFields
}

func newBuilder(text string, ln *lines, sc *scanned, opts Options, w *warnings) *builder {
	b := &builder{text: text, lines: ln, sc: sc, opts: opts, warn: w, loc: opts.Location}
	if b.loc == nil {
		b.loc = time.UTC
	}
	b.pageURL = parseURL(opts.URL, w)
	b.base = b.pageURL
	if sc.base != "" {
		if u, err := url.Parse(strings.TrimSpace(sc.base)); err != nil {
			w.add(0, "<base href=%q> is not a URL (%v); ignored", sc.base, err)
		} else if b.pageURL != nil {
			b.base = b.pageURL.ResolveReference(u)
		} else if u.IsAbs() {
			b.base = u
		}
	}
	if b.base != nil {
		b.baseString = b.base.String()
	}
	b.sanitizer = b.sanitized
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	pageURL := ""
	if b.pageURL != nil {
		pageURL = uriString(b.pageURL.String())
	}
	b.res = &dynamo.Resource{URL: pageURL, RSSID: opts.RSSID, Timestamp: now}
	return b
}

// build fills the Resource from the annotations, in page order.
func (b *builder) build(annots []*annot) {
	b.annotations = make([]Annotation, len(annots))
	nAttrs := 0
	for _, a := range annots {
		nAttrs += len(a.open.attrs)
	}
	attrs := make([]Attr, 0, nAttrs) // one allocation for every annotation's attributes
	items := make([]itemAnnot, 0, len(annots))
	ch := channelParts{}
	for i, a := range annots {
		b.annotations[i], attrs = b.describe(a, attrs)
		scope, field, _ := strings.Cut(a.name, ":")
		if scope == "item" {
			items = append(items, itemAnnot{a: a, field: field, pub: &b.annotations[i]})
			continue
		}
		ch.add(field, a, &b.annotations[i], b.warn)
	}
	b.channel(&ch)
	groups := group(items, b.warn)
	warnNeighbourIndexes(groups, b.warn)
	b.items(groups)
	b.orderDates()
}

// describe makes the public Annotation of an annot (Value and Item are
// filled in later, once known). Its attributes are appended to attrs,
// which it returns: the tag's own are the scan's, given back to its pool
// at the end of Wrap.
func (b *builder) describe(a *annot, attrs []Attr) (Annotation, []Attr) {
	pub := Annotation{Name: a.name, Line: a.open.line, Start: a.start, End: a.end, Closed: a.closed || a.empty}
	pub.ContentStart, pub.ContentEnd = a.open.end, a.open.end
	if n := len(a.spans); n > 0 {
		pub.ContentStart, pub.ContentEnd = a.spans[0].start, a.spans[n-1].end
	}
	if len(a.open.attrs) > 0 {
		from := len(attrs)
		for _, at := range a.open.attrs {
			attrs = append(attrs, Attr{Name: at.name, Value: at.value})
		}
		pub.Attrs = attrs[from:len(attrs):len(attrs)]
	}
	if index, _ := a.open.attr("index"); index != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(index)); err == nil {
			pub.Index = n
		}
	}
	if !a.closed && !a.empty && !strings.HasSuffix(a.name, ":image") && a.name != "item:enclosure" {
		b.warn.add(a.open.line, "%s", describeNeverClosed(a, b.text, b.lines))
	}
	warnSwallowedBlocks(a, b.text, b.lines, b.warn)
	return pub, attrs
}

// channelParts are the channel's annotations, the first of each kind.
type channelParts struct {
	title, link, description, image *annot
	pubs                            map[*annot]*Annotation
	extensions                      []*annot
}

func (c *channelParts) add(field string, a *annot, pub *Annotation, w *warnings) {
	if c.pubs == nil {
		c.pubs = map[*annot]*Annotation{}
	}
	c.pubs[a] = pub
	var slot **annot
	switch field {
	case "title":
		slot = &c.title
	case "link":
		slot = &c.link
	case "description":
		slot = &c.description
	case "image":
		slot = &c.image
	case "extension":
		c.extensions = append(c.extensions, a)
		return
	}
	if *slot != nil {
		w.add(a.open.line, "a second <%s> (the first is on line %d) is ignored", a.name, (*slot).open.line)
		return
	}
	*slot = a
}

// channel fills the Resource's channel, with the defaults of docs/WRAPPER.md "Defaults".
func (b *builder) channel(c *channelParts) {
	ch := &b.res.Channel
	if c.title != nil {
		ch.Title = b.plainText(c.title.content(b.text))
		c.pubs[c.title].Value = ch.Title
		if ch.Title == "" {
			b.warn.add(c.title.open.line, "<channel:title> is empty; the page's <title> is used")
		}
	}
	if ch.Title == "" {
		ch.Title = b.sc.title
	}
	if ch.Title == "" {
		ch.Title = b.res.URL
		if c.title == nil {
			b.warn.add(0, "no <channel:title> annotation and no <title> in the page; the channel is titled with the page URL")
		}
	}
	if c.link != nil {
		link, problem := b.link(c.link.content(b.text))
		if problem != "" {
			b.warn.add(c.link.open.line, "<channel:link> %s; the page URL is used", problem)
		}
		ch.Link = link
		c.pubs[c.link].Value = link
	}
	if ch.Link == "" {
		ch.Link = b.res.URL
	}
	if c.description != nil {
		ch.Description, _ = b.description(c.description.content(b.text))
		c.pubs[c.description].Value = ch.Description
		if ch.Description == "" {
			b.warn.add(c.description.open.line, "<channel:description> is empty")
		}
	} else {
		ch.Description = b.sc.metaDescription
	}
	if c.image != nil {
		ch.Image = b.image(c.image, ch.Link, ch.Title)
		if ch.Image != nil {
			c.pubs[c.image].Value = ch.Image.URL
		}
	}
	for _, a := range c.extensions {
		if e, d, ok := b.extension(a); ok {
			ch.Extensions = append(ch.Extensions, e)
			c.pubs[a].Value = e.Value
			b.dateFields.note(d, &ch.Extensions, len(ch.Extensions)-1, c.pubs[a])
		}
	}
}

// enclosure reads an item:enclosure annotation: its url attribute, or
// failing one, the link its content holds (the href of its first <a>, else
// its text, as item:link reads it), resolved like any link; its type and
// length attributes when they are a media type and a size in bytes (left
// out otherwise). False, with a warning, when it has no usable URL.
func (b *builder) enclosure(a *annot) (dynamo.Enclosure, bool) {
	var e dynamo.Enclosure
	var problem string
	if src, ok := a.open.attr("url"); ok && strings.TrimSpace(src) != "" {
		e.URL, problem = b.links.ResolveLink(b.base, src)
	} else {
		e.URL, problem = b.link(a.content(b.text))
	}
	if problem != "" {
		b.warn.add(a.open.line, "<%s> %s; ignored", a.name, problem)
		return e, false
	}
	t, _ := a.open.attr("type")
	var ok bool
	if e.Type, ok = values.MediaType(t); !ok {
		b.warn.add(a.open.line, "<%s> type %q is not a media type such as audio/mpeg; left out", a.name, values.Truncate(strings.TrimSpace(t), 60))
	}
	l, _ := a.open.attr("length")
	if e.Length, ok = values.Size(l); !ok {
		b.warn.add(a.open.line, "<%s> length %q is not a size in bytes; left out", a.name, values.Truncate(strings.TrimSpace(l), 60))
	}
	return e, true
}

// image reads an image annotation: its url, link and title attributes, or
// failing a url, the first <img> of its content (src, and alt as title).
// The link defaults to the channel's or item's link, the title to its title.
func (b *builder) image(a *annot, link, title string) *dynamo.Image {
	src, _ := a.open.attr("url")
	imgTitle, hasTitle := a.open.attr("title")
	if strings.TrimSpace(src) == "" {
		var alt string
		src, alt = firstImage(a.content(b.text))
		if !hasTitle {
			imgTitle = alt
		}
	}
	if strings.TrimSpace(src) == "" {
		b.warn.add(a.open.line, "<%s> has no url attribute and no <img> in its content; ignored", a.name)
		return nil
	}
	img := &dynamo.Image{Link: link, Title: values.CollapseSpace(imgTitle)}
	var problem string
	if img.URL, problem = b.links.ResolveLink(b.base, src); problem != "" {
		b.warn.add(a.open.line, "<%s> url %s; ignored", a.name, problem)
		return nil
	}
	if l, ok := a.open.attr("link"); ok && strings.TrimSpace(l) != "" {
		if resolved, problem := b.links.ResolveLink(b.base, l); problem != "" {
			b.warn.add(a.open.line, "<%s> link %s; the %s link is used", a.name, problem, strings.TrimSuffix(a.name, ":image"))
		} else {
			img.Link = resolved
		}
	}
	if img.Title == "" {
		img.Title = title
	}
	return img
}

// wellKnownNamespaces let an extension omit its uri (or its prefix) when it
// uses a namespace everyone knows.
var wellKnownNamespaces = map[string]string{
	"dc":      dynamo.NamespaceDC,
	"dcterms": "http://purl.org/dc/terms/",
	"content": dynamo.NamespaceContent,
}

// extension reads an extension annotation. A date-like one (see
// dynamo.IsDateName) is parsed leniently and stored in RFC 3339, which is
// how Item.Date and Channel.Date read it; one that cannot be parsed keeps
// its text. Its numeric date is read by the zone's rule; what it allowed
// is returned for orderDates, which may read it again in the page's order.
func (b *builder) extension(a *annot) (dynamo.Extension, dateRead, bool) {
	uri, _ := a.open.attr("uri")
	prefix, _ := a.open.attr("prefix")
	local, _ := a.open.attr("localname")
	e := dynamo.Extension{URI: strings.TrimSpace(uri), Prefix: strings.TrimSpace(prefix), LocalName: strings.TrimSpace(local)}
	b.completeNamespace(a, &e)
	if err := e.Valid(); err != nil {
		b.warn.add(a.open.line, "<%s>: %v; ignored", a.name, err)
		return e, dateRead{}, false
	}
	e.Value = b.plainText(a.content(b.text))
	if e.Value == "" {
		b.warn.add(a.open.line, "<%s> %s:%s is empty", a.name, e.Prefix, e.LocalName)
	}
	if e.URI == dynamo.NamespaceDynamo && e.LocalName == "enclosure" && e.Value != "" {
		// An enclosure is a URL, resolved as links are (Dynamo's own
		// extension, which the item turns into an Enclosure).
		link, problem := b.links.ResolveLink(b.base, e.Value)
		if problem != "" {
			b.warn.add(a.open.line, "<%s> dynamo:enclosure %s; ignored", a.name, problem)
			return e, dateRead{}, false
		}
		e.Value = link
	}
	var d dateRead
	if dynamo.IsDateName(e.LocalName) && e.Value != "" {
		if date, r, ok := b.dateValue(a, e.Value); ok {
			d = dateRead{ext: e, text: e.Value, annot: a.name, line: a.open.line, reading: r}
			e.Value = date
		} else {
			b.warn.add(a.open.line, "<%s> %s:%s: %q is not a date Dynamo can read; the text is kept", a.name, e.Prefix, e.LocalName, truncate(e.Value, 60))
		}
	}
	return e, d, true
}

// completeNamespace fills a missing uri from a well-known prefix, or a
// missing prefix from a well-known uri, and says so.
func (b *builder) completeNamespace(a *annot, e *dynamo.Extension) {
	switch {
	case e.URI == "" && wellKnownNamespaces[strings.ToLower(e.Prefix)] != "":
		e.Prefix = strings.ToLower(e.Prefix)
		e.URI = wellKnownNamespaces[e.Prefix]
		b.warn.add(a.open.line, "<%s> has no uri; prefix %s is taken to mean %s", a.name, e.Prefix, e.URI)
	case e.Prefix == "" && e.URI != "":
		for prefix, uri := range wellKnownNamespaces {
			if uri == e.URI {
				e.Prefix = prefix
				b.warn.add(a.open.line, "<%s> has no prefix; %s is used for %s", a.name, prefix, uri)
			}
		}
	}
}
