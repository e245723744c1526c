package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// TestGroupCommit holds the writer while twelve polls queue for it, three
// of them under a lease their poller lost, then lets go: the twelve are
// written in one transaction, the nine whose lease holds are stored and
// announced, and the three refused leave nothing behind (each rolled back
// to its savepoint, without the others).
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	const polls = 12
	for i := range polls {
		id := fmt.Sprintf("s%02d", i)
		addSource(t, s, id)
		if _, err := s.LeaseSource(ctx, id, "test", t0, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	changes, err := s.WatchChanges(watchCtx)
	if err != nil {
		t.Fatal(err)
	}
	// Another transaction holds the writer until release is closed.
	held, release := make(chan struct{}), make(chan struct{})
	go s.write(ctx, func(*sql.Tx, func(string)) error {
		close(held)
		<-release
		return nil
	})
	<-held
	var transactions []time.Duration
	s.wrote = func(d time.Duration) { transactions = append(transactions, d) }
	errs := make([]error, polls)
	var wg sync.WaitGroup
	for i := range polls {
		wg.Go(func() {
			id, owner := fmt.Sprintf("s%02d", i), "test"
			if i%4 == 3 {
				owner = "someone else"
			}
			d := page(id, 1, 5, 5)
			_, errs[i] = s.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: owner, At: d.Timestamp, Document: d},
				func(dynamo.PollResult) dynamo.PollUpdate {
					return dynamo.PollUpdate{State: dynamo.PollState{LastStatus: dynamo.StatusChanged},
						Log: dynamo.PollLogEntry{Status: dynamo.StatusChanged}}
				})
		})
	}
	for queued, deadline := 0, time.Now().Add(30*time.Second); queued < polls; {
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("%d of %d polls queued for a group commit after 30 s", queued, polls)
		}
		time.Sleep(time.Millisecond)
		s.group.mu.Lock()
		queued = len(s.group.waiting)
		s.group.mu.Unlock()
	}
	close(release)
	wg.Wait()
	if len(transactions) != 1 {
		t.Errorf("%d polls in %d transactions, want one", polls, len(transactions))
	}
	announced := map[string]bool{}
	for len(announced) < polls*3/4 {
		select {
		case c := <-changes:
			announced[c.SourceID] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("announced %v, want the nine stored", announced)
		}
	}
	for i, err := range errs {
		id := fmt.Sprintf("s%02d", i)
		src, err2 := s.Source(ctx, id)
		if err2 != nil {
			t.Fatal(err2)
		}
		versions := src.Summary.Versions
		refused := i%4 == 3
		switch {
		case refused && !errors.Is(err, dynamo.ErrLeaseLost):
			t.Errorf("%s, under a lost lease: %v, want ErrLeaseLost", id, err)
		case !refused && err != nil:
			t.Errorf("%s: %v", id, err)
		case refused == (versions == 1), refused == announced[id]:
			t.Errorf("%s (refused %t): %d versions, announced %t", id, refused, versions, announced[id])
		}
	}
}
