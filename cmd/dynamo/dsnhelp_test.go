package main

import (
	"strings"
	"testing"
)

// TestHelpKeepsDatabaseURLSecret: the --db flags name $DATABASE_URL as
// their default in words, never its value, which for PostgreSQL may carry
// a password (postgres://user:PASSWORD@host/db) that --help would print to
// a terminal or a pasted bug report.
func TestHelpKeepsDatabaseURLSecret(t *testing.T) {
	const secret = "s3cret-pw"
	t.Setenv("DATABASE_URL", "postgres://dynamo:"+secret+"@db.invalid/dynamo")
	for _, cmd := range [][]string{{"serve"}, {"migrate"}, {"query"}, {"sources", "import"}, {"sources", "export"}} {
		code, stdout, stderr := run(t, "", append(cmd, "--help")...)
		if code != 0 || !strings.Contains(stderr+stdout, "-db") {
			t.Fatalf("dynamo %s --help: exit %d without the --db flag; stdout %q, stderr %q", strings.Join(cmd, " "), code, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, secret) {
			t.Errorf("dynamo %s --help prints $DATABASE_URL's password: %q", strings.Join(cmd, " "), stdout+stderr)
		}
	}
}

// TestStoreDSN: --db wins, then $DATABASE_URL, then the embedded store's
// file in the working directory.
func TestStoreDSN(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	if got := storeDSN(""); got != "dynamo.db" {
		t.Errorf("no --db, no $DATABASE_URL: %q, want dynamo.db", got)
	}
	t.Setenv("DATABASE_URL", "postgres://h/env")
	if got := storeDSN(""); got != "postgres://h/env" {
		t.Errorf("no --db: %q, want $DATABASE_URL", got)
	}
	if got := storeDSN("other.db"); got != "other.db" {
		t.Errorf("--db other.db: %q, want other.db", got)
	}
}

// TestMigrateUsage: migrate's help is written like every other command's,
// a usage line first, rather than the flag package's "Usage of migrate:".
func TestMigrateUsage(t *testing.T) {
	code, _, stderr := run(t, "", "migrate", "--help")
	if code != 0 || !strings.HasPrefix(stderr, "usage: dynamo migrate [--db DSN]\n") {
		t.Errorf("dynamo migrate --help: exit %d, stderr %q; want 0 and the usage line first", code, stderr)
	}
}
