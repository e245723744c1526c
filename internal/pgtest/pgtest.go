// Package pgtest gives each test a fresh PostgreSQL database of its own on
// the server that the test command provides, so that tests can run in
// parallel and never see each other's rows.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable holding the server's URL;
// scripts/test.sh sets it.
const EnvURL = "DYNAMO_TEST_DATABASE_URL"

// DefaultURL is the server used when EnvURL is not set: the local one that
// scripts/test.sh looks for first.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// ServerURL returns the URL of the test server's maintenance database.
func ServerURL() string {
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	return DefaultURL
}

// DSN creates an empty database for the test and returns its URL; the
// database is dropped when the test ends. A test that needs PostgreSQL must
// not pass without it, so an unreachable server fails the test.
func DSN(t testing.TB) string {
	t.Helper()
	return dsnOn(t, ServerURL())
}

// dsnOn creates an empty database on server for the test, dropped when the
// test ends, and returns its URL.
func dsnOn(t testing.TB, server string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("pgtest: PostgreSQL at %s is unreachable (set %s, or run scripts/test.sh, which provides a server): %v", redact(server), EnvURL, err)
	}
	defer conn.Close(context.Background())

	name := "dynamo_test_" + randomSuffix(t)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() { drop(t, server, name) })

	dsn, err := withDatabase(server, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return dsn
}

// drop removes the test's database, ending any connection the test left
// open (WITH (FORCE), PostgreSQL 13 and later).
func drop(t testing.TB, server, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Errorf("pgtest: drop database %s: %v", name, err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		t.Errorf("pgtest: drop database %s: %v", name, err)
	}
}

// withDatabase returns server's URL pointing at database name instead.
func withDatabase(server, name string) (string, error) {
	u, err := url.Parse(server)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("%s must be a postgres:// URL, not %q", EnvURL, redact(server))
	}
	u.Path = "/" + name
	return u.String(), nil
}

func randomSuffix(t testing.TB) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("pgtest: random database name: %v", err)
	}
	return hex.EncodeToString(b[:])
}

// redact hides a password in a URL meant for a message.
func redact(server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
