package dynamo

import (
	"errors"
	"fmt"
)

// Errors that stores and services return, to be tested with errors.Is.
var (
	ErrNotFound  = errors.New("not found")
	ErrConflict  = errors.New("already exists")
	ErrLeaseLost = errors.New("lease lost: another poller holds the source")
	ErrInvalid   = errors.New("invalid")
)

// Invalidf is a refusal of a client's input, shown to the client as it is
// after "invalid: "; it wraps ErrInvalid.
func Invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
