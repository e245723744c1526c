package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
)

// waitChange reads changes until one names id.
func waitChange(t *testing.T, ch <-chan dynamo.Change, id string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case c, ok := <-ch:
			if !ok {
				t.Fatalf("change channel closed while waiting for %s", id)
			}
			if c.SourceID == id {
				return
			}
		case <-timeout:
			t.Fatalf("no change of %s reported", id)
		}
	}
}

// A process watching sees the changes that another process makes, and its
// channel closes when its context ends.
func TestWatchChangesAcrossProcesses(t *testing.T) {
	dsn := pgtest.DSN(t)
	watcher, writer := openDSN(t, dsn), openDSN(t, dsn)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := watcher.WatchChanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	addSource(t, writer, "created")
	waitChange(t, ch, "created")

	addSource(t, writer, "a")
	waitChange(t, ch, "a")
	record(t, writer, "a", t0, doc("a", t0, item(1, "one")))
	waitChange(t, ch, "a")

	src, _ := writer.Source(context.Background(), "a")
	src.Category = "x"
	writer.UpdateSource(context.Background(), src)
	waitChange(t, ch, "a")
	writer.DeleteSource(context.Background(), "created", false)
	waitChange(t, ch, "created")

	cancel()
	for range ch {
	}
}

// When the listening connection dies (as in a server restart), the watcher
// reconnects, reports every collection as possibly changed, and goes on
// reporting changes.
func TestWatchChangesReconnects(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := openDSN(t, dsn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := s.WatchChanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	addSource(t, s, "a")
	waitChange(t, ch, "a")
	killListeners(t, dsn)
	waitChange(t, ch, "a") // reported after reconnecting
	addSource(t, s, "b")
	waitChange(t, ch, "b")

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range ch { // Close ends the watcher
	}
}

// killListeners ends every backend that LISTENs on the test's database.
func killListeners(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var killed int
	err = conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%'`).Scan(&killed)
	if err != nil || killed == 0 {
		t.Fatalf("terminated %d listeners: %v", killed, err)
	}
}
