package sqlite

import (
	"context"
	"sync"

	"github.com/dynamo-feeds/dynamo"
)

// WatchChanges reports the sources whose archive or configuration changed
// through this Store. The embedded store belongs to one process, so an
// in-process fan-out sees every change; a second process writing the same
// file (which the embedded store does not support) would go unnoticed.
//
// A watcher that reads slowly never holds up writers: the changes it has
// not read yet are kept as a set of source ids, so a burst of polls of one
// source is reported once and nothing is dropped. The channel closes when
// ctx ends or the store closes.
func (s *Store) WatchChanges(ctx context.Context) (<-chan dynamo.Change, error) {
	ch := make(chan dynamo.Change)
	w := &watcher{wake: make(chan struct{}, 1), pending: map[string]bool{}}
	if !s.watch.add(w) {
		close(ch)
		return ch, nil
	}
	go func() {
		defer close(ch)
		defer s.watch.remove(w)
		for {
			for _, id := range w.take() {
				select {
				case ch <- dynamo.Change{SourceID: id}:
				case <-ctx.Done():
					return
				case <-s.watch.done:
					return
				}
			}
			select {
			case <-w.wake:
			case <-ctx.Done():
				return
			case <-s.watch.done:
				return
			}
		}
	}()
	return ch, nil
}

// fanout hands every change to every watcher.
type fanout struct {
	mu       sync.Mutex
	watchers map[*watcher]bool
	closed   bool
	done     chan struct{} // closed with the store
}

// watcher is one WatchChanges caller: the ids it has yet to receive, in the
// order they first changed.
type watcher struct {
	wake    chan struct{}
	mu      sync.Mutex
	pending map[string]bool
	order   []string
}

func newFanout() *fanout {
	return &fanout{watchers: map[*watcher]bool{}, done: make(chan struct{})}
}

func (f *fanout) add(w *watcher) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.watchers[w] = true
	return true
}

func (f *fanout) remove(w *watcher) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.watchers, w)
}

// publish reports a change of source id to every watcher, without waiting
// for any of them.
func (f *fanout) publish(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for w := range f.watchers {
		w.mu.Lock()
		if !w.pending[id] {
			w.pending[id] = true
			w.order = append(w.order, id)
		}
		w.mu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default: // already woken
		}
	}
}

func (f *fanout) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.done)
	}
}

// take returns and forgets the pending ids.
func (w *watcher) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids := w.order
	w.order, w.pending = nil, map[string]bool{}
	return ids
}
