// Package opml reads and writes OPML subscription lists, the format in
// which feed readers import and export the feeds they follow (OPML 1.0 and
// 2.0). Folders of outlines become an entry's category: a folder's name,
// "/" included, or the names of nested folders joined with "/"; Dynamo's own settings for a source travel in attributes of its
// namespace, which other readers ignore.
//
// Parse is tolerant of the files real readers write (no head, element and
// attribute names in any case, HTML entities, legacy charsets) and strict
// about the rest: a file it cannot read completely is an error, never a
// partial list.
package opml

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/html/charset"
)

// Namespace is the XML namespace of Dynamo's attributes on outlines
// (Entry.Extra); Write binds it to the prefix "dynamo".
const Namespace = "https://github.com/dynamo-feeds/dynamo/ns/opml"

// MinifluxNamespace is the namespace of Miniflux's attributes on outlines;
// of them, Dynamo reads and writes miniflux:disabled (Entry.Disabled).
const MinifluxNamespace = "https://miniflux.app/opml"

// FreshRSSNamespace is the namespace of FreshRSS's attributes on outlines
// (Entry.FreshRSS), such as the XPath expressions of its "HTML + XPath"
// feeds; Write binds it to the prefix "frss", as FreshRSS does.
const FreshRSSNamespace = "https://freshrss.org/opml"

// FolderType is the type Write gives folder outlines. OPML 2.0 defines
// none for folders; "category" is WordPress's, and the readers Dynamo
// exchanges files with take any outline with children and no xmlUrl for a
// folder whatever its type (Miniflux names it by title, else text; FreshRSS
// by text, else title), except that FreshRSS's OPML library, when strict,
// requires an xmlUrl of type "rss" and a url of "link" and "include".
// Parse, too, reads an outline without a feed URL as a folder.
const FolderType = "category"

// Limits of Parse. The largest subscription lists people keep hold a few
// thousand feeds in well under a megabyte.
const (
	MaxSize    = 16 << 20 // bytes read at most
	MaxEntries = 100_000  // feeds in one file
	maxDepth   = 64       // nesting of outlines
)

// Entry is one subscription.
type Entry struct {
	Title   string // the outline's title, or its text
	XMLURL  string // the feed's address
	HTMLURL string // the site's address, "" if not given
	// Category is the path of folders the outline is in, "/"-separated
	// ("Tech/Go"), or "" at the top level.
	Category string
	// Extra holds the outline's attributes in Namespace, by local name
	// (Dynamo's source settings); nil when it has none.
	Extra map[string]string
	// Type is the outline's type when it says the subscription is not a
	// feed (FreshRSS's "HTML+XPath"), as written; "" for a feed (rss,
	// atom, none), which Write writes as "rss".
	Type string
	// FreshRSS holds the outline's attributes in FreshRSSNamespace, by
	// local name (xPathItem, xPathItemTitle…); nil when it has none.
	FreshRSS map[string]string
	// Disabled is Miniflux's miniflux:disabled="true": the reader does not
	// poll the feed (Dynamo's paused).
	Disabled bool
}

// Parse reads an OPML document and returns its subscriptions, in document
// order: the outlines with an xmlUrl (or, as some old readers wrote, a url
// and a type of rss or atom). Outlines without one are folders, or notes
// that are not subscriptions and are left out.
func Parse(r io.Reader) ([]Entry, error) {
	lr := &io.LimitedReader{R: r, N: MaxSize + 1}
	d := xml.NewDecoder(skipBOM(lr))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charset.NewReaderLabel

	p := parser{}
	for {
		tok, err := d.Token()
		if lr.N <= 0 {
			return nil, fmt.Errorf("opml: the file is larger than %d MiB", MaxSize>>20)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("opml: %w", err)
		}
		if err := p.token(tok); err != nil {
			line, _ := d.InputPos()
			return nil, fmt.Errorf("opml: line %d: %w", line, err)
		}
	}
	if !p.rooted {
		return nil, errors.New("opml: the file is empty: no <opml> element")
	}
	return p.entries, nil
}

// skipBOM drops a UTF-8 byte order mark, which Windows editors put before
// the XML declaration and the decoder would take for text before it.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if head, err := br.Peek(3); err == nil && bytes.Equal(head, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3) // cannot fail: the bytes were peeked
	}
	return br
}

// parser is Parse's state between tokens.
type parser struct {
	rooted  bool     // the <opml> root was seen
	depth   int      // elements open inside the root
	inHead  bool     // inside <head>, whose content is ignored
	folders []string // the open outlines' folder names ("" for a feed's)
	entries []Entry
}

// token applies one token of the document.
func (p *parser) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.StartElement:
		return p.start(t)
	case xml.EndElement:
		return p.end(t)
	case xml.CharData:
		if !p.rooted && len(bytes.TrimSpace(t)) > 0 {
			return fmt.Errorf("text %q before the <opml> element: not an OPML document", clip(string(t)))
		}
	}
	return nil
}

func (p *parser) start(t xml.StartElement) error {
	name := strings.ToLower(t.Name.Local)
	if !p.rooted {
		if name != "opml" {
			return fmt.Errorf("not an OPML document: the root element is <%s>", t.Name.Local)
		}
		p.rooted = true
		return nil
	}
	p.depth++
	if p.depth > maxDepth {
		return fmt.Errorf("elements nested more than %d deep", maxDepth)
	}
	switch {
	case name == "head" && p.depth == 1:
		p.inHead = true
	case name == "outline" && !p.inHead:
		return p.outline(t.Attr)
	}
	return nil
}

func (p *parser) end(t xml.EndElement) error {
	if !p.rooted {
		return nil
	}
	if p.depth == 0 {
		// The root's end: what follows is ignored, as browsers ignore what
		// follows </html>.
		return nil
	}
	name := strings.ToLower(t.Name.Local)
	switch {
	case name == "head" && p.depth == 1:
		p.inHead = false
	case name == "outline" && !p.inHead && len(p.folders) > 0:
		p.folders = p.folders[:len(p.folders)-1]
	}
	p.depth--
	return nil
}

// outline reads an <outline>: a subscription when it names a feed, else a
// folder for the outlines inside it.
func (p *parser) outline(attrs []xml.Attr) error {
	a := map[string]string{}
	var extra, frss map[string]string
	disabled := false
	for _, at := range attrs {
		if at.Name.Space == Namespace || strings.EqualFold(at.Name.Space, "dynamo") {
			if extra == nil {
				extra = map[string]string{}
			}
			extra[at.Name.Local] = at.Value
			continue
		}
		if at.Name.Space == FreshRSSNamespace || strings.EqualFold(at.Name.Space, "frss") {
			if frss == nil {
				frss = map[string]string{}
			}
			frss[at.Name.Local] = at.Value
			continue
		}
		if at.Name.Space == MinifluxNamespace || strings.EqualFold(at.Name.Space, "miniflux") {
			if strings.EqualFold(at.Name.Local, "disabled") {
				disabled, _ = strconv.ParseBool(strings.TrimSpace(at.Value)) // Miniflux's own reading: anything else is not true
			}
			continue
		}
		if at.Name.Space != "" {
			continue
		}
		if k := strings.ToLower(at.Name.Local); a[k] == "" {
			a[k] = at.Value
		}
	}
	title := strings.TrimSpace(a["title"])
	if title == "" {
		title = strings.TrimSpace(a["text"])
	}
	feed := strings.TrimSpace(a["xmlurl"])
	if typ := strings.ToLower(strings.TrimSpace(a["type"])); feed == "" && (typ == "rss" || typ == "atom") {
		feed = strings.TrimSpace(a["url"])
	}
	if feed == "" {
		p.folders = append(p.folders, title)
		return nil
	}
	p.folders = append(p.folders, "")
	if len(p.entries) == MaxEntries {
		return fmt.Errorf("more than %d feeds in one file", MaxEntries)
	}
	category := joinPath(p.folders)
	if category == "" {
		// OPML 2.0's category attribute: comma-separated "/"-paths; the
		// first is the outline's folder when it is in none.
		first, _, _ := strings.Cut(a["category"], ",")
		category = NormalizeCategory(first)
	}
	p.entries = append(p.entries, Entry{
		Title: title, XMLURL: feed, HTMLURL: strings.TrimSpace(a["htmlurl"]), Category: category, Extra: extra,
		Type: nonFeedType(a["type"]), FreshRSS: frss, Disabled: disabled,
	})
	return nil
}

// nonFeedType is an outline's type when it is not a feed's.
func nonFeedType(t string) string {
	switch t = strings.TrimSpace(t); strings.ToLower(t) {
	case "", "rss", "atom", "link", "feed":
		return ""
	}
	return t
}

// joinPath returns the category path of the open folders.
func joinPath(folders []string) string {
	return NormalizeCategory(strings.Join(folders, "/"))
}

// normalizeCategory trims each segment of a "/"-path and drops the empty
// ones, so that " Tech / Go/" and "Tech/Go" name one folder.
func NormalizeCategory(c string) string {
	var segs []string
	for _, s := range strings.Split(c, "/") {
		if s = strings.TrimSpace(s); s != "" {
			segs = append(segs, s)
		}
	}
	return strings.Join(segs, "/")
}

// clip shortens text quoted in an error message.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// folder is a category Write outputs (the root holds the uncategorized).
// Write writes entries as an OPML 2.0 document, each in one folder outline
// (of type FolderType) named by its whole category, "/" included: feed readers (Miniflux,
// FreshRSS) have flat categories, and a category "News/Local" must come
// back as itself, not as a folder inside another. Entries without a
// category come first, then the folders in the order they first appear,
// each with its entries in the order given; Parse reads back the same
// entries (with categories normalized), in that order. Every entry needs an
// XMLURL, and Extra's keys must be XML names.
func Write(w io.Writer, entries []Entry) error {
	return WriteEach(w, func(yield func(*Entry) error) error {
		for i := range entries {
			if err := yield(&entries[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteEach is Write for the entries each hands to yield, in order, for
// lists too long to hold (every source of a store, read as it is written).
// It calls each twice, and each call must hand the same entries: once to
// check them and learn the namespaces the root element declares, once to
// write them. An entry without a category is written as it comes; one in a
// category is held, as its written outline, until the entries without one
// are written. An entry of the second call needing a namespace the first
// did not declare stops the writing with an error. Errors from each are
// returned as they are.
func WriteEach(w io.Writer, each func(yield func(*Entry) error) error) error {
	var used namespaces
	n := 0
	err := each(func(e *Entry) error {
		n++
		if strings.TrimSpace(e.XMLURL) == "" {
			return fmt.Errorf("opml: entry %d (%q) has no xmlUrl", n, e.Title)
		}
		for _, attrs := range []map[string]string{e.Extra, e.FreshRSS} {
			for k := range attrs {
				if !isName(k) {
					return fmt.Errorf("opml: entry %d (%q): %q is not an XML attribute name", n, e.Title, k)
				}
			}
		}
		used.add(e)
		return nil
	})
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<opml version="2.0"`)
	if used.dynamo {
		b.WriteString(` xmlns:dynamo="` + Namespace + `"`)
	}
	if used.freshRSS {
		b.WriteString(` xmlns:frss="` + FreshRSSNamespace + `"`)
	}
	if used.miniflux {
		b.WriteString(` xmlns:miniflux="` + MinifluxNamespace + `"`)
	}
	b.WriteString(">\n  <head>\n    <title>Dynamo sources</title>\n  </head>\n  <body>\n")
	bw.Write(b.Bytes())
	var folders []*folder
	byName := map[string]*folder{}
	err = each(func(e *Entry) error {
		var needs namespaces
		if needs.add(e); !used.covers(needs) {
			return fmt.Errorf("opml: entry %q changed since the document was begun: it needs a namespace the root element does not declare", e.Title)
		}
		c := NormalizeCategory(e.Category)
		if c == "" {
			b.Reset()
			writeOutline(&b, e, "    ")
			_, err := bw.Write(b.Bytes())
			return err
		}
		f := byName[c]
		if f == nil {
			f = &folder{name: c}
			byName[c] = f
			folders = append(folders, f)
		}
		writeOutline(&f.outlines, e, "      ")
		return nil
	})
	if err != nil {
		return err
	}
	for _, f := range folders {
		b.Reset()
		b.WriteString("    <outline")
		attr(&b, "type", FolderType)
		attr(&b, "text", f.name)
		attr(&b, "title", f.name)
		b.WriteString(">\n")
		bw.Write(b.Bytes())
		bw.Write(f.outlines.Bytes())
		bw.WriteString("    </outline>\n")
	}
	bw.WriteString("  </body>\n</opml>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("opml: %w", err)
	}
	return nil
}

// folder is a category's outline: its entries' outlines, written.
type folder struct {
	name     string
	outlines bytes.Buffer
}

// namespaces are the namespaces outside OPML's that entries use.
type namespaces struct{ dynamo, freshRSS, miniflux bool }

func (n *namespaces) add(e *Entry) {
	n.dynamo = n.dynamo || len(e.Extra) > 0
	n.freshRSS = n.freshRSS || len(e.FreshRSS) > 0
	n.miniflux = n.miniflux || e.Disabled
}

// covers reports whether every namespace of other is in n.
func (n namespaces) covers(other namespaces) bool {
	return (n.dynamo || !other.dynamo) && (n.freshRSS || !other.freshRSS) && (n.miniflux || !other.miniflux)
}

// writeOutline writes one entry's outline at indent.
func writeOutline(b *bytes.Buffer, e *Entry, indent string) {
	typ := e.Type
	if typ == "" {
		typ = "rss"
	}
	b.WriteString(indent + "<outline")
	attr(b, "type", typ)
	attr(b, "text", e.Title)
	attr(b, "title", e.Title)
	attr(b, "xmlUrl", strings.TrimSpace(e.XMLURL))
	if e.HTMLURL != "" {
		attr(b, "htmlUrl", e.HTMLURL)
	}
	keys := make([]string, 0, len(e.Extra))
	for k := range e.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		attr(b, "dynamo:"+k, e.Extra[k])
	}
	keys = keys[:0]
	for k := range e.FreshRSS {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		attr(b, "frss:"+k, e.FreshRSS[k])
	}
	if e.Disabled {
		attr(b, "miniflux:disabled", "true")
	}
	b.WriteString("/>\n")
}

// attr writes one attribute, escaped so that any string reads back as
// itself (tabs and newlines included).
func attr(b *bytes.Buffer, name, value string) {
	b.WriteString(" " + name + `="`)
	_ = xml.EscapeText(b, []byte(value)) // writing to a bytes.Buffer does not fail
	b.WriteString(`"`)
}

// isName reports whether s can be an XML attribute's local name (an
// NCName, restricted to ASCII, which is all Dynamo writes).
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if !letter && (i == 0 || !(r == '-' || r == '.' || '0' <= r && r <= '9')) {
			return false
		}
	}
	return true
}
