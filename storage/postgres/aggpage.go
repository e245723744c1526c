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

// AggregatePage reads one page of the aggregate's archived feed
// (archive.ReadAggregatePage) in one read-only repeatable-read
// transaction: the highest number handed out (the counter's row,
// committed in the order numbers were handed out), the page's items
// through the items_agg_seq index, each with its first revision.
func (s *Store) AggregatePage(ctx context.Context, q dynamo.AggregatePageQuery) (*dynamo.AggregatePage, error) {
	if err := archive.CheckAggregatePage(q); err != nil {
		return nil, err
	}
	var p *dynamo.AggregatePage
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		p, err = archive.ReadAggregatePage(ctx, aggPageTx{tx: tx, q: q}, q)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("aggregate page %d: %w", q.Number, err)
	}
	return p, nil
}

// aggPageTx is PostgreSQL's SQL for archive.ReadAggregatePage, for the
// query q.
type aggPageTx struct {
	tx pgx.Tx
	q  dynamo.AggregatePageQuery
}

// Last implements archive.AggregatePageTx.
func (a aggPageTx) Last(ctx context.Context) (int64, error) {
	var n int64
	err := a.tx.QueryRow(ctx, "SELECT n FROM aggregate_counter").Scan(&n)
	return n, err
}

// Items implements archive.AggregatePageTx.
func (a aggPageTx) Items(ctx context.Context, from, to int64) ([]dynamo.ArchivedItem, error) {
	sq, err := aggregatePageQuery(a.q, from, to)
	if err != nil {
		return nil, err
	}
	rows, err := a.tx.Query(ctx, sq.sql, sq.args...)
	return collect(rows, err, archive.ScanItem)
}

// AlsoIn implements archive.AggregatePageTx.
func (a aggPageTx) AlsoIn(ctx context.Context, items []dynamo.AggregatedItem, upTo int64) error {
	return alsoIn(ctx, a.tx, items, upTo)
}

// Older implements archive.AggregatePageTx.
func (a aggPageTx) Older(ctx context.Context, below int64) (int64, error) {
	sq, err := aggregateOlderQuery(a.q, below)
	if err != nil {
		return 0, err
	}
	var n int64
	err = a.tx.QueryRow(ctx, sq.sql, sq.args...).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// Date implements archive.AggregatePageTx.
func (a aggPageTx) Date(ctx context.Context, from, to int64) (time.Time, error) {
	var at *time.Time
	if err := a.tx.QueryRow(ctx, "SELECT max(first_seen) FROM items WHERE agg_seq BETWEEN $1 AND $2", from, to).Scan(&at); err != nil || at == nil {
		return time.Time{}, err
	}
	return at.UTC(), nil
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
