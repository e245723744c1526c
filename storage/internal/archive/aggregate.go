package archive

import (
	"context"
	"fmt"
	"time"

	"github.com/dynamo-feeds/dynamo"
)

// CheckAggregatePage checks an aggregate page query
// (dynamo.ArchiveStore.AggregatePage) before a store reads it: a page from
// 1 (or 0, the current one), a size from 1, valid conditions.
func CheckAggregatePage(q dynamo.AggregatePageQuery) error {
	if q.Number < 0 || q.Size < 1 || q.Number > (1<<62)/q.Size {
		return dynamo.Invalidf("aggregate page %d of %d items: want a page from 1 (0: the current one) and a size from 1", q.Number, q.Size)
	}
	return dynamo.ValidateConditions(q.Conditions)
}

// AggregateBounds is the page q reads once the store knows last, the
// highest aggregate number handed out: its number (the current page's for
// 0: the one holding number last+1) and its first and last numbers.
func AggregateBounds(q dynamo.AggregatePageQuery, last int64) (n, from, to int64) {
	n = q.Number
	if n == 0 {
		n = last/q.Size + 1
	}
	return n, (n-1)*q.Size + 1, n * q.Size
}

// AggregatePageTx is the SQL a store runs, in one read snapshot, to read a
// page of the aggregate's archived feed (dynamo.ArchiveStore.AggregatePage)
// for one query, its selection (category, conditions, duplicates) compiled
// into the store's statements; ReadAggregatePage decides what to read.
type AggregatePageTx interface {
	// Last returns the highest aggregate number handed out.
	Last(ctx context.Context) (int64, error)
	// Items returns the items numbered from to to that the query selects,
	// highest number first, as ScanItem reads them with the number as its
	// extra column.
	Items(ctx context.Context, from, to int64) ([]dynamo.ArchivedItem, error)
	// AlsoIn names in each item the copies recorded of it with an
	// aggregate number up to upTo.
	AlsoIn(ctx context.Context, items []dynamo.AggregatedItem, upTo int64) error
	// Older returns the highest number below below of an item the query
	// selects, 0 when there is none.
	Older(ctx context.Context, below int64) (int64, error)
	// Date returns the latest first seen of the items numbered from to to,
	// the zero time when there is none.
	Date(ctx context.Context, from, to int64) (time.Time, error)
}

// ReadAggregatePage reads the page q through tx: the highest number
// handed out (numbers beyond it are not read), the page's items with the
// copies numbered by the page's end, the nearest older match and the
// page's date.
func ReadAggregatePage(ctx context.Context, tx AggregatePageTx, q dynamo.AggregatePageQuery) (*dynamo.AggregatePage, error) {
	last, err := tx.Last(ctx)
	if err != nil {
		return nil, fmt.Errorf("last number: %w", err)
	}
	p := &dynamo.AggregatePage{Last: last}
	var from, to int64
	p.Number, from, to = AggregateBounds(q, last)
	items, err := tx.Items(ctx, from, min(to, last))
	if err != nil {
		return nil, fmt.Errorf("items: %w", err)
	}
	NumberPage(items)
	p.Items = Aggregated(items)
	if err := tx.AlsoIn(ctx, p.Items, to); err != nil {
		return nil, err
	}
	if p.Older, err = tx.Older(ctx, min(from, last+1)); err != nil {
		return nil, fmt.Errorf("older items: %w", err)
	}
	if p.At, err = tx.Date(ctx, from, to); err != nil {
		return nil, fmt.Errorf("page date: %w", err)
	}
	return p, nil
}
