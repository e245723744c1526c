package transform

import (
	"bufio"
	"io"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// xmlWriter writes an XML document by hand. encoding/xml cannot write a
// namespaced element with the prefix it was read with (it declares a
// default namespace on every element instead), and the feed formats are
// small and fixed, so the writers lay out their elements themselves and rely
// on this type for the escaping. Text reaching it has been through
// cleanText.
//
// The pieces are appended to a pooled buffer, written to the destination
// whenever the next piece would not fit: an append the compiler inlines,
// where a bufio.Writer's WriteString (a call, a loop and its checks for
// every tag, name and escaped run) was a few percent of an uncached
// answer's CPU. The first write error is kept, nothing is written after
// it, and it surfaces at flush (and err).
type xmlWriter struct {
	dst     io.Writer
	buf     []byte   // pending output, cap(buf) == xmlBufferSize
	werr    error    // the first error dst returned
	scratch [40]byte // timeElement's formatting
	// ns is the namespace bindings declared on the root element, which
	// extension elements use when their prefix matches.
	ns namespaces
}

// xmlBufferSize is how much an xmlWriter holds before writing it out.
const xmlBufferSize = 16 << 10

// xmlBuffers keeps the buffers of finished renderings: every uncached
// answer renders a feed, and a new buffer each time was a tenth of an
// answer's allocated bytes.
var xmlBuffers = sync.Pool{New: func() any { return new([xmlBufferSize]byte) }}

// newXMLWriter returns a writer to w, whose buffer release gives back.
func newXMLWriter(w io.Writer) *xmlWriter {
	return &xmlWriter{dst: w, buf: xmlBuffers.Get().(*[xmlBufferSize]byte)[:0]}
}

// release gives the writer's buffer back for another rendering; the
// writer is not used after.
func (x *xmlWriter) release() {
	xmlBuffers.Put((*[xmlBufferSize]byte)(x.buf[:xmlBufferSize]))
	x.buf, x.dst = nil, nil
}

// bufWriters keeps the 16 KiB buffers of finished JSON Feed renderings, for
// the reason xmlBuffers keeps the XML formats'.
var bufWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 16<<10) }}

// newBufWriter returns a pooled buffered writer to w.
func newBufWriter(w io.Writer) *bufio.Writer {
	bw := bufWriters.Get().(*bufio.Writer)
	bw.Reset(w)
	return bw
}

// freeBufWriter gives bw back to the pool, holding on to nothing of its
// rendering (its destination, an error it kept).
func freeBufWriter(bw *bufio.Writer) {
	bw.Reset(nil)
	bufWriters.Put(bw)
}

// flush writes out what the buffer holds and returns the first write error.
func (x *xmlWriter) flush() error {
	if x.werr == nil && len(x.buf) > 0 {
		_, x.werr = x.dst.Write(x.buf)
	}
	x.buf = x.buf[:0]
	return x.werr
}

// err is the first error writing failed with, which stops a writer that
// is handed its entries one at a time.
func (x *xmlWriter) err() error { return x.werr }

// raw writes s as it is.
func (x *xmlWriter) raw(s string) {
	if len(s) > cap(x.buf)-len(x.buf) {
		x.spill(s)
		return
	}
	x.buf = append(x.buf, s...)
}

// rawBytes writes b as it is.
func (x *xmlWriter) rawBytes(b []byte) {
	if len(b) > cap(x.buf)-len(x.buf) {
		x.spill(string(b))
		return
	}
	x.buf = append(x.buf, b...)
}

// spill writes out the buffer to make room for s, and s itself when it is
// longer than the buffer; a write error drops s and all that follows.
func (x *xmlWriter) spill(s string) {
	x.flush()
	switch {
	case x.werr != nil:
	case len(s) > cap(x.buf):
		_, x.werr = io.WriteString(x.dst, s)
	default:
		x.buf = append(x.buf, s...)
	}
}

// tag writes "<" or "</" (open), the name and ">", piece by piece: string
// concatenation would allocate for every element.
func (x *xmlWriter) tag(indent, open, name, end string) {
	x.raw(indent)
	x.raw(open)
	x.raw(name)
	x.raw(end)
}

// text writes s as character data.
func (x *xmlWriter) text(s string) { x.escape(s, false) }

// attr writes s as an attribute value inside double quotes.
func (x *xmlWriter) attr(s string) { x.escape(s, true) }

// escape writes s with the markup characters replaced by references; in an
// attribute, quotes and the whitespace that attribute normalization would
// otherwise turn into spaces are escaped too. A carriage return is escaped
// everywhere, since parsers turn a literal one into a newline.
func (x *xmlWriter) escape(s string, inAttr bool) {
	refs := &textRefs
	if inAttr {
		refs = &attrRefs
	}
	last := 0
	for i := 0; i < len(s); i++ {
		if ref := refs[s[i]]; ref != "" {
			x.raw(s[last:i])
			x.raw(ref)
			last = i + 1
		}
	}
	x.raw(s[last:])
}

// textRefs and attrRefs map the bytes that must be escaped in character
// data and in attribute values to their references; a table lookup keeps
// the loop over long descriptions short.
var textRefs, attrRefs = func() (text, attr [256]string) {
	text['&'], text['<'], text['>'], text['\r'] = "&amp;", "&lt;", "&gt;", "&#xD;"
	attr = text
	attr['"'], attr['\n'], attr['\t'] = "&quot;", "&#xA;", "&#x9;"
	return text, attr
}()

// element writes <name>text</name> on a line of its own.
func (x *xmlWriter) element(indent, name, text string) {
	x.tag(indent, "<", name, ">")
	x.text(text)
	x.tag("", "</", name, ">\n")
}

// timeElement writes <name>t</name> on a line of its own, t in layout:
// formatted in place, where element(…, t.Format(layout)) allocated a
// string per date. A date needs no escaping.
func (x *xmlWriter) timeElement(indent, name string, t time.Time, layout string) {
	x.tag(indent, "<", name, ">")
	if layout == time.RFC1123Z {
		x.rawBytes(appendRFC1123Z(x.scratch[:0], t))
	} else {
		x.rawBytes(t.AppendFormat(x.scratch[:0], layout))
	}
	x.tag("", "</", name, ">\n")
}

// appendRFC1123Z appends t as t.AppendFormat(b, time.RFC1123Z) would, without
// reading the layout: RSS 2.0 writes a pubDate for every entry, and the
// layout's parse was most of the format's cost (time.RFC3339 has such a
// path in the time package already). A year outside 1000–9999 or an
// offset of 100 hours or more is left to AppendFormat.
func appendRFC1123Z(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	_, offset := t.Zone()
	zone := offset / 60 // minutes, its seconds dropped as the time package does
	if year < 1000 || year > 9999 || zone <= -100*60 || zone >= 100*60 {
		return t.AppendFormat(b, time.RFC1123Z)
	}
	hour, minute, sec := t.Clock()
	b = append(b, t.Weekday().String()[:3]...)
	b = append(b, ", "...)
	b = append2(b, day)
	b = append(b, ' ')
	b = append(b, month.String()[:3]...)
	b = append(b, ' ')
	b = append2(b, year/100)
	b = append2(b, year%100)
	b = append(b, ' ')
	b = append2(b, hour)
	b = append(b, ':')
	b = append2(b, minute)
	b = append(b, ':')
	b = append2(b, sec)
	if zone < 0 {
		b = append(b, " -"...)
		zone = -zone
	} else {
		b = append(b, " +"...)
	}
	b = append2(b, zone/60)
	return append2(b, zone%60)
}

// append2 appends n, 0 to 99, in two digits.
func append2(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

// elementAttr writes <name attrName="value"/> on a line of its own.
func (x *xmlWriter) elementAttr(indent, name, attrName, value string) {
	x.tag(indent, "<", name, " ")
	x.raw(attrName)
	x.raw(`="`)
	x.attr(value)
	x.raw("\"/>\n")
}

// startRoot writes the start tag of the root element with the namespace
// declarations of x.ns, default namespace first.
func (x *xmlWriter) startRoot(name, defaultNS, extraAttrs string) {
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<" + name)
	if defaultNS != "" {
		x.raw(` xmlns="`)
		x.attr(defaultNS)
		x.raw(`"`)
	}
	for _, b := range x.ns.bindings {
		x.raw(" xmlns:" + b.prefix + `="`)
		x.attr(b.uri)
		x.raw(`"`)
	}
	x.raw(extraAttrs + ">\n")
}

// extension writes one extension element with its prefix, declaring its
// namespace on the element itself when the root binds that prefix to another
// namespace.
func (x *xmlWriter) extension(indent string, e dynamo.Extension) {
	x.tag(indent, "<", e.Prefix, ":")
	x.raw(e.LocalName)
	if x.ns.uri(e.Prefix) != e.URI {
		x.tag(" ", "xmlns:", e.Prefix, `="`)
		x.attr(e.URI)
		x.raw(`"`)
	}
	x.raw(">")
	x.text(e.Value)
	x.tag("", "</", e.Prefix, ":")
	x.raw(e.LocalName)
	x.raw(">\n")
}

// extensions writes the extensions that skip does not claim (those that the
// format already wrote as native elements are not written twice), except
// dates kept as the page's unparsed text: feed readers and validators read
// dc:date and its kind as dates, and feedparser lets an unreadable one
// replace a good atom:updated, so those stay in XMLData and JSON Feed only.
func (x *xmlWriter) extensions(indent string, exts []dynamo.Extension, skip func(dynamo.Extension) bool) {
	for _, e := range exts {
		if !unparsedDate(e) && !ownExtension(e) && !skip(e) {
			x.extension(indent, e)
		}
	}
}

// ownExtension reports an extension in Dynamo's own namespace, which RSS
// and Atom leave out: feed validators warn on every namespace they do not
// know, whatever its URL serves, so Dynamo's elements for programs (the
// aggregate's dynamo:alsoIn, dynamo:duplicateOf…) are in XMLData and JSON
// Feed, and RSS and Atom carry what they say in elements the validators
// know (the aggregate's ag:source and dc:relation; docs/TRANSFORM.md
// "Validator warnings").
func ownExtension(e dynamo.Extension) bool { return e.URI == dynamo.NamespaceDynamo }

// unparsedDate reports whether e is a date extension whose value is not the
// RFC 3339 time producers normalize the dates they could parse to.
func unparsedDate(e dynamo.Extension) bool {
	if !dynamo.IsDateName(e.LocalName) {
		return false
	}
	_, err := time.Parse(time.RFC3339, e.Value)
	return err != nil
}

// namespaces is an ordered set of prefix bindings for a root element.
type namespaces struct {
	bindings []binding
}

type binding struct{ prefix, uri string }

// uri returns the namespace bound to prefix, or "".
func (n *namespaces) uri(prefix string) string {
	for _, b := range n.bindings {
		if b.prefix == prefix {
			return b.uri
		}
	}
	return ""
}

// bind binds prefix to uri unless prefix is already bound: the first binding
// wins, so the format's own prefixes, bound first, are never taken over.
func (n *namespaces) bind(prefix, uri string) {
	if n.uri(prefix) == "" {
		n.bindings = append(n.bindings, binding{prefix, uri})
	}
}

// bindExtensions binds the prefixes of the channel's extensions, then
// those of the entries' (learnt by their facts, in document order), so that
// most extension elements need no declaration of their own. Extensions in a
// namespace the format owns (owned reports it) and Dynamo's own
// (ownExtension) are never written, so they bind nothing.
func (n *namespaces) bindExtensions(channel []dynamo.Extension, owned func(uri string) bool, entries *namespaces) {
	for _, e := range channel {
		if bindable(e, owned) {
			n.bind(e.Prefix, e.URI)
		}
	}
	for _, b := range entries.bindings {
		n.bind(b.prefix, b.uri)
	}
}

// bindable reports whether an extension element is written, so that the
// root element should bind its prefix.
func bindable(e dynamo.Extension, owned func(uri string) bool) bool {
	return !owned(e.URI) && !unparsedDate(e) && !ownExtension(e)
}
