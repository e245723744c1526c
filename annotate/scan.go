package annotate

import (
	"bytes"

	"golang.org/x/net/html"
)

// scanner gives the tokens of a page exactly as golang.org/x/net/html's
// Tokenizer does (the same types, the same raw bytes), reading the common
// ones itself: text, and start and end tags. The tokenizer copies every
// byte into its buffer and every attribute's name into a map, which made it
// an eighth of the suggester's time on a long list. Comments, doctypes, the
// raw text of script, style, title… and anything the input ends within are
// read by the tokenizer, started where the token starts: at a token's
// start outside raw text the tokenizer has no state but its position.
// FuzzScan checks the tokens against the tokenizer's.
type scanner struct {
	src []byte // never written
	pos int    // where the next token starts
	// z is the tokenizer the current token came from, nil when the
	// scanner read it.
	z *html.Tokenizer
	// always: z reads every token (selectors keep every attribute, which
	// z decodes).
	always bool
	// rawNext: z gave a start tag after which it reads raw text, so it
	// gives the next token too.
	rawNext bool
}

func newScanner(src []byte, always bool) *scanner {
	s := &scanner{src: src, always: always}
	if always {
		s.z = html.NewTokenizer(bytes.NewReader(src))
	}
	return s
}

// next returns the next token's type and raw bytes; html.ErrorToken at the
// end, or where the input ends within a tag (as the tokenizer does).
func (s *scanner) next() (html.TokenType, []byte) {
	if s.z != nil && (s.always || s.rawNext) {
		return s.fromTokenizer()
	}
	s.z = nil
	src, p := s.src, s.pos
	if p >= len(src) {
		return html.ErrorToken, nil
	}
	// Text runs up to a '<' that starts a tag, a comment or a doctype:
	// one followed by a letter, '/', '!' or '?'.
	for i := p; ; {
		j := bytes.IndexByte(src[i:], '<')
		if j < 0 || i+j+1 == len(src) {
			s.pos = len(src)
			return html.TextToken, src[p:]
		}
		j += i
		if c := src[j+1]; isASCIILetter(c) || c == '/' || c == '!' || c == '?' {
			if j > p {
				s.pos = j
				return html.TextToken, src[p:j]
			}
			break
		}
		i = j + 1
	}
	switch {
	case isASCIILetter(src[p+1]):
		// A '/' before the '>' makes the tag self-closing, unless it ends
		// the value of the tag's last attribute kept (<a href=/>), which
		// the tokenizer tells.
		end, bare := tagEnd(src, p+2)
		if end > 0 && !tokenizerRawTag(src[p+1:end]) && !(bare && src[end-2] == '/') {
			s.pos = end
			if src[end-2] == '/' {
				return html.SelfClosingTagToken, src[p:end]
			}
			return html.StartTagToken, src[p:end]
		}
	case src[p+1] == '/' && p+2 < len(src) && isASCIILetter(src[p+2]):
		if end, _ := tagEnd(src, p+3); end > 0 {
			s.pos = end
			return html.EndTagToken, src[p:end]
		}
	}
	s.z = html.NewTokenizer(bytes.NewReader(src[p:]))
	return s.fromTokenizer()
}

// fromTokenizer returns z's next token.
func (s *scanner) fromTokenizer() (html.TokenType, []byte) {
	tt := s.z.Next()
	if tt == html.ErrorToken {
		s.pos = len(s.src)
		return tt, nil
	}
	raw := s.z.Raw()
	s.pos += len(raw)
	s.rawNext = (tt == html.StartTagToken || tt == html.SelfClosingTagToken) && tokenizerRawTag(raw[1:])
	return tt, raw
}

// tokenizer returns a tokenizer whose current token is the one just
// given, whose raw bytes are raw, for its TagName and TagAttr: z when the
// token came from it, else one reading the tag alone, which it reads as it
// would in the page.
func (s *scanner) tokenizer(raw []byte) *html.Tokenizer {
	if s.z != nil {
		return s.z
	}
	z := html.NewTokenizer(bytes.NewReader(raw))
	z.Next()
	return z
}

// tagEnd returns the offset just after the '>' ending a tag whose name's
// second byte is at i, read as the tokenizer's readTag reads it (the name
// up to white space, '/' or '>'; then keys, each up to white space, '/',
// '>' or '=', though a '=' that starts one is part of it; values quoted
// or bare), or -1 when the input ends first. bare says a bare value ends at
// the '>'.
func tagEnd(src []byte, i int) (end int, bare bool) {
	n := len(src)
	for ; i < n; i++ {
		if c := src[i]; c == '/' || c == '>' || isTagSpace(c) {
			break
		}
	}
	if i < n && isTagSpace(src[i]) {
		i++
	}
	for {
		if i = skipTagSpace(src, i, n); i == n {
			return -1, false
		}
		if src[i] == '>' {
			return i + 1, bare
		}
		bare = false
		// The key.
		keyStart := i
		for ; i < n; i++ {
			c := src[i]
			if c == '=' && i == keyStart {
				continue
			}
			if c == '=' || c == '/' || c == '>' || isTagSpace(c) {
				break
			}
		}
		// The value: after white space and '=', white space, then quoted,
		// or up to white space or '>'. A '/' after the key is passed
		// over.
		if i = skipTagSpace(src, i, n); i == n {
			return -1, false
		}
		switch src[i] {
		case '/':
			i++
			continue
		case '=':
		default:
			continue
		}
		if i = skipTagSpace(src, i+1, n); i == n {
			return -1, false
		}
		switch q := src[i]; q {
		case '>':
		case '"', '\'':
			j := bytes.IndexByte(src[i+1:], q)
			if j < 0 {
				return -1, false
			}
			i += j + 2
		default:
			for i++; i < n && src[i] != '>' && !isTagSpace(src[i]); i++ {
			}
			if i == n {
				return -1, false
			}
			if src[i] == '>' {
				bare = true
			} else {
				i++
			}
		}
	}
}

// tokenizerRawTag reports whether a start tag whose bytes after '<' are
// tag is one after which the tokenizer reads raw text (readStartTag in
// golang.org/x/net/html): its name, up to white space, '/' or '>', is one
// of these, in any case.
func tokenizerRawTag(tag []byte) bool {
	end := 0
	for end < len(tag) && tag[end] != '/' && tag[end] != '>' && !isTagSpace(tag[end]) {
		end++
	}
	if end < 5 || end > 9 { // xmp is the only name shorter
		return end == 3 && bytes.EqualFold(tag[:3], []byte("xmp"))
	}
	for _, name := range []string{"iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea", "title"} {
		if len(name) == end && bytes.EqualFold(tag[:end], []byte(name)) {
			return true
		}
	}
	return false
}
