// Package logtest holds what tests need to read a server's log while its
// goroutines (or a child process) are still writing it.
package logtest

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer safe for concurrent writers, whose String can be
// read at any time.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
