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
