package wrapper

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo/values"
)

// descriptionHTML returns the sanitized description with absolute URLs,
// and its plain text. Descriptions with markup go through the process's
// cache of sanitized descriptions.
func descriptionHTML(fragment string, base *url.URL) (string, string) {
	return values.Description(fragment, base, descriptions.sanitized)
}

// linkValue reads a link annotation's content: the href of its first <a>
// with one, else its text. It returns the absolute URL and why there is no
// link when there is none.
func linkValue(content string, base *url.URL) (link, problem string) {
	if href, found := firstHref(content); found {
		return resolveLink(base, href)
	}
	text := plainText(content)
	switch {
	case text == "":
		return "", "is empty"
	case strings.ContainsAny(text, " \t\n"):
		return "", fmt.Sprintf("holds no <a href> and its text %q is not a URL", truncate(text, 60))
	}
	return resolveLink(base, text)
}

// firstHref returns the href of the first <a> in the fragment that has one.
// The fragment may hold only the start tag: the <a> may close outside it.
func firstHref(fragment string) (string, bool) {
	if !strings.Contains(fragment, "<") {
		return "", false
	}
	z := html.NewTokenizer(strings.NewReader(fragment))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return "", false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "a" {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "href" && strings.TrimSpace(string(v)) != "" {
					return string(v), true
				}
			}
		}
	}
}

// firstImage returns the src and alt of the first <img> in the fragment.
func firstImage(fragment string) (src, alt string) {
	if !strings.Contains(fragment, "<") {
		return "", ""
	}
	z := html.NewTokenizer(strings.NewReader(fragment))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return "", ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "img" {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "src":
					src = string(v)
				case "alt":
					alt = string(v)
				}
			}
			if strings.TrimSpace(src) != "" {
				return src, values.CollapseSpace(alt)
			}
		}
	}
}

// The shared helpers (package values) under the names this package's
// files call them by.
var (
	plainText   = values.PlainText
	resolveLink = values.ResolveLink
	uriString   = values.URI
	truncate    = values.Truncate
)
