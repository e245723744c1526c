package wrapper

import (
	"strings"

	"golang.org/x/text/encoding"
)

// Encoding reports how Wrap decodes a page: the encoding (nil for UTF-8),
// its WHATWG name, and the length of the byte order mark it skips. Tools
// that edit a page in place, byte for byte (dynamo annotate), read it with
// the same rule as the wrapper.
func Encoding(page []byte, contentType string) (enc encoding.Encoding, name string, bom int) {
	var ignored []string
	enc, name, _, body := determine(page, contentType, &ignored)
	return enc, name, len(page) - len(body)
}

// CommentTag is one annotation tag in a comment, as CommentTags reads it.
type CommentTag struct {
	Name    string // canonical, e.g. "item:title"
	Closing bool
	Index   string // the index attribute as written, trimmed; "" when none
}

// CommentTags returns the annotation tags in the body of one comment (the
// text between "<!--" and "-->"), read as Wrap reads them; nil when the
// comment holds none.
func CommentTags(body string) []CommentTag {
	p := tagParser{body: body, line: noLine, warn: &warnings{}}
	var out []CommentTag
	for _, t := range p.parse(0, nil) {
		idx, _ := t.attr("index")
		out = append(out, CommentTag{Name: t.name, Closing: t.kind == closeTag, Index: strings.TrimSpace(idx)})
	}
	return out
}
