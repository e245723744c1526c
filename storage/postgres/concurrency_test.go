package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
)

// Three processes starting at once on an empty database apply each
// migration exactly once between them.
func TestMigrationsConcurrent(t *testing.T) {
	dsn := pgtest.DSN(t)
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	applied := make([][]string, 3)
	var wg sync.WaitGroup
	for i := range applied {
		wg.Go(func() {
			s, err := Open(context.Background(), dsn)
			if err != nil {
				t.Errorf("Open %d: %v", i, err)
				return
			}
			applied[i] = s.Applied()
			s.Close()
		})
	}
	wg.Wait()
	total := 0
	for _, a := range applied {
		if len(a) != 0 && len(a) != len(ms) {
			t.Errorf("one Open applied %v: migrations were split between processes", a)
		}
		total += len(a)
	}
	if total != len(ms) {
		t.Errorf("%d migrations applied in all, want %d: %v", total, len(ms), applied)
	}
	if again := openDSN(t, dsn).Applied(); len(again) != 0 {
		t.Errorf("re-opening applied %v", again)
	}
}

// A database that has only the older migrations gets the rest, and its
// data survives.
func TestOldDatabaseUpgrades(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	old := ms[:len(ms)-1]
	if _, err := migrate(ctx, pool, old); err != nil {
		t.Fatal(err)
	}
	s := openDSN(t, dsn)
	if got := s.Applied(); len(got) != 1 || got[0] != ms[len(ms)-1].Name {
		t.Errorf("upgrade applied %v, want %s", got, ms[len(ms)-1].Name)
	}
	var recorded int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM schema_migrations").Scan(&recorded); err != nil || recorded != len(ms) {
		t.Errorf("schema_migrations holds %d rows (%v), want %d", recorded, err, len(ms))
	}
}

// Two processes leasing due sources at the same moment never hold the same
// source, and between them lease every due one.
func TestLeasingAcrossProcesses(t *testing.T) {
	dsn := pgtest.DSN(t)
	stores := []*Store{openDSN(t, dsn), openDSN(t, dsn)}
	ctx := context.Background()
	const sources = 200
	for i := range sources {
		addSource(t, stores[0], fmt.Sprintf("s%03d", i))
	}
	var mu sync.Mutex
	holder := map[string]string{}
	var wg sync.WaitGroup
	for p, s := range stores {
		for w := range 4 {
			owner := fmt.Sprintf("process%d-worker%d", p, w)
			wg.Go(func() {
				for {
					got, err := s.LeaseDue(ctx, owner, t0, 7, time.Hour, dynamo.LeaseHosts{})
					if err != nil {
						t.Errorf("%s: %v", owner, err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, src := range got {
						if prev, ok := holder[src.ID]; ok {
							t.Errorf("%s leased by %s and %s", src.ID, prev, owner)
						}
						holder[src.ID] = owner
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if len(holder) != sources {
		t.Errorf("%d of %d sources leased", len(holder), sources)
	}
}

// Two writers holding the same lease store the same content at once: one
// version results, and the other writer learns it lost the lease.
func TestConcurrentWritersOfOneSource(t *testing.T) {
	dsn := pgtest.DSN(t)
	stores := []*Store{openDSN(t, dsn), openDSN(t, dsn)}
	ctx := context.Background()
	addSource(t, stores[0], "a")
	d := doc("a", t0, item(1, "one"), item(2, "two"))
	for round := range 20 {
		at := t0.Add(time.Duration(round) * time.Hour)
		d.Items[0].Title = fmt.Sprintf("one, round %d", round)
		if _, err := stores[0].LeaseSource(ctx, "a", "p", at, time.Minute); err != nil {
			t.Fatal(err)
		}
		results := make([]error, 2)
		versions := make([]*dynamo.Version, 2)
		var wg sync.WaitGroup
		for i, s := range stores {
			wg.Go(func() {
				res, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: "a", Owner: "p", At: at, Document: d}, decideFlat(at))
				results[i], versions[i] = err, res.Version
			})
		}
		wg.Wait()
		stored := 0
		for i := range stores {
			switch {
			case results[i] == nil && versions[i] != nil:
				stored++
			case !errors.Is(results[i], dynamo.ErrLeaseLost):
				t.Fatalf("round %d writer %d: version %v, error %v", round, i, versions[i], results[i])
			}
		}
		if stored != 1 {
			t.Fatalf("round %d: %d writers stored a version", round, stored)
		}
	}
	if vs, _ := stores[1].Versions(ctx, "a"); len(vs) != 20 {
		t.Errorf("%d versions, want 20", len(vs))
	}
}

// Writers of different sources do not wait for or disturb each other.
func TestConcurrentWritersOfManySources(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	const sources, rounds = 8, 10
	var wg sync.WaitGroup
	for i := range sources {
		id := fmt.Sprintf("s%d", i)
		addSource(t, s, id)
		wg.Go(func() {
			for r := range rounds {
				at := t0.Add(time.Duration(r) * time.Minute)
				if _, err := s.LeaseSource(ctx, id, id, at, time.Minute); err != nil {
					t.Error(err)
					return
				}
				d := doc(id, at, item(r, fmt.Sprintf("%s %d", id, r)), item(100, "shared"))
				if _, err := s.RecordPoll(ctx, dynamo.PollRecord{SourceID: id, Owner: id, At: at, Document: d}, decideFlat(at)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Versions != sources*rounds || st.Items != sources*(rounds+1) {
		t.Errorf("%d versions and %d items, want %d and %d", st.Versions, st.Items, sources*rounds, sources*(rounds+1))
	}
}

// The row lock is not what keeps two writers from both storing version
// n+1: the versions' primary key (source_id, seq) does. Two transactions
// that skip the lock and both append version 2 of a source race on it; the
// second fails with a unique violation once the first commits, and the
// source keeps two versions.
func TestVersionSequenceIsAConstraint(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	addSource(t, s, "a")
	record(t, s, "a", t0, doc("a", t0, item(1, "one")))
	const appendNext = `INSERT INTO versions (source_id, seq, seen_at, hash, url, rss_id, stamp, channel_id, title, item_count, added, removed, revs, indexes)
		SELECT source_id, seq + 1, seen_at, hash || '-' || $1, url, rss_id, stamp, channel_id, title, item_count, added, removed, revs, indexes
		FROM versions WHERE source_id = 'a' AND seq = (SELECT max(seq) FROM versions WHERE source_id = 'a')`
	first, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx)
	if _, err := first.Exec(ctx, appendNext, "first"); err != nil {
		t.Fatalf("first writer: %v", err)
	}
	second := make(chan error, 1)
	go func() {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			second <- err
			return
		}
		defer tx.Rollback(ctx)
		// It reads version 1 as the newest (the first writer has not
		// committed) and waits on the key the first writer holds.
		if _, err := tx.Exec(ctx, appendNext, "second"); err != nil {
			second <- err
			return
		}
		second <- tx.Commit(ctx)
	}()
	select {
	case err := <-second:
		t.Fatalf("the second writer did not wait for the first: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var pgErr *pgconn.PgError
	if err := <-second; !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("second writer: %v, want a unique violation (23505)", err)
	}
	var n int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM versions WHERE source_id = 'a'").Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d versions (%v), want 2", n, err)
	}
}
