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

// storeDSN is the store a command opens: its --db when given, else
// $DATABASE_URL, else an embedded SQLite file in the working directory.
// The --db flags default to "" and are resolved here, after parsing,
// rather than taking $DATABASE_URL as their default value: the flag
// package prints a default in --help, and a postgres:// URL may hold a
// password.
func storeDSN(db string) string {
	if db != "" {
		return db
	}
	if dsn := os.Getenv("DATABASE_URL"); dsn != "" {
		return dsn
	}
	return "dynamo.db"
}

const migrateUsage = `usage: dynamo migrate [--db DSN]

Applies the store's schema migrations that it lacks (serve applies them on
start too) and prints "applied NAME" for each, or "up to date: no migration
to apply" (docs/STORAGE.md "Migrations"). The exit code is 1 when the store
cannot be opened or migrated, 2 for a mistake on the command line.
`

// runMigrate opens the store, which applies the migrations it lacks, and
// prints which ones it applied.
func runMigrate(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = func() { fmt.Fprint(s.err, migrateUsage+"\nflags:\n"); fs.PrintDefaults() }
	db := fs.String("db", "", "store: a postgres:// URL, sqlite:PATH or a file path (default $DATABASE_URL, else dynamo.db)")
	positional, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(positional) > 0 {
		fmt.Fprintf(s.err, "dynamo migrate: unexpected arguments %q\n", positional)
		return 2
	}
	store, err := storage.Open(ctx, storeDSN(*db))
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
