package dynamo

import "errors"

// Errors that stores and services return, to be tested with errors.Is.
var (
	ErrNotFound  = errors.New("not found")
	ErrConflict  = errors.New("already exists")
	ErrLeaseLost = errors.New("lease lost: another poller holds the source")
	ErrInvalid   = errors.New("invalid")
)
