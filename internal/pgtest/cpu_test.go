package pgtest

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A query that keeps its backend busy shows in ServerCPU: at least 50 ms
// of the backend's CPU for a count over ten million rows.
func TestServerCPUGrowsWithQueries(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ServerCPU reads /proc")
	}
	dsn := DSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	before, ok := ServerCPU(dsn)
	if !ok {
		t.Fatal("ServerCPU: not known for a local server")
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, 10000000)").Scan(&n); err != nil {
		t.Fatal(err)
	}
	after, _ := ServerCPU(dsn)
	if used := after - before; used < 50*time.Millisecond {
		t.Errorf("ServerCPU grew by %v over a count of %d rows, want at least 50ms", used, n)
	}
}
