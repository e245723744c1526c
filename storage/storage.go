// Package storage opens the store a DSN names: PostgreSQL for deployments
// shared by several processes, or the embedded SQLite file that needs no
// server (the default for a first run). docs/STORAGE.md describes both.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
	"github.com/dynamo-feeds/dynamo/storage/sqlite"
)

// Open opens the store named by dsn and applies its migrations:
// postgres:// and postgresql:// URLs open PostgreSQL; "sqlite:PATH" or a
// plain file path opens an embedded SQLite file. Replicas, PostgreSQL
// only, are the URLs of hot standbys of dsn's server, which then answer
// reads (postgres.Replicated).
func Open(ctx context.Context, dsn string, replicas ...string) (dynamo.Store, error) {
	switch kind, target := parse(dsn); {
	case kind == kindPostgres && len(replicas) > 0:
		for _, r := range replicas {
			if k, _ := parse(r); k != kindPostgres {
				return nil, fmt.Errorf("storage: a read replica must be a postgres:// URL: %w", dynamo.ErrInvalid)
			}
		}
		return postgres.OpenReplicated(ctx, target, replicas)
	case len(replicas) > 0:
		return nil, fmt.Errorf("storage: read replicas need PostgreSQL, and %q is not a postgres:// URL: %w", dsn, dynamo.ErrInvalid)
	case kind == kindPostgres:
		return postgres.Open(ctx, target)
	case kind == kindSQLite:
		return sqlite.Open(ctx, target)
	default:
		return nil, fmt.Errorf("storage: %q is neither a postgres:// URL nor a file path: %w", dsn, dynamo.ErrInvalid)
	}
}

// OpenExisting opens the store dsn names, as Open does, but refuses an
// embedded store's file that does not exist rather than creating it (an
// error wrapping dynamo.ErrNotFound): for the commands that only read a
// store (dynamo query, dynamo sources export), where a mistyped path
// would otherwise answer from a new, empty store, as if it had no
// sources, and leave its file behind.
func OpenExisting(ctx context.Context, dsn string) (dynamo.Store, error) {
	if kind, path := parse(dsn); kind == kindSQLite {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("storage: no embedded store at %s (dynamo serve or dynamo migrate creates one; give --db or DATABASE_URL for another): %w", path, dynamo.ErrNotFound)
		}
	}
	return Open(ctx, dsn)
}

// Applied names the migrations that opening store applied, for stores that
// record them; ok is false for a store that does not say.
func Applied(store dynamo.Store) (names []string, ok bool) {
	m, ok := store.(interface{ Applied() []string })
	if !ok {
		return nil, false
	}
	return m.Applied(), true
}

type kind int

const (
	kindUnknown kind = iota
	kindPostgres
	kindSQLite
)

// parse tells which store a DSN names, and what to pass that store's Open.
func parse(dsn string) (kind, string) {
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return kindPostgres, dsn
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" {
			return kindUnknown, ""
		}
		return kindSQLite, path
	case dsn == "" || strings.Contains(dsn, "://"):
		return kindUnknown, ""
	default:
		return kindSQLite, dsn
	}
}
