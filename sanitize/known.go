package sanitize

import (
	"net/url"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/html/atom"
)

// What bluemonday makes of the one pass's markup, without reading it again.
//
// The one pass's markup is canonical: simple elements only (none whose
// content bluemonday skips or reads as raw text), every attribute quoted
// and escaped as html.Render escapes it, text escaped alike, no comments.
// bluemonday (1.0.27, sanitize.go) reads such markup one token at a time,
// and what it writes for each token depends on the token alone, except
// for one piece of state: a start tag it drops because no attribute is
// left and the policy wants one (an <a> whose only href was a javascript:
// URL) pushes its name on a stack, and the next end tag of that name
// while it is on top is dropped and pops it. Text it writes back escaped
// as it was (the tokenizer unescapes it, Token.String escapes it again
// with the same six replacements).
//
// So each distinct tag is shown to bluemonday once, alone, and its output
// kept (decisions): the policy's verdict stays bluemonday's own, and
// buffers.sanitizeStart and sanitizeEnd only replay that stack. A tag whose
// output does not have the expected form (bluemonday then also drops the
// text after it) ends the replay, and bluemonday reads the whole markup.
// FuzzHTMLText compares the replay with bluemonday's pass over the same
// markup, and with HTML.

// decision is bluemonday's output for one tag of the markup, alone.
type decision struct {
	// out is what bluemonday writes for the tag: the tag as it keeps it,
	// or nothing.
	out string
	// pushes says that bluemonday drops a start tag of an element it
	// allows, so pushes it on its stack of end tags to drop.
	pushes bool
	// unknown says the output is not of the form the replay follows.
	unknown bool
	// pieces, for a tag's shape (see shapeKey), are what bluemonday writes
	// around its URLs: out is pieces[0], the first URL, pieces[1], and so
	// on. A shape without pieces is replayed tag by tag.
	pieces []string
}

// maxDecisions bounds the decisions kept: when full they are dropped and
// learnt again. Tags carry resolved URLs, so a busy process sees many.
const maxDecisions = 8192

// decisions are the tags seen lately and bluemonday's output for each.
var decisions = struct {
	sync.Mutex
	m map[string]decision
}{m: map[string]decision{}}

// probeText follows a start tag shown to bluemonday: it comes back after
// the tag unless bluemonday drops the content of the element.
const probeText = "t"

// decide returns bluemonday's decision on tag, a start tag (start) or an
// end tag of the markup, of element a.
func decide(tag []byte, a atom.Atom, start bool) decision {
	decisions.Lock()
	d, ok := decisions.m[string(tag)]
	decisions.Unlock()
	if ok {
		return d
	}
	if start {
		out := policy.Sanitize(string(tag) + probeText)
		kept, found := strings.CutSuffix(out, probeText)
		d = decision{out: kept, unknown: !found}
		if found && strings.TrimSpace(kept) == "" {
			// Dropped: because bluemonday does not allow the element (it
			// then drops its end tags too), or because no attribute is left
			// (it allows the end tag alone, and pushes).
			d.pushes = decide([]byte("</"+a.String()+">"), a, false).out != ""
		}
	} else {
		d = decision{out: policy.Sanitize(string(tag))}
	}
	decisions.Lock()
	if len(decisions.m) >= maxDecisions {
		clear(decisions.m)
	}
	decisions.m[string(tag)] = d
	decisions.Unlock()
	return d
}

// sanitizeStart writes bluemonday's output for a start tag of the markup,
// of element a (void: written self-closing, which bluemonday never pushes),
// which begins at from in b.markup.
func (b *buffers) sanitizeStart(tag []byte, from int, a atom.Atom, void bool) {
	if len(b.urls) > 0 && b.replayShape(tag, from) {
		return
	}
	d := decide(tag, a, true)
	if d.unknown {
		b.known = false
		return
	}
	b.clean.WriteString(d.out)
	if d.pushes && !void {
		b.skip = append(b.skip, a)
	}
}

// sanitizeEnd writes bluemonday's output for an end tag of the markup: the
// tag dropped and popped when it is on top of the stack, else as
// bluemonday writes it alone.
func (b *buffers) sanitizeEnd(tag []byte, a atom.Atom) {
	if n := len(b.skip); n > 0 && b.skip[n-1] == a {
		b.skip = b.skip[:n-1]
		return
	}
	b.clean.WriteString(decide(tag, a, false).out)
}

// A tag's shape: its markup with its plain URLs (plainURL) left out, where
// bluemonday's output is the same for every URL of that form.
//
// Most start tags of a page's descriptions are links and images, each with
// a URL of its own, so a page never seen would show bluemonday each of
// them. But bluemonday 1.0.27 reads the URL of an a's href, an img's src
// and a blockquote's or q's cite (shapeURLAttrs; the user-generated-content
// policy puts no pattern on them) with validURL alone: trimmed, refused if
// it holds white space, parsed by url.Parse, kept as u.String() when its
// scheme is allowed (http and https are, with no further policy). A plain
// URL is one for which each of those steps gives the URL back as it is,
// and whose scheme is http or https: bluemonday writes it back, escaped as
// the markup escaped it, wherever it keeps the tag. So the tag is shown to
// bluemonday once per shape, with a URL of that scheme in place of each,
// and its output replayed with the tag's own URLs put back. A shape whose
// output does not hold each stand-in once (bluemonday dropped the tag or
// the attribute) is replayed tag by tag as before. TestShapeReplay and
// FuzzHTMLText compare the result with bluemonday's own pass.

// elementAttr names an attribute of an element.
type elementAttr struct {
	element atom.Atom
	attr    string
}

// shapeURLAttrs are the URL attributes whose plain URLs a shape leaves out.
var shapeURLAttrs = map[elementAttr]bool{
	{atom.A, "href"}: true, {atom.Img, "src"}: true, {atom.Blockquote, "cite"}: true, {atom.Q, "cite"}: true,
}

// urlSpan is where a plain URL is in b.markup; https tells its scheme.
type urlSpan struct {
	from, to int
	https    bool
}

// plainURL reports whether bluemonday's validURL gives v back as it is,
// with the scheme http or https: printable ASCII without white space,
// quotes, '<', '>', '\' or '`', and url.Parse's reading written back is v.
func plainURL(v string) bool {
	if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
		return false
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c <= ' ' || c >= 0x7f, c == '"', c == '\'', c == '<', c == '>', c == '\\', c == '`':
			return false
		}
	}
	u, err := url.Parse(v)
	return err == nil && u.String() == v
}

// standIn is the URL shown to bluemonday for a shape's i-th URL: plain, of
// the same scheme, and found nowhere else in its output.
func standIn(i int, https bool) string {
	scheme := "http"
	if https {
		scheme = "https"
	}
	return scheme + "://shape" + strconv.Itoa(i) + ".dynamo.invalid/"
}

// shapeKey returns the key of tag's shape in b.key: '~' (no tag begins
// with it), then the tag with each plain URL replaced by a NUL and its
// scheme's letter.
func (b *buffers) shapeKey(tag []byte, from int) []byte {
	k := append(b.key[:0], '~')
	last := 0
	for _, u := range b.urls {
		k = append(k, tag[last:u.from-from]...)
		k = append(k, 0, "ps"[boolIndex(u.https)])
		last = u.to - from
	}
	b.key = append(k, tag[last:]...)
	return b.key
}

func boolIndex(v bool) int {
	if v {
		return 1
	}
	return 0
}

// replayShape writes bluemonday's output for the start tag at from from
// its shape's decision, and reports false when the shape has none that
// can be replayed.
func (b *buffers) replayShape(tag []byte, from int) bool {
	key := b.shapeKey(tag, from)
	decisions.Lock()
	d, ok := decisions.m[string(key)]
	decisions.Unlock()
	if !ok {
		d = b.learnShape(tag, from)
		decisions.Lock()
		if len(decisions.m) >= maxDecisions {
			clear(decisions.m)
		}
		decisions.m[string(key)] = d
		decisions.Unlock()
	}
	if d.pieces == nil {
		return false
	}
	markup := b.markup.Bytes()
	b.clean.WriteString(d.pieces[0])
	for i, u := range b.urls {
		b.clean.Write(markup[u.from:u.to])
		b.clean.WriteString(d.pieces[i+1])
	}
	return true
}

// learnShape shows bluemonday the tag at from with stand-ins for its plain
// URLs, followed by probeText, and cuts its output around the stand-ins.
func (b *buffers) learnShape(tag []byte, from int) decision {
	var sb strings.Builder
	last := 0
	for i, u := range b.urls {
		sb.Write(tag[last : u.from-from])
		sb.WriteString(standIn(i, u.https))
		last = u.to - from
	}
	sb.Write(tag[last:])
	sb.WriteString(probeText)
	out, found := strings.CutSuffix(policy.Sanitize(sb.String()), probeText)
	if !found {
		return decision{}
	}
	pieces := make([]string, 0, len(b.urls)+1)
	rest := out
	for i, u := range b.urls {
		s := standIn(i, u.https)
		before, after, found := strings.Cut(rest, s)
		if !found || strings.Count(out, s) != 1 {
			return decision{}
		}
		pieces = append(pieces, before)
		rest = after
	}
	pieces = append(pieces, rest)
	return decision{pieces: pieces}
}
