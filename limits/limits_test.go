package limits

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestGate(t *testing.T) {
	g := NewGate(2, 1, 50*time.Millisecond)
	ctx := context.Background()
	r1, err1 := g.Enter(ctx)
	r2, err2 := g.Enter(ctx)
	if err1 != nil || err2 != nil {
		t.Fatalf("two slots: %v, %v", err1, err2)
	}
	// The third waits in the queue and gets the slot given back meanwhile.
	got := make(chan error, 1)
	go func() {
		release, err := g.Enter(ctx)
		if err == nil {
			release()
		}
		got <- err
	}()
	for len(g.queue) == 0 {
		time.Sleep(time.Millisecond)
	}
	// The queue is full: a fourth is refused at once.
	if _, err := g.Enter(ctx); !errors.Is(err, ErrBusy) {
		t.Errorf("a fourth with the queue full: %v, want ErrBusy", err)
	}
	r1()
	if err := <-got; err != nil {
		t.Errorf("the queued one: %v", err)
	}
	// A waiter whose wait runs out is refused.
	r3, _ := g.Enter(ctx)
	if _, err := g.Enter(ctx); !errors.Is(err, ErrBusy) {
		t.Errorf("a waiter past its wait: %v, want ErrBusy", err)
	}
	// A waiter whose request ends gives up with its context's error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.Enter(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled waiter: %v", err)
	}
	r2()
	r3()
	if g.RetryAfter() != 1 || (*Gate)(nil).RetryAfter() != 1 {
		t.Error("RetryAfter is not at least a second")
	}
	if release, err := (*Gate)(nil).Enter(ctx); err != nil {
		t.Error("a nil gate refused")
	} else {
		release()
	}
}

func TestBuffer(t *testing.T) {
	b := &Buffer{Max: 10}
	if _, err := io.WriteString(b, "0123456789"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("the 11th byte: %v, want ErrTooLarge", err)
	}
	if string(b.Bytes()) != "0123456789" {
		t.Errorf("kept %q", b.Bytes())
	}
	unbounded := &Buffer{}
	if _, err := io.Copy(unbounded, strings.NewReader(strings.Repeat("y", 1<<20))); err != nil || len(unbounded.Bytes()) != 1<<20 {
		t.Errorf("an unbounded buffer: %v, %d bytes", err, len(unbounded.Bytes()))
	}
}
