package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/dynamo-feeds/dynamo/storage"
)

func init() {
	register("migrate", "apply the store's schema migrations", runMigrate)
}

// defaultDSN is the store used without --db: $DATABASE_URL, else an
// embedded SQLite file in the working directory.
func defaultDSN() string {
	if dsn := os.Getenv("DATABASE_URL"); dsn != "" {
		return dsn
	}
	return "dynamo.db"
}

// runMigrate opens the store, which applies the migrations it lacks, and
// prints which ones it applied.
func runMigrate(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(s.err)
	db := fs.String("db", defaultDSN(), "store: a postgres:// URL, sqlite:PATH or a file path (default $DATABASE_URL, else dynamo.db)")
	positional, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(positional) > 0 {
		fmt.Fprintf(s.err, "dynamo migrate: unexpected arguments %q\n", positional)
		return 2
	}
	store, err := storage.Open(ctx, *db)
	if err != nil {
		fmt.Fprintf(s.err, "dynamo migrate: %v\n", err)
		return 1
	}
	defer store.Close()
	names, ok := storage.Applied(store)
	switch {
	case !ok:
		fmt.Fprintln(s.out, "migrations applied")
	case len(names) == 0:
		fmt.Fprintln(s.out, "up to date: no migration to apply")
	default:
		for _, name := range names {
			fmt.Fprintf(s.out, "applied %s\n", name)
		}
	}
	return 0
}
