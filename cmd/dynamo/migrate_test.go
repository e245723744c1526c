package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynamo-feeds/dynamo/internal/pgtest"
)

// migrate runs "dynamo migrate" with args and returns its exit code and
// output.
func migrate(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = dispatch(context.Background(), append([]string{"migrate"}, args...), stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// dynamo migrate applies the migrations once, says which, and finds
// nothing to do the second time, in PostgreSQL and in the embedded store.
func TestMigrate(t *testing.T) {
	t.Parallel()
	stores := map[string]string{
		"postgres":       pgtest.DSN(t),
		"embedded file":  filepath.Join(t.TempDir(), "dynamo.db"),
		"sqlite: prefix": "sqlite:" + filepath.Join(t.TempDir(), "other.db"),
	}
	for name, dsn := range stores {
		t.Run(name, func(t *testing.T) {
			if code, out, stderr := migrate("--db", dsn); code != 0 || !strings.Contains(out, "applied 0001_initial.sql") {
				t.Errorf("first run: exit %d, output %q, stderr %q", code, out, stderr)
			}
			if code, out, stderr := migrate("--db", dsn); code != 0 || strings.TrimSpace(out) != "up to date: no migration to apply" {
				t.Errorf("second run: exit %d, output %q, stderr %q", code, out, stderr)
			}
		})
	}
}

// A store that cannot be opened exits 1 with the reason; a mistake on the
// command line exits 2.
func TestMigrateErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"unknown DSN scheme", []string{"--db", "mysql://127.0.0.1/x"}, 1, "mysql://"},
		{"a directory that does not exist", []string{"--db", filepath.Join(t.TempDir(), "missing", "dir", "x.db")}, 1, "missing"},
		{"unknown flag", []string{"--force"}, 2, "force"},
		{"an argument", []string{"now"}, 2, "unexpected arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := migrate(tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, stderr, tc.code, tc.want)
			}
		})
	}
}
