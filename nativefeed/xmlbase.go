package nativefeed

import (
	"encoding/xml"
	"net/url"
	"strings"
)

// xmlBases are the base URLs that xml:base (the XML Base specification,
// which Atom adopts and Drupal puts on RSS) gives the parts of a feed. They
// are read here, per RFC 3986, rather than by gofeed, which takes every
// base for a directory: under jekyll-feed's per-entry
// xml:base="https://site/2026/11/20/post.html", gofeed makes "notes.html"
// ".../post.html/notes.html" instead of ".../2026/11/20/notes.html".
type xmlBases struct {
	// channel is the base in scope at the channel's link.
	channel *url.URL
	// items holds, for each item or entry in document order, the base in
	// scope at the item element (key "") and at the first of each of its
	// child elements, by local name ("link", "content", "encoded",
	// "description", "summary").
	items []map[string]*url.URL
}

// item returns the bases of item i, or nil when the scan did not see the
// same items as the parser (a document it could not read to the end).
func (b *xmlBases) item(i, n int) map[string]*url.URL {
	if b == nil || len(b.items) != n {
		return nil
	}
	return b.items[i]
}

// readXMLBases scans text for xml:base attributes and returns the text
// with each renamed (xml:base-read), so that gofeed leaves relative URLs
// for normalize to resolve, and the bases it found; nil when the text has
// none. A relative base at the top resolves against docURL.
func readXMLBases(text string, docURL *url.URL) (string, *xmlBases) {
	if !strings.Contains(text, "xml:base") {
		return text, nil
	}
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = false
	type frame struct{ base *url.URL }
	var (
		stack     []frame
		bases     = &xmlBases{}
		itemDepth = -1    // the stack depth of the item being read; -1 outside items
		renames   []int64 // the offsets of the start tags holding an xml:base
		sawLink   bool
	)
	for {
		start := d.InputOffset()
		tok, err := d.RawToken()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			base := docURL
			if len(stack) > 0 {
				base = stack[len(stack)-1].base
			}
			for _, a := range t.Attr {
				if a.Name.Space != "xml" || a.Name.Local != "base" {
					continue
				}
				renames = append(renames, start)
				ref, err := url.Parse(strings.TrimSpace(a.Value))
				switch {
				case err != nil:
				case base == nil:
					if ref.IsAbs() {
						base = ref
					}
				default:
					base = base.ResolveReference(ref)
				}
			}
			stack = append(stack, frame{base})
			local := t.Name.Local
			switch {
			case itemDepth < 0 && (local == "item" || local == "entry"):
				itemDepth = len(stack)
				bases.items = append(bases.items, map[string]*url.URL{"": base})
			case itemDepth >= 0 && len(stack) == itemDepth+1:
				m := bases.items[len(bases.items)-1]
				if _, ok := m[local]; !ok {
					m[local] = base
				}
			case itemDepth < 0 && local == "link" && !sawLink:
				bases.channel, sawLink = base, true
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) < itemDepth {
				itemDepth = -1
			}
		}
	}
	return renameXMLBase(text, renames), bases
}

// renameXMLBase renames the xml:base attribute in the start tag at each
// offset.
func renameXMLBase(text string, offsets []int64) string {
	var sb strings.Builder
	sb.Grow(len(text) + 5*len(offsets))
	last := 0
	for _, off := range offsets {
		if int(off) < last {
			continue // a second xml:base in one tag: renamed with the first
		}
		end := strings.IndexByte(text[off:], '>')
		if end < 0 {
			end = len(text) - int(off)
		}
		tag := text[off : int(off)+end]
		sb.WriteString(text[last:off])
		sb.WriteString(strings.ReplaceAll(tag, "xml:base", "xml:base-read"))
		last = int(off) + end
	}
	sb.WriteString(text[last:])
	return sb.String()
}
