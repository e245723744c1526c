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

// Stretch is a stretch of text that the wrapper does not read as page
// text: a comment, or the content of an element whose content is text
// (script, style, textarea, title, xmp, iframe, noembed, noframes).
type Stretch struct {
	Start, End int
	Comment    bool // a comment; else the content of a raw-text element
	// Closed is false for a "<!--" with no "-->" after it: the wrapper
	// reads the text after it as page text, but any "-->" inserted later
	// would close it.
	Closed bool
}

// NotPageText returns, in order, the stretches of text that the wrapper
// does not read as page text. text is read as it is, undecoded: markup is
// ASCII in every encoding but UTF-16, so the offsets are those of the
// bytes given. Where HTML parsers and the wrapper disagree ("--!>", a
// "<!--" inside <noscript>, an unclosed <script>), this says what the
// wrapper will do, so that tools inserting annotations keep them where
// the wrapper reads them.
func NotPageText(text string) []Stretch {
	sc := scan(text, newLines(text), &warnings{}, true)
	out := make([]Stretch, len(sc.all))
	for i, c := range sc.all {
		out[i] = Stretch{Start: c.start, End: c.end, Comment: !c.raw, Closed: c.closed}
	}
	sc.release()
	return out
}

// CrossesBlocks reports whether the content of a plain value (a title, an
// extension) crosses a block boundary: the wrapper warns that such a value
// "holds block-level markup". Tools that write annotations use it to keep
// clear of that warning.
func CrossesBlocks(content string) bool {
	_, _, crosses := blockMarkup(content, []span{{0, len(content)}})
	return crosses
}

// IsBlockTag reports whether a tag (lower case) is block-level in
// CrossesBlocks' sense: a value holding two such elements crosses.
func IsBlockTag(name string) bool { return blockTags[name] }
