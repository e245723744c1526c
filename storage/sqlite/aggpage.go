package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// AggregatePage reads one page of the aggregate's archived feed in one
// read transaction: the highest number handed out, the page's items
// through the items_agg_seq index, each with its first revision and the
// copies published by the page's end, the nearest older match and the
// page's date.
func (s *Store) AggregatePage(ctx context.Context, q dynamo.AggregatePageQuery) (*dynamo.AggregatePage, error) {
	if err := archive.CheckAggregatePage(q); err != nil {
		return nil, err
	}
	where, cargs, err := aggregateWhere(q)
	if err != nil {
		return nil, fmt.Errorf("aggregate page %d: %w", q.Number, err)
	}
	p := &dynamo.AggregatePage{}
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "SELECT n FROM aggregate_counter").Scan(&p.Last); err != nil {
			return fmt.Errorf("last number: %w", err)
		}
		n, from, to := archive.AggregateBounds(q, p.Last)
		p.Number = n
		args := append([]any{from, min(to, p.Last), q.Category}, cargs...)
		rows, err := tx.QueryContext(ctx, aggregatePageSQL(where), args...)
		items, err := collect(rows, err, archive.ScanItem)
		if err != nil {
			return fmt.Errorf("items: %w", err)
		}
		archive.NumberPage(items)
		p.Items = archive.Aggregated(items)
		if err := alsoIn(ctx, tx, p.Items, to); err != nil {
			return err
		}
		args = append([]any{min(from, p.Last+1), nil, q.Category}, cargs...)
		err = tx.QueryRowContext(ctx, aggregateOlderSQL(where), args...).Scan(&p.Older)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("older items: %w", err)
		}
		var at sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT max(first_seen) FROM items WHERE agg_seq BETWEEN ? AND ?", from, to).Scan(&at); err != nil {
			return fmt.Errorf("page date: %w", err)
		}
		if at.Valid {
			p.At = goTime(at.Int64)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("aggregate page %d: %w", q.Number, err)
	}
	return p, nil
}

// aggregatePageSQL selects the items numbered from ?1 through ?2 that
// where selects, highest number first: a range of the items_agg_seq index.
func aggregatePageSQL(where string) string {
	return `SELECT ` + archive.ItemColumns + `, p.agg_seq
		FROM items p JOIN item_revisions r ON r.rev_id = p.first_rev ` + archive.ItemJoins + `
		WHERE p.agg_seq BETWEEN ?1 AND ?2 AND ` + where + `
		ORDER BY p.agg_seq DESC`
}

// aggregateOlderSQL selects the highest number below ?1 of an item that
// where selects, walking the items_agg_seq index down.
func aggregateOlderSQL(where string) string {
	return `SELECT p.agg_seq FROM items p JOIN item_revisions r ON r.rev_id = p.first_rev ` + archive.ItemJoins + `
		WHERE p.agg_seq < ?1 AND ` + where + ` ORDER BY p.agg_seq DESC LIMIT 1`
}

// aggregateWhere compiles what an aggregate page selects, over the
// revision r, its source s and its duplicate record d: the category is
// ?3, the conditions' values follow as cargs.
func aggregateWhere(q dynamo.AggregatePageQuery) (where string, cargs []any, err error) {
	cond, cargs, err := conditionSQL(q.Conditions)
	if err != nil {
		return "", nil, err
	}
	where = "(?3 = '' OR s.category = ?3) AND " + cond
	if !q.IncludeDuplicates {
		where += " AND d.source_id IS NULL"
	}
	return where, cargs, nil
}
