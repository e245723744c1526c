// Package limits bounds the work that anonymous clients can make Dynamo do
// at once (docs/RELIABILITY.md, "Security"): a Gate admits a few expensive
// reads at a time and makes the next ones wait briefly in a short queue,
// then turns them away, so that cheap requests (/healthz, cached feeds,
// small reads) keep their share of the machine; a capped Buffer stops an
// answer that would grow past its bound.
package limits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrBusy is Enter's answer when every slot is taken and the queue is full
// or the wait ran out: the caller should answer 503 with Retry-After.
var ErrBusy = errors.New("too many expensive requests at once")

// Gate admits at most Slots expensive operations at once. Up to Queue more
// wait for a slot, each at most Wait; the rest are refused at once.
type Gate struct {
	slots chan struct{}
	queue chan struct{}
	wait  time.Duration
}

// NewGate returns a gate of slots concurrent operations (at least 1), with
// a queue of queue waiters (0 for none) who wait at most wait.
func NewGate(slots, queue int, wait time.Duration) *Gate {
	return &Gate{slots: make(chan struct{}, max(slots, 1)), queue: make(chan struct{}, max(queue, 0)), wait: wait}
}

// Enter takes a slot, waiting in the queue if there is room there, and
// returns the function that gives it back. It returns ErrBusy when no slot
// came free in time, or ctx's error when ctx ended first. A nil Gate admits
// everything.
func (g *Gate) Enter(ctx context.Context) (release func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	select {
	case g.slots <- struct{}{}:
		return g.release, nil
	default:
	}
	select {
	case g.queue <- struct{}{}:
	default:
		return nil, ErrBusy
	}
	defer func() { <-g.queue }()
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return g.release, nil
	case <-t.C:
		return nil, ErrBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (g *Gate) release() { <-g.slots }

// RetryAfter is how long a refused client should wait before trying
// again, in whole seconds: the queue's wait, at least one second.
func (g *Gate) RetryAfter() int {
	if g == nil {
		return 1
	}
	return max(1, int((g.wait+time.Second-1)/time.Second))
}

// ErrTooLarge is what a Buffer returns once a write would pass its cap.
var ErrTooLarge = errors.New("answer too large")

// Buffer collects an answer, refusing to grow past Max bytes (0: no
// bound): the write that would pass it fails with an error wrapping
// ErrTooLarge, and nothing more is kept.
type Buffer struct {
	Max int64
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *Buffer) Write(p []byte) (int, error) {
	if err := b.room(len(p)); err != nil {
		return 0, err
	}
	return b.buf.Write(p)
}

// WriteString implements io.StringWriter, with Write's bound.
func (b *Buffer) WriteString(s string) (int, error) {
	if err := b.room(len(s)); err != nil {
		return 0, err
	}
	return b.buf.WriteString(s)
}

func (b *Buffer) room(n int) error {
	if b.Max > 0 && int64(b.buf.Len()+n) > b.Max {
		return fmt.Errorf("more than %d bytes: %w", b.Max, ErrTooLarge)
	}
	return nil
}

// Bytes is what was written.
func (b *Buffer) Bytes() []byte { return b.buf.Bytes() }

// Reset empties the buffer, keeping its memory for the next answer.
func (b *Buffer) Reset() { b.buf.Reset() }

// Cap is the memory the buffer holds, in bytes.
func (b *Buffer) Cap() int { return b.buf.Cap() }
