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

// migrations reads the embedded migrations in order, with the Go steps of
// those that have one (steps).
func migrations() ([]migration, error) {
	ms, err := archive.LoadMigrations[*sql.Tx](migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	for i := range ms {
		ms[i].Code = steps[ms[i].Version]
	}
	return ms, nil
}

// steps are the Go steps of migrations, by version, run after their SQL.
var steps = map[int]func(context.Context, *sql.Tx) error{13: textOnce}

// textOnce is the Go step of 0013_text_once: it packs each stored
// description against its plain text into markup_ops, reading a thousand
// rows at a time, then makes description the column generated from them.
func textOnce(ctx context.Context, tx *sql.Tx) error {
	type row struct {
		id          int64
		desc, plain string
	}
	for last := int64(0); ; {
		rows, err := tx.QueryContext(ctx, `SELECT rev_id, description, plain_text FROM item_revisions
			WHERE rev_id > ? ORDER BY rev_id LIMIT 1000`, last)
		batch, err := collect(rows, err, func(s archive.Scanner) (r row, err error) {
			return r, s.Scan(&r.id, &r.desc, &r.plain)
		})
		if err != nil {
			return fmt.Errorf("read descriptions: %w", err)
		}
		if len(batch) == 0 {
			break
		}
		for _, r := range batch {
			if _, err := tx.ExecContext(ctx, "UPDATE item_revisions SET markup_ops = ? WHERE rev_id = ?",
				packMarkup(r.desc, r.plain), r.id); err != nil {
				return fmt.Errorf("pack description of revision %d: %w", r.id, err)
			}
		}
		last = batch[len(batch)-1].id
	}
	for _, stmt := range []string{
		"ALTER TABLE item_revisions DROP COLUMN description",
		"ALTER TABLE item_revisions ADD COLUMN description TEXT GENERATED ALWAYS AS (" + markupFunc + "(markup_ops, plain_text)) VIRTUAL",
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
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
