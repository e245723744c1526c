package archive

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one step of a store's schema. Once released it never
// changes: a change to the schema is a new migration.
type Migration[Tx any] struct {
	Version int
	Name    string
	SQL     string // run as one script; may be empty when Code does the work
	// Code, when set, runs after SQL in the same transaction: a step SQL
	// cannot say, such as re-encoding stored values.
	Code func(ctx context.Context, tx Tx) error
}

// LoadMigrations reads the SQL migrations in dir of fsys, named
// NNNN_what.sql, adds the code migrations, and orders them by version; two
// with one version are an error.
func LoadMigrations[Tx any](fsys fs.FS, dir string, code ...Migration[Tx]) ([]Migration[Tx], error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	ms := append([]Migration[Tx](nil), code...)
	for _, e := range entries {
		prefix, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number and '_'", e.Name())
		}
		body, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, Migration[Tx]{Version: v, Name: e.Name(), SQL: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i := 1; i < len(ms); i++ {
		if ms[i].Version == ms[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s have one version", ms[i-1].Name, ms[i].Name)
		}
	}
	return ms, nil
}

// Applier runs one migration in a transaction of its own, together with
// its record in the store's schema_migrations table, unless that table
// records it already; it reports whether it ran. Checking inside the
// transaction lets processes starting together apply each migration once.
type Applier[Tx any] func(ctx context.Context, m Migration[Tx]) (ran bool, err error)

// Migrate applies ms in order with apply and returns the names of those
// that ran. It stops at the first that fails, which leaves nothing behind.
func Migrate[Tx any](ctx context.Context, apply Applier[Tx], ms []Migration[Tx]) ([]string, error) {
	var applied []string
	for _, m := range ms {
		ran, err := apply(ctx, m)
		if err != nil {
			return applied, fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if ran {
			applied = append(applied, m.Name)
		}
	}
	return applied, nil
}
