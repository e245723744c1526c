package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// maxGroup is the most writes one group commit holds, so that a group of
// polls holds the writer for about as long as a few of them.
const maxGroup = 32

// group gathers the grouped writes waiting for the writer (writeGrouped).
type group struct {
	mu      sync.Mutex
	waiting []*groupedWrite
	leading bool // a caller is committing a group
}

// groupedWrite is one caller's part of a group commit.
type groupedWrite struct {
	ctx context.Context // the caller's: a write cancelled before its turn is not run
	fn  func(tx *sql.Tx, changed func(id string)) error
	ids []string // the sources it changed, published once committed
	// woken is sent to once the write is done (done set) or when its
	// caller is to commit the next group.
	woken chan struct{}
	done  bool
	err   error
}

// writeGrouped runs fn like write, in one transaction with the other
// grouped writes waiting for the writer at the time, so that they share
// one commit and one fsync (a group commit: docs/STORAGE.md "Group
// commit"). Each fn runs inside a savepoint of its own: one that fails is
// rolled back alone and its caller gets its error, while the others
// commit. Nothing is reported done before the group's commit is on disk
// (synchronous = FULL), and no reader sees a grouped write before then
// either: a crash loses only writes whose callers were not yet answered.
// One of the waiting callers commits each group; fn's statements should
// not be cancellable (a statement SQLite interrupts can roll back the
// whole transaction, which would fail the group's other writes too), so
// the caller's ctx only keeps fn from starting.
func (s *Store) writeGrouped(ctx context.Context, fn func(tx *sql.Tx, changed func(id string)) error) error {
	w := &groupedWrite{ctx: ctx, fn: fn, woken: make(chan struct{}, 1)}
	g := &s.group
	g.mu.Lock()
	g.waiting = append(g.waiting, w)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if !lead {
		<-w.woken
		if w.done {
			return w.err
		}
	}
	// This caller commits the next group, its own write among it.
	s.commitGroup()
	g.mu.Lock()
	if len(g.waiting) > 0 {
		g.waiting[0].woken <- struct{}{} // the next group's committer
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	return w.err
}

// commitGroup takes the writer, then up to maxGroup waiting writes (those
// that came while it waited for the writer among them), runs them in one
// transaction and tells their callers.
func (s *Store) commitGroup() {
	// Not the caller's context: cancelling it would roll back every
	// write of the group.
	tx, beginErr := s.w.BeginTx(context.Background(), nil)
	g := &s.group
	g.mu.Lock()
	n := min(len(g.waiting), maxGroup)
	writes := g.waiting[:n:n]
	g.waiting = g.waiting[n:]
	g.mu.Unlock()
	if beginErr != nil {
		finish(writes, fmt.Errorf("begin: %w", beginErr))
		return
	}
	start := time.Now()
	defer tx.Rollback()
	var ran []*groupedWrite
	for _, w := range writes {
		if w.err = w.ctx.Err(); w.err != nil {
			continue
		}
		if _, err := tx.Exec("SAVEPOINT grouped"); err != nil {
			finish(writes, fmt.Errorf("group commit: %w", err))
			return
		}
		w.err = w.fn(tx, func(id string) { w.ids = append(w.ids, id) })
		if w.err != nil {
			w.ids = nil
			// A failed ROLLBACK TO says SQLite rolled the whole
			// transaction back (an I/O error, a full disk): nothing of
			// the group is written.
			if _, err := tx.Exec("ROLLBACK TO grouped"); err != nil {
				finish(writes, fmt.Errorf("group commit: a write of the group failed (%v), and with it the transaction: %w", w.err, err))
				return
			}
		}
		if _, err := tx.Exec("RELEASE grouped"); err != nil {
			finish(writes, fmt.Errorf("group commit: %w", err))
			return
		}
		if w.err == nil {
			ran = append(ran, w)
		}
	}
	err := tx.Commit()
	if s.wrote != nil {
		s.wrote(time.Since(start))
	}
	if err != nil {
		for _, w := range ran {
			w.err = fmt.Errorf("commit: %w", err)
		}
	} else {
		for _, w := range ran {
			for _, id := range w.ids {
				s.watch.publish(id)
			}
		}
	}
	finish(writes, nil)
}

// finish tells the callers of writes that they are done, with err when
// set, else with their own outcome. The committer's own write is among
// them; its woken is sent to as well, and never read.
func finish(writes []*groupedWrite, err error) {
	for _, w := range writes {
		if err != nil {
			w.err = err
		}
		w.done = true
		w.woken <- struct{}{}
	}
}
