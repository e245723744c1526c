package storage

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/internal/pgtest"
)

func TestParse(t *testing.T) {
	tests := []struct {
		dsn    string
		kind   kind
		target string
	}{
		{"postgres://u@127.0.0.1/db?sslmode=disable", kindPostgres, "postgres://u@127.0.0.1/db?sslmode=disable"},
		{"postgresql://127.0.0.1/db", kindPostgres, "postgresql://127.0.0.1/db"},
		{"sqlite:/var/lib/dynamo.db", kindSQLite, "/var/lib/dynamo.db"},
		{"sqlite:dynamo.db", kindSQLite, "dynamo.db"},
		{"dynamo.db", kindSQLite, "dynamo.db"},
		{"./data/archive.sqlite", kindSQLite, "./data/archive.sqlite"},
		{"sqlite:", kindUnknown, ""},
		{"", kindUnknown, ""},
		{"mysql://127.0.0.1/db", kindUnknown, ""},
	}
	for _, tt := range tests {
		k, target := parse(tt.dsn)
		if k != tt.kind || target != tt.target {
			t.Errorf("parse(%q) = %v, %q; want %v, %q", tt.dsn, k, target, tt.kind, tt.target)
		}
	}
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for name, dsn := range map[string]string{
		"postgres": pgtest.DSN(t),
		"sqlite":   "sqlite:" + filepath.Join(t.TempDir(), "dynamo.db"),
		"path":     filepath.Join(t.TempDir(), "plain.db"),
	} {
		s, err := Open(ctx, dsn)
		if err != nil {
			t.Fatalf("%s: Open: %v", name, err)
		}
		if err := s.PutSetting(ctx, "k", name); err != nil {
			t.Errorf("%s: PutSetting: %v", name, err)
		}
		if v, err := s.Setting(ctx, "k"); v != name || err != nil {
			t.Errorf("%s: Setting = %q, %v", name, v, err)
		}
		s.Close()
	}
	if _, err := Open(ctx, "mysql://127.0.0.1/db"); !errors.Is(err, dynamo.ErrInvalid) {
		t.Errorf("Open(mysql://…): %v, want ErrInvalid", err)
	}
}

// Read replicas are PostgreSQL's: beside an embedded store, or given as
// anything but a postgres:// URL, they are refused before anything opens.
func TestOpenReplicasRefused(t *testing.T) {
	ctx := context.Background()
	for name, args := range map[string][]string{
		"sqlite primary":  {filepath.Join(t.TempDir(), "dynamo.db"), "postgres://127.0.0.1:1/db"},
		"sqlite replica":  {"postgres://127.0.0.1:1/db", "replica.db"},
		"unknown replica": {"postgres://127.0.0.1:1/db", "mysql://127.0.0.1/db"},
	} {
		if _, err := Open(ctx, args[0], args[1:]...); !errors.Is(err, dynamo.ErrInvalid) {
			t.Errorf("%s: Open: %v, want ErrInvalid", name, err)
		}
	}
}
