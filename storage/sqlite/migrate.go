package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// The schema's migrations, applied in the order of their names' numeric
// prefixes (archive.LoadMigrations). A migration, once released, never
// changes: a change to the schema is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one step of the schema, run in a write transaction.
type migration = archive.Migration[*sql.Tx]

// migrations reads the embedded migrations in order.
func migrations() ([]migration, error) {
	return archive.LoadMigrations[*sql.Tx](migrationFiles, "migrations")
}

// migrate applies the migrations among ms that the file lacks, each in its
// own IMMEDIATE transaction together with its row in schema_migrations, and
// returns their names. Checking inside the transaction makes a concurrent
// run in another process find the migration done and skip it.
func migrate(ctx context.Context, db *sql.DB, ms []migration) ([]string, error) {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at INTEGER NOT NULL
	) STRICT`); err != nil {
		return nil, fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	return archive.Migrate(ctx, func(ctx context.Context, m migration) (bool, error) { return apply(ctx, db, m) }, ms)
}

// apply runs one migration unless it is recorded, and reports whether it ran.
func apply(ctx context.Context, db *sql.DB, m migration) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", m.Version).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if m.SQL != "" {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return false, err
		}
	}
	if m.Code != nil {
		if err := m.Code(ctx, tx); err != nil {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		m.Version, m.Name, dbTime(time.Now())); err != nil {
		return false, fmt.Errorf("record: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("commit: %w", err)
	}
	return true, nil
}
