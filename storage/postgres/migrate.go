package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// The schema's migrations, applied in the order of their names' numeric
// prefixes (archive.LoadMigrations), with the code migrations listed in
// migrations. A migration, once released, never changes: a change to the
// schema is a new one.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLock is the pg_advisory_lock key under which migrations run, so
// that processes starting together apply each migration once.
const migrationLock = 0x64796e616d6f // "dynamo"

// migration is one step of the schema, run in a transaction.
type migration = archive.Migration[pgx.Tx]

// migrations reads the embedded SQL migrations and adds the code ones, in
// order.
func migrations() ([]migration, error) {
	return archive.LoadMigrations(migrationFiles, "migrations",
		migration{Version: 2, Name: "0002_revs_as_runs", Code: repackRevs})
}

// repackRevs re-encodes the revision lists stored before both stores
// shared archive.PackRevs's format.
func repackRevs(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, "SELECT source_id, seq, revs FROM versions")
	if err != nil {
		return err
	}
	type packed struct {
		source string
		seq    int
		revs   []byte
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (packed, error) {
		var p packed
		err := row.Scan(&p.source, &p.seq, &p.revs)
		return p, err
	})
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	for _, p := range list {
		runs, err := archive.RepackVarintRevs(p.revs)
		if err != nil {
			return fmt.Errorf("version %d of %s: %w", p.seq, p.source, err)
		}
		b.Queue("UPDATE versions SET revs = $3 WHERE source_id = $1 AND seq = $2", p.source, p.seq, runs)
	}
	return tx.SendBatch(ctx, b).Close()
}

// migrate applies the migrations that the database lacks, each in its own
// transaction and recorded in schema_migrations, and returns their names.
// It holds a session advisory lock throughout, so that concurrent callers
// wait and then find nothing left to do.
func migrate(ctx context.Context, pool *pgxpool.Pool, ms []migration) ([]string, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: connect: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLock)); err != nil {
		return nil, fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", int64(migrationLock))

	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return nil, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	return archive.Migrate(ctx, func(ctx context.Context, m migration) (bool, error) { return apply(ctx, conn.Conn(), m) }, ms)
}

// apply runs one migration unless it is recorded, and reports whether it ran.
func apply(ctx context.Context, conn *pgx.Conn, m migration) (bool, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(context.Background())
	var done bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)", m.Version).Scan(&done); err != nil {
		return false, err
	}
	if done {
		return false, nil
	}
	if m.SQL != "" {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return false, err
		}
	}
	if m.Code != nil {
		if err := m.Code(ctx, tx); err != nil {
			return false, err
		}
	}
	if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
		return false, fmt.Errorf("record: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("commit: %w", err)
	}
	return true, nil
}
