package websub

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// atomNS is the Atom namespace, whose link element Atom feeds carry and RSS
// feeds borrow (atom:link) to advertise their hub and self URL.
const atomNS = "http://www.w3.org/2005/Atom"

// Links are a topic's WebSub URLs as discovery found them (§4).
type Links struct {
	Hub  string // the first hub advertised; "" if none
	Self string // the canonical topic URL; "" if none
}

// Discover finds the hub and self URLs of a retrieved resource (§4): in
// its HTTP Link headers first, then in the document (Atom or RSS link
// elements, a JSON Feed's hubs and feed_url, an HTML page's link elements
// in its head only, as §8.1 advises). A URL one mechanism leaves out is
// taken from the next. Relative URLs are resolved against base; only
// http and https URLs count.
func Discover(linkHeaders []string, body []byte, contentType, base string) Links {
	b, _ := url.Parse(base)
	var found Links
	for _, h := range linkHeaders {
		for _, l := range ParseLinkHeader(h) {
			found.add(b, l.Rels, l.URL)
		}
	}
	if found.Hub != "" && found.Self != "" {
		return found
	}
	switch sniff(body, contentType) {
	case "json":
		jsonLinks(body, b, &found)
	case "html":
		htmlLinks(body, b, &found)
	default:
		xmlLinks(body, b, &found)
	}
	return found
}

// add keeps the first hub and self among rels.
func (l *Links) add(base *url.URL, rels []string, ref string) {
	abs := resolve(base, ref)
	if abs == "" {
		return
	}
	for _, rel := range rels {
		switch strings.ToLower(rel) {
		case "hub":
			if l.Hub == "" {
				l.Hub = abs
			}
		case "self":
			if l.Self == "" {
				l.Self = abs
			}
		}
	}
}

// resolve makes ref absolute; "" unless it is an http or https URL.
func resolve(base *url.URL, ref string) string {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	u.Fragment = ""
	return u.String()
}

// sniff tells the document's kind: json, html or xml.
func sniff(body []byte, contentType string) string {
	ct := strings.ToLower(contentType)
	trimmed := bytes.TrimLeft(body, " \t\r\n\ufeff")
	switch {
	case strings.Contains(ct, "json") || bytes.HasPrefix(trimmed, []byte("{")):
		return "json"
	case strings.Contains(ct, "html") && !strings.Contains(ct, "xhtml"):
		return "html"
	}
	head := bytes.ToLower(trimmed[:min(len(trimmed), 512)])
	if bytes.Contains(head, []byte("<!doctype html")) || bytes.Contains(head, []byte("<html")) {
		return "html"
	}
	return "xml"
}

// jsonLinks reads a JSON Feed's hubs (type WebSub) and feed_url.
func jsonLinks(body []byte, base *url.URL, found *Links) {
	var feed struct {
		FeedURL string `json:"feed_url"`
		Hubs    []struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		} `json:"hubs"`
	}
	if json.Unmarshal(body, &feed) != nil {
		return
	}
	for _, h := range feed.Hubs {
		if strings.EqualFold(h.Type, "websub") {
			found.add(base, []string{"hub"}, h.URL)
		}
	}
	if feed.FeedURL != "" {
		found.add(base, []string{"self"}, feed.FeedURL)
	}
}

// xmlLinks reads the feed-level Atom link elements: those of an Atom feed,
// or an RSS channel's atom:link, never an entry's or an item's.
func xmlLinks(body []byte, base *url.URL, found *Links) {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // URLs are ASCII
	var stack []string
	for {
		tok, err := d.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			inItem := false
			for _, name := range stack {
				inItem = inItem || name == "entry" || name == "item"
			}
			if t.Name.Local == "link" && t.Name.Space == atomNS && !inItem && len(stack) <= 2 {
				var rel, href string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "rel":
						rel = a.Value
					case "href":
						href = a.Value
					}
				}
				found.add(base, strings.Fields(rel), href)
				if found.Hub != "" && found.Self != "" {
					return
				}
			}
			stack = append(stack, t.Name.Local)
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
}

// htmlLinks reads the link elements of an HTML page's head.
func htmlLinks(body []byte, base *url.URL, found *Links) {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch atom.Lookup(name) {
			case atom.Body:
				return
			case atom.Link:
				var rel, href string
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					switch string(k) {
					case "rel":
						rel = string(v)
					case "href":
						href = string(v)
					}
				}
				found.add(base, strings.Fields(rel), href)
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); atom.Lookup(name) == atom.Head {
				return
			}
		}
	}
}

// Link is one link-value of an HTTP Link header (RFC 8288 §3).
type Link struct {
	URL  string
	Rels []string
}

// ParseLinkHeader reads the link-values of one Link header field value:
// `<URI>; rel="hub self"; other=params, <URI>; rel=next`. Malformed
// values are skipped; it never fails.
func ParseLinkHeader(v string) []Link {
	var out []Link
	for {
		start := strings.IndexByte(v, '<')
		if start < 0 {
			return out
		}
		end := strings.IndexByte(v[start:], '>')
		if end < 0 {
			return out
		}
		link := Link{URL: v[start+1 : start+end]}
		v = v[start+end+1:]
		// The parameters run to the next comma outside a quoted string.
		params, rest := splitParams(v)
		v = rest
		for _, p := range params {
			name, value, _ := strings.Cut(p, "=")
			if strings.EqualFold(strings.TrimSpace(name), "rel") {
				value = strings.TrimSpace(value)
				value = strings.TrimSuffix(strings.TrimPrefix(value, `"`), `"`)
				link.Rels = append(link.Rels, strings.Fields(value)...)
			}
		}
		out = append(out, link)
	}
}

// splitParams splits the ";"-separated parameters after a link's URI, up to
// the comma that ends the link-value, honouring quoted strings.
func splitParams(v string) (params []string, rest string) {
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case quoted && c == '\\' && i+1 < len(v):
			cur.WriteByte(v[i+1])
			i++
			continue
		case c == '"':
			quoted = !quoted
		case !quoted && c == ';':
			params = append(params, cur.String())
			cur.Reset()
			continue
		case !quoted && c == ',':
			return append(params, cur.String()), v[i+1:]
		}
		cur.WriteByte(c)
	}
	return append(params, cur.String()), ""
}
