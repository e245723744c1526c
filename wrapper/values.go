package wrapper

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/dynamo-feeds/dynamo/dates"
	"github.com/dynamo-feeds/dynamo/sanitize"
	"github.com/dynamo-feeds/dynamo/values"
)

// description returns the sanitized description with absolute URLs, and
// its plain text; sanitizing goes through the memo.
func (b *builder) description(content string) (string, string) {
	return values.Description(content, b.base, b.sanitizer)
}

// sanitized is the builder's values.Sanitizer: sanitize.HTMLText, through
// the memo.
func (b *builder) sanitized(fragment string, base *url.URL) (string, string) {
	return memos.get(memoKey{kind: memoDescription, in: fragment, ctx: b.baseString}, func() (string, string) {
		return sanitize.HTMLText(fragment, base)
	})
}

// link is linkValue against the page's base, through the memo.
func (b *builder) link(content string) (link, problem string) {
	return memos.get(memoKey{kind: memoLink, in: content, ctx: b.baseString}, func() (string, string) {
		return linkValue(content, b.base, b.links.ResolveLink)
	})
}

// plainText is plainText, through the memo when the content has markup or
// entities to read (collapsing the spaces of plain text costs less than a
// lookup).
func (b *builder) plainText(content string) string {
	if !strings.ContainsAny(content, "<&") {
		return plainText(content)
	}
	text, _ := memos.get(memoKey{kind: memoText, in: content}, func() (string, string) {
		return plainText(content), ""
	})
	return text
}

// date reads a date value in the page's zone, its ambiguous numeric date
// in order o, and returns it in RFC 3339 with what its numeric date
// allowed, through the memo; false when it is not a date Dynamo can read.
// A Fixed value (most: month names, ISO dates) stores no Reading, which
// would cost an allocation in the memo.
func (b *builder) date(value string, o dates.Order) (string, dates.Reading, bool) {
	kind := memoDate
	switch o {
	case dates.DayFirst:
		kind = memoDateDayFirst
	case dates.MonthFirst:
		kind = memoDateMonthFirst
	}
	s, reading := memos.get(memoKey{kind: kind, in: value, loc: b.loc}, func() (string, string) {
		t, r, ok := dates.ParseOrder(value, b.loc, o)
		switch {
		case !ok:
			return "", ""
		case r == dates.Fixed:
			return t.Format(time.RFC3339), ""
		}
		return t.Format(time.RFC3339), strconv.Itoa(int(r))
	})
	r := dates.Fixed
	if reading != "" {
		n, _ := strconv.Atoi(reading)
		r = dates.Reading(n)
	}
	return s, r, s != ""
}

// linkValue reads a link annotation's content: the href of its first <a>
// with one, else its text. It returns the absolute URL, resolved by
// resolveLink (values.ResolveLink or a values.LinkResolver's), and why there
// is no link when there is none.
func linkValue(content string, base *url.URL, resolveLink func(*url.URL, string) (string, string)) (link, problem string) {
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
	if href, ok := plainHref(fragment); ok {
		return href, true
	}
	return tokenizedHref(fragment)
}

// tokenizedHref is firstHref by x/net/html's tokenizer.
func tokenizedHref(fragment string) (string, bool) {
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

// plainHref reads the usual link annotation without a tokenizer: white
// space, then <a href="…"> with nothing in the value for the tokenizer to
// decode or convert (no '&', carriage return or NUL) and not blank. ok is
// false for anything else, which firstHref hands to the tokenizer;
// FuzzPlainHref holds the two to the same answer.
func plainHref(fragment string) (string, bool) {
	const open = `<a href="`
	rest := strings.TrimLeft(fragment, " \t\n\f")
	if !strings.HasPrefix(rest, open) {
		return "", false
	}
	rest = rest[len(open):]
	end := strings.IndexByte(rest, '"')
	if end < 0 || end+1 >= len(rest) || rest[end+1] != '>' {
		return "", false
	}
	href := rest[:end]
	if strings.ContainsAny(href, "&\r\x00") || strings.TrimSpace(href) == "" {
		return "", false
	}
	return href, true
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
	plainText = values.PlainText
	uriString = values.URI
	truncate  = values.Truncate
)
