package pgtest

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// DSN gives each test a database of its own, and drops it when the test
// ends.
func TestDSNCreatesAndDrops(t *testing.T) {
	ctx := context.Background()
	var names []string
	for range 2 {
		t.Run("test", func(t *testing.T) {
			dsn := DSN(t)
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatalf("connect to %s: %v", dsn, err)
			}
			defer conn.Close(ctx)
			var name string
			if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(dsn)
			if name != strings.TrimPrefix(u.Path, "/") || !strings.HasPrefix(name, "dynamo_test_") {
				t.Errorf("connected to %q through %s", name, dsn)
			}
			names = append(names, name)
		})
	}
	if len(names) != 2 || names[0] == names[1] {
		t.Fatalf("databases %v, want two different ones", names)
	}
	conn, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = ANY($1)", names).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d of the test databases remain after their tests (%v)", left, err)
	}
}

func TestWithDatabase(t *testing.T) {
	tests := []struct{ server, want string }{
		{"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "postgres://postgres@127.0.0.1:5432/d?sslmode=disable"},
		{"postgresql://u:p@[::1]:55432/", "postgresql://u:p@[::1]:55432/d"},
	}
	for _, tt := range tests {
		if got, err := withDatabase(tt.server, "d"); got != tt.want || err != nil {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", tt.server, got, err, tt.want)
		}
	}
	if _, err := withDatabase("host=127.0.0.1 dbname=x", "d"); err == nil {
		t.Error("a key=value string was accepted as a URL")
	}
}
