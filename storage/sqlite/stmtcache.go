package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"modernc.org/sqlite"
)

// maxCachedStmts bounds each connection's prepared statements. The store's
// statements are a few dozen; queries built from a request's conditions
// add one per shape of conditions, so a full cache is emptied (but for
// statements in use) rather than grown.
const maxCachedStmts = 256

// openDB opens the database through modernc's connector, each connection
// keeping its prepared statements by their SQL. The driver prepares (parses
// and plans) every query it is given as text and finalizes it after; the
// store's queries are the same few texts again and again, and preparing was
// 17 % of an uncached answer's CPU time (issue 21). Every statement of the
// store, reads and writes alike, goes through the cache without any change
// to how it is written.
func openDB(dsn string) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(stmtConnector{c}), nil
}

type stmtConnector struct{ driver.Connector }

func (c stmtConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc := &stmtConn{Conn: conn, stmts: map[string]*cachedStmt{}}
	var ok1, ok2, ok3, ok4, ok5, ok6, ok7 bool
	sc.beginTx, ok1 = conn.(driver.ConnBeginTx)
	sc.prepare, ok2 = conn.(driver.ConnPrepareContext)
	sc.exec, ok3 = conn.(driver.ExecerContext)
	sc.query, ok4 = conn.(driver.QueryerContext)
	sc.ping, ok5 = conn.(driver.Pinger)
	sc.reset, ok6 = conn.(driver.SessionResetter)
	sc.valid, ok7 = conn.(driver.Validator)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !ok7 {
		conn.Close()
		return nil, fmt.Errorf("sqlite driver connection %T lacks an interface the statement cache forwards", conn)
	}
	return sc, nil
}

// stmtConn is a driver connection with its prepared statements. database/sql
// uses a connection from one goroutine at a time, so it needs no lock.
type stmtConn struct {
	driver.Conn
	beginTx driver.ConnBeginTx
	prepare driver.ConnPrepareContext
	exec    driver.ExecerContext
	query   driver.QueryerContext
	ping    driver.Pinger
	reset   driver.SessionResetter
	valid   driver.Validator

	stmts map[string]*cachedStmt
}

// cachedStmt is a prepared statement and whether rows it returned are still
// open: SQLite steps one cursor per statement, so a query run again while
// its earlier rows are read (a nested loop) gets a statement of its own.
type cachedStmt struct {
	stmt interface {
		driver.Stmt
		driver.StmtQueryContext
		driver.StmtExecContext
	}
	busy bool
}

// cached returns the prepared statement for query, preparing it the first
// time; nil when the query is not cached: a script of several statements
// (anything with a ';'), or a statement in use.
func (c *stmtConn) cached(ctx context.Context, query string) (*cachedStmt, error) {
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil, nil
		}
		return cs, nil
	}
	if strings.Contains(query, ";") {
		return nil, nil
	}
	ds, err := c.prepare.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	stmt, ok := ds.(interface {
		driver.Stmt
		driver.StmtQueryContext
		driver.StmtExecContext
	})
	if !ok {
		ds.Close()
		return nil, nil
	}
	if len(c.stmts) >= maxCachedStmts {
		for q, cs := range c.stmts {
			if !cs.busy {
				cs.stmt.Close()
				delete(c.stmts, q)
			}
		}
	}
	cs := &cachedStmt{stmt: stmt}
	c.stmts[query] = cs
	return cs, nil
}

// drop forgets a statement that failed, in case the failure left it in a
// state the next use should not inherit.
func (c *stmtConn) drop(query string, cs *cachedStmt) {
	if c.stmts[query] == cs {
		delete(c.stmts, query)
	}
	cs.stmt.Close()
}

func (c *stmtConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.query.QueryContext(ctx, query, args)
	}
	rows, err := cs.stmt.QueryContext(ctx, args)
	if err != nil {
		c.drop(query, cs)
		return nil, err
	}
	cs.busy = true
	return &stmtRows{Rows: rows, cs: cs}, nil
}

func (c *stmtConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.exec.ExecContext(ctx, query, args)
	}
	res, err := cs.stmt.ExecContext(ctx, args)
	if err != nil {
		c.drop(query, cs)
	}
	return res, err
}

func (c *stmtConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.beginTx.BeginTx(ctx, opts)
}

func (c *stmtConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.prepare.PrepareContext(ctx, query)
}

func (c *stmtConn) Ping(ctx context.Context) error { return c.ping.Ping(ctx) }

func (c *stmtConn) ResetSession(ctx context.Context) error { return c.reset.ResetSession(ctx) }

func (c *stmtConn) IsValid() bool { return c.valid.IsValid() }

// Close finalizes the cached statements, then closes the connection.
func (c *stmtConn) Close() error {
	for q, cs := range c.stmts {
		cs.stmt.Close()
		delete(c.stmts, q)
	}
	return c.Conn.Close()
}

// stmtRows frees its statement for the next query when closed.
type stmtRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *stmtRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}
