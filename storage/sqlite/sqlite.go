// Package sqlite implements dynamo.Store in one SQLite file, through the
// pure-Go modernc.org/sqlite driver: the embedded store that needs no
// server, for one Dynamo process on one machine (docs/STORAGE.md "Embedded store (SQLite)").
//
// The model is PostgreSQL's (storage/postgres): each source's items are
// stored once, keyed by their XMLData id, with one revision per distinct
// content; a version is an ordered list of revisions, so any version is
// rebuilt exactly and the file grows with new content rather than with
// polls. Keyword conditions run in the database with instr() over
// case-folded copies of the matched fields.
//
// The file is in WAL mode: readers use a pool of connections and never wait
// for the writer, and every write goes through one connection in an
// IMMEDIATE transaction, so writes are serialized without SQLITE_BUSY
// surprises. One process owns the file: WatchChanges reports the changes
// made through this Store only.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// busyTimeout is how long a connection waits for a lock held by another
// process (a `dynamo migrate` run, a second process opened by mistake)
// before failing.
const busyTimeout = 10 * time.Second

// Store is a dynamo.Store kept in one SQLite file.
type Store struct {
	archive.Listing         // Sources, Collections, Stats
	w               *sql.DB // the one writer connection
	r               *sql.DB // the readers
	applied         []string
	watch           *fanout
	// batch is the most rows one transaction of a version written in
	// batches stores, and the size of a version beyond which it is.
	batch int
	// wrote, when set (by tests), is told how long each write transaction
	// held the writer, from its start to its commit or rollback.
	wrote func(time.Duration)
	// group gathers the polls' writes into group commits (writeGrouped).
	group group
}

// batchRows is Store.batch: a transaction of this many rows holds the
// writer for tens of milliseconds (docs/STORAGE.md, "Large versions").
const batchRows = 500

var _ dynamo.Store = (*Store)(nil)

// Open opens (creating if needed) the database file at path, applies the
// migrations it lacks and returns the store.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: open %q: the path must be non-empty and contain no '?' or '#'", path)
	}
	params := url.Values{}
	params.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	params.Set("_foreign_keys", "1")
	params.Set("_journal_mode", "WAL")
	// FULL makes each commit durable across a power loss too, not only
	// across a killed process: a poll reported as stored stays stored.
	params.Set("_synchronous", "FULL")
	params.Set("_txlock", "immediate")
	w, err := openDB(path + "?" + params.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	// The schema must exist before readers open, or their query_only
	// connections could race the first migration.
	ms, err := migrations()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	applied, err := migrate(ctx, w, ms)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	params.Del("_txlock")
	params.Del("_journal_mode") // persistent in the file; setting it needs a write
	params.Set("_query_only", "1")
	r, err := openDB(path + "?" + params.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}
	r.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)))
	// Idle readers stay open: each keeps its prepared statements (openDB),
	// which closing it beyond database/sql's default of two idle would lose.
	r.SetMaxIdleConns(max(4, runtime.GOMAXPROCS(0)))
	if err := r.PingContext(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}
	st := &Store{w: w, r: r, applied: applied, watch: newFanout(), batch: batchRows}
	st.Listing = archive.Listing{Each: st.EachSource}
	return st, nil
}

// Applied names the migrations that Open applied, in order; it is empty when
// the file was already up to date.
func (s *Store) Applied() []string { return s.applied }

// Close ends the watchers and closes the file.
func (s *Store) Close() error {
	s.watch.close()
	return errors.Join(s.r.Close(), s.w.Close())
}

// write runs fn in a write transaction and, once it committed, reports the
// sources fn named as changed.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx, changed func(id string)) error) error {
	var ids []string
	changed := func(id string) { ids = append(ids, id) }
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if s.wrote != nil {
		start := time.Now() // BEGIN IMMEDIATE has taken the lock
		defer func() { s.wrote(time.Since(start)) }()
	}
	defer tx.Rollback()
	if err := fn(tx, changed); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	for _, id := range ids {
		s.watch.publish(id)
	}
	return nil
}

// zeroTime is how the zero time.Time is stored.
var zeroTime = time.Time{}.UnixMicro()

// dbTime stores a time as microseconds since the Unix epoch, the precision
// PostgreSQL keeps too.
func dbTime(t time.Time) int64 { return t.UnixMicro() }

// dbTimeArg is dbTime as the shared code's writers take it (archive.SubscriptionArgs).
func dbTimeArg(t time.Time) any { return dbTime(t) }

// goTime reads a stored time, in UTC; the zero time comes back zero.
func goTime(us int64) time.Time { return time.UnixMicro(us).UTC() }

// boolInt stores a bool as SQLite's 0 or 1.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// jsonArg encodes a list for json_each(?), SQLite's way of taking an array
// as one parameter.
func jsonArg[T any](list []T) string {
	if len(list) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(list) // strings and integers always encode
	return string(b)
}

// collect reads every row of a query's result with scan, and closes it.
func collect[T any](rows *sql.Rows, err error, scan func(archive.Scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return archive.Collect(rows, scan)
}

// eachItem is archive.EachItem over the rows of a query and its error,
// closing them.
func eachItem(rows *sql.Rows, err error, shape archive.ItemShape, fn func(*dynamo.ArchivedItem) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	return archive.EachItem(rows, shape, fn)
}

// notFound is err, with the driver's "no rows" read as dynamo.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return dynamo.ErrNotFound
	}
	return err
}
