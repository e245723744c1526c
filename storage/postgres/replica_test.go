package postgres

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
	"github.com/dynamo-feeds/dynamo/storage/storetest"
)

// openReplicated opens a Replicated store on a fresh database of the pair,
// closed when the test ends; it returns the primary's DSN too.
func openReplicated(t testing.TB, pair *pgtest.Pair) (*Replicated, string) {
	t.Helper()
	primary, standby := pair.DSN(t)
	r, err := OpenReplicated(context.Background(), primary, []string{standby})
	if err != nil {
		t.Fatalf("OpenReplicated: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r, primary
}

// TestReplica runs against a real hot standby (pg_basebackup -R): the
// whole conformance suite with reads on the standby, then what a lagging
// standby must and must not be allowed to show.
func TestReplica(t *testing.T) {
	pair := pgtest.NewPair(t)

	// Every read the suite makes is the standby's: each waits for the
	// standby to replay the writes before it rather than going to the
	// primary.
	t.Run("Conformance", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) dynamo.Store {
			r, _ := openReplicated(t, pair)
			r.waitReplay = true
			t.Cleanup(func() {
				if n := r.primaryReads.Load(); n > 0 {
					t.Errorf("%d reads went to the primary, want every read on the standby", n)
				}
			})
			return r
		})
	})

	// A replica that is not a standby of the primary is refused.
	t.Run("RefusesPrimaryAsReplica", func(t *testing.T) {
		primary, _ := pair.DSN(t)
		_, err := OpenReplicated(context.Background(), primary, []string{primary})
		if !errors.Is(err, dynamo.ErrInvalid) {
			t.Fatalf("OpenReplicated with the primary as its replica: %v, want ErrInvalid", err)
		}
	})

	// Reads go to the standby; an operator's (WithLatestReads) to the
	// primary, which has a change the paused standby lacks.
	t.Run("ReadsFromStandbyOperatorFromPrimary", func(t *testing.T) {
		r, primary := openReplicated(t, pair)
		addSource(t, r.Store, "a")
		pair.CatchUp(t)
		pair.PauseReplay(t)
		defer pair.ResumeReplay(t)
		// A change this process is not told of: another writer's, with no
		// notification.
		conn, err := pgx.Connect(context.Background(), primary)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "UPDATE sources SET category = 'changed' WHERE id = 'a'"); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		src, err := r.Source(ctx, "a")
		if err != nil || src.Category != "" {
			t.Fatalf("a public read sees category %q (%v), want the standby's \"\"", src.Category, err)
		}
		src, err = r.Source(dynamo.WithLatestReads(ctx), "a")
		if err != nil || src.Category != "changed" {
			t.Fatalf("an operator's read sees category %q (%v), want the primary's \"changed\"", src.Category, err)
		}
	})

	// A change is reported only once reads show it: with the standby
	// paused, the reads that follow a reported change go to the primary.
	t.Run("FreshAfterChange", func(t *testing.T) {
		r, primary := openReplicated(t, pair)
		writer := openDSN(t, primary) // another process on the same primary
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch, err := r.WatchChanges(ctx)
		if err != nil {
			t.Fatal(err)
		}
		addSource(t, writer, "a")
		waitChange(t, ch, "a")
		record(t, writer, "a", t0, doc("a", t0, item(1, "one")))
		waitChange(t, ch, "a")
		pair.CatchUp(t)
		pair.PauseReplay(t)
		defer pair.ResumeReplay(t)

		record(t, writer, "a", t0.Add(1), doc("a", t0.Add(1), item(2, "two"), item(1, "one")))
		waitChange(t, ch, "a")
		vs, err := r.Versions(ctx, "a")
		if err != nil || len(vs) != 2 {
			t.Fatalf("after the change was reported: %d versions (%v), want 2", len(vs), err)
		}
		items, err := r.Items(ctx, dynamo.ItemQuery{SourceID: "a", Version: 1})
		if err != nil || len(items) != 2 || items[0].Item.Title != "two" {
			t.Fatalf("after the change was reported, the newest version's items: %v (%v)", items, err)
		}
	})

	// A replica that stops answering while the store runs costs one
	// failed read, which the primary answers; the replica then rests
	// (replicaRest) with every read on the primary, and is used again
	// once it answers. A replica that does not answer when the store
	// opens is refused: nothing can check that it is a standby of the
	// primary. (Last: it stops the standby.)
	t.Run("ReplicaDown", func(t *testing.T) {
		r, primary := openReplicated(t, pair)
		var logs syncBuffer
		r.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
		ctx := context.Background()
		addSource(t, r.Store, "a")
		pair.CatchUp(t)
		onPrimary := r.primaryReads.Load()
		if _, err := r.Source(ctx, "a"); err != nil || r.primaryReads.Load() != onPrimary {
			t.Fatalf("with the standby up and caught up: %v, %d reads on the primary, want the standby's answer", err, r.primaryReads.Load()-onPrimary)
		}

		pair.StopStandby(t)
		rep := r.replicas[0]
		for i := range 3 {
			src, err := r.Source(ctx, "a")
			if err != nil || src.ID != "a" {
				t.Fatalf("read %d with the standby down: %v, want the primary's answer", i+1, err)
			}
		}
		if rest := time.Until(time.Unix(0, rep.downUntil.Load())); rest <= 0 || rest > replicaRest {
			t.Errorf("the stopped standby rests %v, want up to %v", rest, replicaRest)
		}
		// The first read tried the standby; the next two went straight to
		// the primary.
		if n := r.primaryReads.Load() - onPrimary; n != 2 {
			t.Errorf("%d reads sent to the primary while the standby rests, want 2", n)
		}
		// Its failure is logged once, with the reason; its name has no
		// password.
		rep.downUntil.Store(0) // the next read tries it again, and fails
		if _, err := r.Source(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if got := logs.String(); strings.Count(got, "read replica unusable") != 1 || !strings.Contains(got, "replica="+rep.name) || !strings.Contains(got, "err=") || strings.Contains(got, "usable again") {
			t.Errorf("log with the standby down, failed twice: %q, want one warning naming it, with the reason", got)
		}
		standby := r.replicas[0].store.pool.Config().ConnString()
		if _, err := OpenReplicated(ctx, primary, []string{standby}); err == nil {
			t.Error("OpenReplicated with a replica that is down: no error")
		}

		pair.StartStandby(t)
		pair.CatchUp(t)
		rep.downUntil.Store(0) // its rest over
		onPrimary = r.primaryReads.Load()
		if _, err := r.Source(ctx, "a"); err != nil || r.primaryReads.Load() != onPrimary {
			t.Fatalf("with the standby back: %v, %d reads on the primary, want the standby's answer", err, r.primaryReads.Load()-onPrimary)
		}
		if _, err := r.Source(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if got := logs.String(); strings.Count(got, "read replica usable again") != 1 || strings.Count(got, "level=") != 2 {
			t.Errorf("log once the standby is back, read twice: %q, want the warning and one info line", got)
		}
		if names := r.Replicas(); len(names) != 1 || names[0] != rep.name || !strings.HasSuffix(rep.name, "/"+r.replicas[0].store.pool.Config().ConnConfig.Database) {
			t.Errorf("Replicas() = %q, want host:port/database", names)
		}
	})
}

// syncBuffer is a log sink safe for the store's concurrent reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
