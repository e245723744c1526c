package wrapper

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dynamo-feeds/dynamo"
)

// maxWarnings bounds the warnings kept for one page: a broken page can
// yield one per tag, and a webmaster fixes the first ones first.
const maxWarnings = 1000

// warnings collects the problems found in a page.
type warnings struct {
	list    []dynamo.Warning
	dropped int
}

func (w *warnings) add(line int, format string, args ...any) {
	if len(w.list) >= maxWarnings {
		w.dropped++
		return
	}
	w.list = append(w.list, dynamo.Warning{Line: line, Message: fmt.Sprintf(format, args...)})
}

// addFirst adds a page-wide warning that must be seen whatever else is
// found, ahead of the others and inside the bound.
func (w *warnings) addFirst(message string) {
	w.list = append([]dynamo.Warning{{Message: message}}, w.list...)
	if len(w.list) > maxWarnings {
		w.list = w.list[:maxWarnings]
		w.dropped++
	}
}

// sorted returns the warnings in line order (page-wide ones first), with a
// last one counting those left out.
func (w *warnings) sorted() []dynamo.Warning {
	sort.SliceStable(w.list, func(i, j int) bool { return w.list[i].Line < w.list[j].Line })
	if w.dropped > 0 {
		w.list = append(w.list, dynamo.Warning{Message: fmt.Sprintf("%d more warnings not shown", w.dropped)})
	}
	return w.list
}

// lines maps byte offsets in the text to 1-based line numbers. Offsets are
// mostly asked for in increasing order, so it counts newlines forward from
// the last answer and only starts over when asked for an earlier offset.
type lines struct {
	text   string
	offset int // the last offset asked for
	line   int // its line
}

func newLines(text string) *lines { return &lines{text: text, line: 1} }

func (l *lines) at(offset int) int {
	offset = min(max(offset, 0), len(l.text))
	if offset < l.offset {
		l.offset, l.line = 0, 1
	}
	l.line += strings.Count(l.text[l.offset:offset], "\n")
	l.offset = offset
	return l.line
}
