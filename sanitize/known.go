package sanitize

import (
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
// of element a (void: written self-closing, which bluemonday never pushes).
func (b *buffers) sanitizeStart(tag []byte, a atom.Atom, void bool) {
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
