package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// AggregatePage reads one page of the aggregate's archived feed in one
// read-only repeatable-read transaction: the highest number handed out
// (the counter's row, committed in the order numbers were handed out), the
// page's items through the items_agg_seq index, each with its first
// revision and the copies published by the page's end, the nearest older
// match and the page's date.
func (s *Store) AggregatePage(ctx context.Context, q dynamo.AggregatePageQuery) (*dynamo.AggregatePage, error) {
	if err := archive.CheckAggregatePage(q); err != nil {
		return nil, err
	}
	p := &dynamo.AggregatePage{}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT n FROM aggregate_counter").Scan(&p.Last); err != nil {
			return fmt.Errorf("last number: %w", err)
		}
		n, from, to := archive.AggregateBounds(q, p.Last)
		p.Number = n
		sq, err := aggregatePageQuery(q, from, min(to, p.Last))
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sq.sql, sq.args...)
		items, err := collect(rows, err, archive.ScanItem)
		if err != nil {
			return fmt.Errorf("items: %w", err)
		}
		archive.NumberPage(items)
		p.Items = archive.Aggregated(items)
		if err := alsoIn(ctx, tx, p.Items, to); err != nil {
			return err
		}
		if sq, err = aggregateOlderQuery(q, min(from, p.Last+1)); err != nil {
			return err
		}
		err = tx.QueryRow(ctx, sq.sql, sq.args...).Scan(&p.Older)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("older items: %w", err)
		}
		var at *time.Time
		if err := tx.QueryRow(ctx, "SELECT max(first_seen) FROM items WHERE agg_seq BETWEEN $1 AND $2", from, to).Scan(&at); err != nil {
			return fmt.Errorf("page date: %w", err)
		}
		if at != nil {
			p.At = at.UTC()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("aggregate page %d: %w", q.Number, err)
	}
	return p, nil
}

// aggregatePageQuery selects the items numbered from through to that q
// selects, highest number first: a range of the items_agg_seq index.
func aggregatePageQuery(q dynamo.AggregatePageQuery, from, to int64) (query, error) {
	where, args, err := aggregateWhere(q, []any{from, to})
	if err != nil {
		return query{}, err
	}
	return query{`SELECT ` + archive.ItemColumns + `, p.agg_seq
		FROM items p JOIN item_revisions r ON r.rev_id = p.first_rev ` + archive.ItemJoins + `
		WHERE p.agg_seq BETWEEN $1 AND $2 AND ` + where + `
		ORDER BY p.agg_seq DESC`, args}, nil
}

// aggregateOlderQuery selects the highest number below below of an item q
// selects, walking the items_agg_seq index down.
func aggregateOlderQuery(q dynamo.AggregatePageQuery, below int64) (query, error) {
	where, args, err := aggregateWhere(q, []any{below})
	if err != nil {
		return query{}, err
	}
	return query{`SELECT p.agg_seq FROM items p JOIN item_revisions r ON r.rev_id = p.first_rev ` + archive.ItemJoins + `
		WHERE p.agg_seq < $1 AND ` + where + ` ORDER BY p.agg_seq DESC LIMIT 1`, args}, nil
}

// aggregateWhere compiles what an aggregate page selects, over the
// revision r, its source s and its duplicate record d, with the category
// and the conditions' values numbered after args.
func aggregateWhere(q dynamo.AggregatePageQuery, args []any) (string, []any, error) {
	args = append(args, q.Category)
	where := fmt.Sprintf("($%d = '' OR s.category = $%d)", len(args), len(args))
	cond, args, err := conditionSQL(q.Conditions, args)
	if err != nil {
		return "", nil, err
	}
	where += " AND " + cond
	if !q.IncludeDuplicates {
		where += " AND d.source_id IS NULL"
	}
	return where, args, nil
}
