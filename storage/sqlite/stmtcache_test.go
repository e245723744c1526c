package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// The statement cache gives the answers of unprepared statements: a query
// run again while its earlier rows are still read, more distinct queries
// than the cache holds, scripts, and a failing statement followed by a
// good one.
func TestStatementCache(t *testing.T) {
	ctx := context.Background()
	db, err := openDB(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // every statement on the one connection and its cache
	if _, err := db.ExecContext(ctx, "CREATE TABLE n (v INTEGER); INSERT INTO n VALUES (1), (2), (3)"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const q = "SELECT v FROM n WHERE v >= ? ORDER BY v"
	outer, err := tx.QueryContext(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for outer.Next() {
		var a int
		if err := outer.Scan(&a); err != nil {
			t.Fatal(err)
		}
		inner, err := tx.QueryContext(ctx, q, a) // the same text while outer is open
		if err != nil {
			t.Fatal(err)
		}
		for inner.Next() {
			var b int
			if err := inner.Scan(&b); err != nil {
				t.Fatal(err)
			}
			pairs = append(pairs, fmt.Sprint(a, b))
		}
		inner.Close()
	}
	if err := outer.Err(); err != nil {
		t.Fatal(err)
	}
	outer.Close()
	tx.Rollback()
	if got := fmt.Sprint(pairs); got != "[1 1 1 2 1 3 2 2 2 3 3 3]" {
		t.Errorf("nested queries gave %s", got)
	}

	for i := range 2*maxCachedStmts + 10 { // more texts than the cache holds
		var v int
		if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT v + %d FROM n WHERE v = ?", i), 2).Scan(&v); err != nil || v != i+2 {
			t.Fatalf("query %d: %d, %v", i, v, err)
		}
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn.Raw(func(dc any) error {
		if n := len(dc.(*stmtConn).stmts); n == 0 || n > maxCachedStmts {
			t.Errorf("the connection caches %d statements, want 1 to %d", n, maxCachedStmts)
		}
		return nil
	})
	conn.Close()
	if _, err := db.ExecContext(ctx, "INSERT INTO missing VALUES (?)", 1); err == nil {
		t.Error("an insert into a missing table succeeded")
	}
	for range 3 {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM n WHERE v > ?", 1).Scan(&n); err != nil || n != 2 {
			t.Fatalf("count: %d, %v", n, err)
		}
		if _, err := db.ExecContext(ctx, "UPDATE n SET v = v WHERE v = ?", 3); err != nil {
			t.Fatal(err)
		}
	}
}
