package sanitize

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// plainScan is onePass reading the fragment with a byte scanner instead of
// x/net/html's tokenizer (its 4 KB buffer and its general state machine),
// for the markup descriptions are mostly made of: text; start tags of an
// ASCII name followed by attributes, each after white space, of an ASCII
// name alone or with a value in double or single quotes holding no '&',
// then '>' or '/>'; end tags "</name>"; comments that end at their first
// '>'. read is false, with nothing decided, at anything else (a carriage
// return or NUL anywhere, an unquoted value, an entity in a value, a
// doctype, markup cut off at the end): then the tokenizer reads the
// fragment from its start. Where read is true, plainScan handed onePass's
// handlers the tokens the tokenizer gives, the same bytes in the same
// order; FuzzPlainScan holds it to that.
func (b *buffers) plainScan(s string, base *url.URL) (ok, read bool) {
	if strings.IndexByte(s, '\r') >= 0 || strings.IndexByte(s, 0) >= 0 {
		return false, false // the tokenizer rewrites line breaks; NULs are rare
	}
	for i := 0; ; {
		j := markupAt(s, i)
		if j > i && !b.textToken(b.textBytes(s[i:j])) {
			return false, true
		}
		if j == len(s) {
			b.end()
			return true, true
		}
		switch c := s[j+1]; {
		case c == '!':
			n := commentLen(s[j:])
			if n == 0 {
				return false, false
			}
			i = j + n
		case c == '/':
			name, n := plainEndTag(s[j:])
			if n == 0 {
				return false, false
			}
			if !b.endTagToken(lookup(name)) {
				return false, true
			}
			i = j + n
		case isASCIILetter(c):
			name, n := b.plainStartTag(s[j:])
			if n == 0 {
				return false, false
			}
			a := lookup(name)
			kind, from, ok := b.startTag(a)
			if !ok {
				return false, true
			}
			for _, at := range b.attrs {
				key, val := b.attrBytes(at)
				b.attr(a, key, val, base)
			}
			b.closeStartTag(a, kind, from)
			i = j + n
		default: // '?': a bogus comment
			return false, false
		}
	}
}

// markupAt returns where the first '<' at or after i opens markup (a
// letter, '/', '!' or '?' follows it, as the tokenizer reads it), or
// len(s): every other '<' is text.
func markupAt(s string, i int) int {
	for {
		k := strings.IndexByte(s[i:], '<')
		if k < 0 {
			return len(s)
		}
		i += k
		if i+1 < len(s) {
			if c := s[i+1]; isASCIILetter(c) || c == '/' || c == '!' || c == '?' {
				return i
			}
		}
		i++
	}
}

// textBytes is a text token's bytes as the tokenizer gives them: entities
// decoded as in text (html.UnescapeString), in b.scratch.
func (b *buffers) textBytes(t string) []byte {
	if strings.IndexByte(t, '&') >= 0 {
		t = html.UnescapeString(t)
	}
	b.scratch = append(b.scratch[:0], t...)
	return b.scratch
}

// commentLen returns the length of the comment that s begins with, when
// it begins with "<!--" and ends at its first '>' (after "--" or "--!",
// or after nothing but dashes, as the tokenizer ends a comment), else 0.
func commentLen(s string) int {
	if !strings.HasPrefix(s, "<!--") {
		return 0
	}
	body := s[len("<!--"):]
	k := strings.IndexByte(body, '>')
	if k < 0 {
		return 0
	}
	before := body[:k]
	if strings.HasSuffix(before, "--") || strings.HasSuffix(before, "--!") || strings.Trim(before, "-") == "" {
		return len("<!--") + k + 1
	}
	return 0
}

// plainEndTag returns the name and length of the end tag "</name>" that s
// begins with, name an ASCII letter then letters and digits, or a length
// of 0 ("</0>" is a comment to the tokenizer).
func plainEndTag(s string) (string, int) {
	if len(s) < 3 || !isASCIILetter(s[2]) {
		return "", 0
	}
	n := 3
	for n < len(s) && isASCIIAlnum(s[n]) {
		n++
	}
	if n == len(s) || s[n] != '>' {
		return "", 0
	}
	return s[2:n], n + 1
}

// plainAttr is an attribute plainStartTag read: its name and value, as
// ranges of the tag.
type plainAttr struct {
	tag                    string
	key0, key1, val0, val1 int
}

// plainStartTag reads the start tag that s begins with into b.attrs and
// returns its name and length, or a length of 0 when it is not of the plain
// form plainScan reads.
func (b *buffers) plainStartTag(s string) (string, int) {
	n := 1
	for n < len(s) && isASCIIAlnum(s[n]) {
		n++
	}
	name := s[1:n]
	b.attrs = b.attrs[:0]
	for {
		ws := n
		for n < len(s) && isTagSpace(s[n]) {
			n++
		}
		switch {
		case n == len(s):
			return "", 0
		case s[n] == '>':
			return name, n + 1
		case s[n] == '/':
			if n+1 < len(s) && s[n+1] == '>' {
				return name, n + 2
			}
			return "", 0
		case n == ws: // an attribute (or more of the name) glued to what came before
			return "", 0
		}
		at := plainAttr{tag: s, key0: n}
		for n < len(s) && isAttrNameByte(s[n]) {
			n++
		}
		if n == at.key0 {
			return "", 0
		}
		at.key1, at.val0, at.val1 = n, n, n
		if n < len(s) && s[n] == '=' {
			n++
			if n == len(s) || s[n] != '"' && s[n] != '\'' {
				return "", 0 // unquoted or spaced
			}
			q := s[n]
			e := strings.IndexByte(s[n+1:], q)
			if e < 0 {
				return "", 0
			}
			at.val0, at.val1 = n+1, n+1+e
			if strings.IndexByte(s[at.val0:at.val1], '&') >= 0 {
				return "", 0 // decoded differently in attributes
			}
			n = at.val1 + 1
		}
		if n < len(s) && !isTagSpace(s[n]) && s[n] != '>' && s[n] != '/' {
			return "", 0
		}
		if !b.hasAttr(s[at.key0:at.key1]) { // the tokenizer keeps the first of a name
			b.attrs = append(b.attrs, at)
		}
	}
}

// hasAttr reports whether b.attrs holds an attribute named key, in any
// case.
func (b *buffers) hasAttr(key string) bool {
	for _, at := range b.attrs {
		if strings.EqualFold(at.tag[at.key0:at.key1], key) {
			return true
		}
	}
	return false
}

// attrBytes returns an attribute's name, lower-cased as the tokenizer
// gives it, and its value, in b.scratch.
func (b *buffers) attrBytes(at plainAttr) (key, val []byte) {
	b.scratch = append(b.scratch[:0], at.tag[at.key0:at.key1]...)
	for i, c := range b.scratch {
		if 'A' <= c && c <= 'Z' {
			b.scratch[i] = c + 'a' - 'A'
		}
	}
	k := len(b.scratch)
	b.scratch = append(b.scratch, at.tag[at.val0:at.val1]...)
	return b.scratch[:k:k], b.scratch[k:]
}

// lookup is atom.Lookup of an ASCII name, lower-cased as the tokenizer
// gives it; 0 for a name longer than any element onePass takes.
func lookup(name string) atom.Atom {
	var lower [16]byte
	if len(name) > len(lower) {
		return 0
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return atom.Lookup(lower[:len(name)])
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isASCIIAlnum(c byte) bool { return isASCIILetter(c) || '0' <= c && c <= '9' }

// isTagSpace reports the white space the tokenizer skips in a tag (a
// carriage return never reaches plainScan).
func isTagSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\f' }

// isAttrNameByte reports the bytes plainScan takes in an attribute name.
func isAttrNameByte(c byte) bool {
	return isASCIIAlnum(c) || c == '-' || c == '_' || c == ':' || c == '.'
}
