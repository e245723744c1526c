package archive

import (
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"
)

// Scanner is one row as both drivers hand it out: pgx.Row and pgx.Rows,
// *sql.Row and *sql.Rows.
type Scanner interface {
	Scan(dest ...any) error
}

// Rows is a result set as both drivers hand it out (pgx.Rows, *sql.Rows).
// The caller closes it: the two drivers' Close differ.
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// Each reads every row of rows with scan and hands it to fn, stopping at
// the first error.
func Each[T any](rows Rows, scan func(Scanner) (T, error), fn func(T) error) error {
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Collect reads every row of rows with scan.
func Collect[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	err := Each(rows, scan, func(v T) error {
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Time is a scan destination for a time column of either store: a
// PostgreSQL timestamptz (time.Time) or an SQLite INTEGER of microseconds
// since the Unix epoch; NULL reads as the zero time. Times come back in
// UTC, as the stores return every time.
func Time(t *time.Time) sql.Scanner { return timeDest{t} }

type timeDest struct{ t *time.Time }

// Scan implements sql.Scanner.
func (d timeDest) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d.t = time.Time{}
	case time.Time:
		*d.t = v.UTC()
	case int64:
		*d.t = time.UnixMicro(v).UTC()
	default:
		return fmt.Errorf("time column: unexpected %T", src)
	}
	return nil
}

// Hash is a scan destination for a version's content hash: PostgreSQL
// keeps its hex form as text, SQLite its bytes as a BLOB (half the size),
// and both read back as dynamo.ContentHash's hex.
func Hash(h *string) sql.Scanner { return hashDest{h} }

type hashDest struct{ h *string }

// Scan implements sql.Scanner.
func (d hashDest) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*d.h = v
	case []byte:
		*d.h = hex.EncodeToString(v)
	default:
		return fmt.Errorf("content hash column: unexpected %T", src)
	}
	return nil
}

// Value reads a row of one column.
func Value[T any](row Scanner) (T, error) {
	var v T
	err := row.Scan(&v)
	return v, err
}
