// Package postgres implements dynamo.Store on PostgreSQL through pgx, for
// deployments where several Dynamo processes share one archive (docs/STORAGE.md "PostgreSQL").
//
// Each source's items are stored once, keyed by their XMLData id, with one
// revision per distinct content; a version is an ordered list of revisions,
// so any version is rebuilt exactly and storage grows with new content
// rather than with polls. Keyword conditions run in the database over
// case-folded copies of the matched fields with pg_trgm GIN indexes. Polls
// are leased with row locks (FOR UPDATE SKIP LOCKED) and an expiry, and every
// change is announced with NOTIFY so that other processes drop stale caches.
// docs/STORAGE.md describes the schema.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// Store is a dynamo.Store backed by a PostgreSQL database.
type Store struct {
	archive.Listing // Sources, Collections, Stats
	pool            *pgxpool.Pool
	applied         []string

	closeOnce sync.Once
	done      chan struct{} // closed by Close, to end the watchers

	// batch is the most rows one transaction of a version written in
	// batches stores, and the size of a version beyond which it is.
	batch int
	// wrote, when set (by tests), is told how long each transaction of
	// inTx or of a poll's Write lasted, from its start to its commit or
	// rollback.
	wrote func(time.Duration)
}

// batchRows is Store.batch: a transaction inserting this many revisions,
// with their three trigram indexes, lasts tens to hundreds of milliseconds
// (docs/STORAGE.md, "Large versions").
const batchRows = 200

var _ dynamo.Store = (*Store)(nil)

// Open connects to the database at dsn (a postgres:// URL or a key=value
// connection string), applies the migrations it lacks and returns the store.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	return openConfig(ctx, cfg)
}

// openConfig is Open of a parsed configuration, which tests amend (a
// tracer counting round trips).
func openConfig(ctx context.Context, cfg *pgxpool.Config) (*Store, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	ms, err := migrations()
	if err != nil {
		pool.Close()
		return nil, err
	}
	applied, err := migrate(ctx, pool, ms)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return newStore(pool, applied), nil
}

// Applied names the migrations that Open applied, in order; it is empty when
// the database was already up to date.
func (s *Store) Applied() []string { return s.applied }

// Close releases the store's connections.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		s.pool.Close()
	})
	return nil
}

// ChangeChannel is the NOTIFY channel on which the store announces the ids
// of sources whose archive or configuration changed.
const ChangeChannel = "dynamo_changes"

// notify announces a change of source id when tx commits.
func notify(ctx context.Context, tx pgx.Tx, id string) error {
	if _, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", ChangeChannel, id); err != nil {
		return fmt.Errorf("notify change of %s: %w", id, err)
	}
	return nil
}

// inTx runs fn in a transaction, committing when it returns nil.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if s.wrote != nil {
		start := time.Now()
		defer func() { s.wrote(time.Since(start)) }()
	}
	defer tx.Rollback(context.Background())
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// newStore is the store of pool, whose migrations applied ran.
func newStore(pool *pgxpool.Pool, applied []string) *Store {
	s := &Store{pool: pool, applied: applied, done: make(chan struct{}), batch: batchRows}
	s.Listing = archive.Listing{Each: s.EachSource}
	return s
}

// notFound is err, with the driver's "no rows" read as dynamo.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return dynamo.ErrNotFound
	}
	return err
}

// collect reads every row of a query's result with scan, and closes it.
func collect[T any](rows pgx.Rows, err error, scan func(archive.Scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return archive.Collect(rows, scan)
}
