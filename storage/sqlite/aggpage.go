package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// AggregatePage reads one page of the aggregate's archived feed
// (archive.ReadAggregatePage) in one read transaction, its items through
// the item_revisions_agg_seq index, each with its first revision.
func (s *Store) AggregatePage(ctx context.Context, q dynamo.AggregatePageQuery) (*dynamo.AggregatePage, error) {
	if err := archive.CheckAggregatePage(q); err != nil {
		return nil, err
	}
	where, cargs, err := aggregateWhere(q)
	if err != nil {
		return nil, fmt.Errorf("aggregate page %d: %w", q.Number, err)
	}
	var p *dynamo.AggregatePage
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		p, err = archive.ReadAggregatePage(ctx, aggPageTx{tx: tx, category: q.Category, where: where, cargs: cargs}, q)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("aggregate page %d: %w", q.Number, err)
	}
	return p, nil
}

// aggPageTx is SQLite's SQL for archive.ReadAggregatePage, with the page's
// selection compiled (where, over the category and cargs).
type aggPageTx struct {
	tx       *sql.Tx
	category string
	where    string
	cargs    []any
}

// Last implements archive.AggregatePageTx.
func (a aggPageTx) Last(ctx context.Context) (int64, error) {
	var n int64
	err := a.tx.QueryRowContext(ctx, "SELECT n FROM aggregate_counter").Scan(&n)
	return n, err
}

// Items implements archive.AggregatePageTx.
func (a aggPageTx) Items(ctx context.Context, from, to int64) ([]dynamo.ArchivedItem, error) {
	rows, err := a.tx.QueryContext(ctx, aggregatePageSQL(a.where), append([]any{from, to, a.category}, a.cargs...)...)
	return collect(rows, err, archive.ScanItem)
}

// AlsoIn implements archive.AggregatePageTx.
func (a aggPageTx) AlsoIn(ctx context.Context, items []dynamo.AggregatedItem, upTo int64) error {
	return alsoIn(ctx, a.tx, items, upTo)
}

// Older implements archive.AggregatePageTx.
func (a aggPageTx) Older(ctx context.Context, below int64) (int64, error) {
	var n int64
	err := a.tx.QueryRowContext(ctx, aggregateOlderSQL(a.where), append([]any{below, nil, a.category}, a.cargs...)...).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// Date implements archive.AggregatePageTx.
func (a aggPageTx) Date(ctx context.Context, from, to int64) (time.Time, error) {
	var at sql.NullInt64
	if err := a.tx.QueryRowContext(ctx, "SELECT max(first_seen) FROM item_revisions WHERE agg_seq BETWEEN ? AND ?", from, to).Scan(&at); err != nil || !at.Valid {
		return time.Time{}, err
	}
	return goTime(at.Int64), nil
}

// aggregatePageSQL selects the items numbered from ?1 through ?2 that
// where selects, highest number first: a range of the
// item_revisions_agg_seq index (an item's numbers are on its first
// revision, migration 0016).
func aggregatePageSQL(where string) string {
	return `SELECT ` + archive.ItemColumns + `, r.agg_seq FROM item_revisions r ` + itemJoins + `
		WHERE r.agg_seq BETWEEN ?1 AND ?2 AND ` + where + `
		ORDER BY r.agg_seq DESC`
}

// aggregateOlderSQL selects the highest number below ?1 of an item that
// where selects, walking the item_revisions_agg_seq index down.
func aggregateOlderSQL(where string) string {
	return `SELECT r.agg_seq FROM item_revisions r ` + itemJoins + `
		WHERE r.agg_seq < ?1 AND ` + where + ` ORDER BY r.agg_seq DESC LIMIT 1`
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
