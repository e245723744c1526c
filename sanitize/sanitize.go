// Package sanitize makes HTML from pages and feeds safe to re-publish and
// derives its plain text. Descriptions keep their markup in feeds, so every
// producer of XMLData (the wrapper, the native-feed parser) passes them
// through HTML; keyword search and titles use Text.
package sanitize

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// policy is bluemonday's policy for user-generated content (formatting,
// links, images, tables; no script, style, forms, event handlers or
// javascript: URLs), without the rel="nofollow" it would add to every link:
// the links are the publisher's own, not a visitor's.
var policy = func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.RequireNoFollowOnLinks(false)
	p.RequireNoFollowOnFullyQualifiedLinks(false)
	p.AddTargetBlankToFullyQualifiedLinks(false)
	// Responsive images. bluemonday checks the URL of src, not those of
	// srcset, so srcset is kept only when every candidate is http, https
	// or relative.
	p.AllowAttrs("srcset").Matching(safeSrcset).OnElements("img")
	p.AllowAttrs("sizes").OnElements("img")
	return p
}()

// safeSrcset matches a srcset whose every candidate URL is http, https or
// relative (its first ':' comes after a '/', '?' or '#', or it has none),
// followed by an optional width or density descriptor. Anything else
// (javascript:, data:, a scheme split by spaces) drops the attribute.
var safeSrcset = regexp.MustCompile(`^\s*(?:https?://[^\s,]+|[^\s,:/?#]*(?:[/?#][^\s,]*)?)(?:\s+[0-9.]+[wx])?\s*(?:,\s*(?:https?://[^\s,]+|[^\s,:/?#]*(?:[/?#][^\s,]*)?)(?:\s+[0-9.]+[wx])?\s*)*$`)

// urlAttrs are the attributes whose values are URLs that a reader fetches or
// follows; they are resolved against the page so the feed works elsewhere.
var urlAttrs = map[string]bool{
	"href": true, "src": true, "cite": true, "poster": true, "background": true, "longdesc": true,
}

// HTML returns fragment sanitized, with relative URLs resolved against base
// (nil leaves them relative). Unbalanced markup is balanced, so a fragment
// cut out of a page cannot break the document it is placed in. Bidi
// embedding, override and isolate controls are removed (WithoutBidi), so
// that no description reverses the text shown after it.
func HTML(fragment string, base *url.URL) string {
	if base != nil {
		fragment = absolutize(fragment, base)
	}
	return strings.TrimSpace(string(WithoutBidi([]byte(policy.Sanitize(fragment)))))
}

// absolutize parses fragment as the content of a <div> and rewrites URL
// attributes (and srcset candidates) against base.
func absolutize(fragment string, base *url.URL) string {
	context := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(fragment), context)
	if err != nil {
		return fragment // the sanitizer still runs on the original
	}
	var sb strings.Builder
	for _, n := range nodes {
		resolveTree(n, base)
		if err := html.Render(&sb, n); err != nil {
			return fragment
		}
	}
	return sb.String()
}

func resolveTree(n *html.Node, base *url.URL) {
	if n.Type == html.ElementNode {
		for i, a := range n.Attr {
			switch {
			case urlAttrs[a.Key]:
				n.Attr[i].Val = Resolve(base, a.Val)
			case a.Key == "srcset":
				n.Attr[i].Val = resolveSrcset(base, a.Val)
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		resolveTree(c, base)
	}
}

// Resolve returns ref resolved against base, or ref unchanged (trimmed) when
// it is not a URL reference that can be resolved. Fragment-only references
// and non-hierarchical schemes (mailto:) resolve as the URL spec says.
func Resolve(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if base == nil || ref == "" {
		return ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return base.ResolveReference(u).String()
}

func resolveSrcset(base *url.URL, srcset string) string {
	candidates := strings.Split(srcset, ",")
	for i, c := range candidates {
		fields := strings.Fields(c)
		if len(fields) == 0 {
			continue
		}
		fields[0] = Resolve(base, fields[0])
		candidates[i] = strings.Join(fields, " ")
	}
	return strings.Join(candidates, ", ")
}

// blockElements end a line of text: their content is not run together with
// the text around it.
var blockElements = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Br: true,
	atom.Dd: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true, atom.Li: true, atom.Main: true,
	atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true, atom.Table: true,
	atom.Td: true, atom.Th: true, atom.Tr: true, atom.Ul: true,
}

// SingleLine is text as one line shows it: trimmed, each run of white
// space collapsed to a space, and the bidirectional embedding, override and
// isolate controls (U+202A–U+202E, U+2066–U+2069) removed, so that a title
// cannot reverse the text around it when shown (RLO spoofing, "Trojan
// Source"). The bidi marks (LRM, RLM, ALM), which only affect the
// characters next to them and which right-to-left text uses, are kept.
//
// Most values (titles, dates) are single lines already; they are returned
// as they are, without a copy.
func SingleLine(s string) string {
	if isSingleLine(s) {
		return s
	}
	return collapse([]byte(s))
}

// isSingleLine reports whether s is ASCII that SingleLine leaves as it is:
// no white space but single spaces between words. (Other ASCII control
// characters are no white space, and SingleLine keeps them.)
func isSingleLine(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return false
		}
	}
	return true
}

// WithoutBidi is b without bidi embedding, override and isolate controls,
// for a whole page of text; b itself when it has none.
func WithoutBidi(b []byte) []byte {
	if !hasBidi(b) {
		return b
	}
	return dropBidi(b)
}

// hasBidi reports whether b holds a bidi control, as
// bytes.IndexFunc(b, IsBidiControl) >= 0 does: each is a valid three-byte
// sequence beginning with 0xE2 (E2 80 AA–AE, E2 81 A6–A9), and no byte
// 0xE2 can be part of the sequence before it.
func hasBidi(b []byte) bool {
	for {
		i := bytes.IndexByte(b, 0xE2)
		if i < 0 || i+2 >= len(b) {
			return false
		}
		switch c := b[i+2]; b[i+1] {
		case 0x80:
			if c >= 0xAA && c <= 0xAE {
				return true
			}
		case 0x81:
			if c >= 0xA6 && c <= 0xA9 {
				return true
			}
		}
		b = b[i+1:]
	}
}

// IsBidiControl reports whether r is a bidi embedding, override or isolate
// control (U+202A–U+202E, U+2066–U+2069), which SingleLine removes.
func IsBidiControl(r rune) bool { return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 }

// dropBidi copies b without its bidi controls and with each byte that is
// not valid UTF-8 written as U+FFFD: kept as they were, the bytes on
// either side of a dropped control could join into a character the text
// never held ("\xe2\x80" + U+202A + "\x8a" would become U+200A).
func dropBidi(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if !IsBidiControl(r) {
			out = utf8.AppendRune(out, r)
		}
		i += size
	}
	return out
}

// Text returns the plain text of an HTML fragment: tags dropped (and the
// content of script, style and template), entities decoded, whitespace
// collapsed to single spaces, block elements separated by a space, bidi
// controls removed (SingleLine).
func Text(fragment string) string {
	z := html.NewTokenizer(strings.NewReader(fragment))
	var sb strings.Builder
	skip := 0 // depth inside script/style/template
	for {
		switch z.Next() {
		case html.ErrorToken:
			return SingleLine(sb.String())
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Script || a == atom.Style || a == atom.Template {
				skip++
			}
			if blockElements[a] {
				sb.WriteByte(' ')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if (a == atom.Script || a == atom.Style || a == atom.Template) && skip > 0 {
				skip--
			}
			if blockElements[a] {
				sb.WriteByte(' ')
			}
		}
	}
}
