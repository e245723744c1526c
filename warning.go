package dynamo

import "fmt"

// Warning is a problem found in input that was nevertheless used: a bad
// annotation, an unparsable date, a broken feed element. Line is 1-based, 0
// when the problem has no single line.
type Warning struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (w Warning) String() string {
	if w.Line == 0 {
		return w.Message
	}
	return fmt.Sprintf("line %d: %s", w.Line, w.Message)
}

// MaxPollWarnings bounds the warnings a source keeps of its last poll: the
// first ones point at the mistakes, a page broken throughout repeats them.
const MaxPollWarnings = 100

// KeepWarnings bounds warnings to MaxPollWarnings, the last one counting
// those left out.
func KeepWarnings(ws []Warning) []Warning {
	if len(ws) <= MaxPollWarnings {
		return ws
	}
	kept := append([]Warning(nil), ws[:MaxPollWarnings-1]...)
	return append(kept, Warning{Message: fmt.Sprintf("%d more warnings not kept", len(ws)-MaxPollWarnings+1)})
}
