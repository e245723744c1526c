package archive

import (
	"context"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
)

// CheckPage checks a page query (dynamo.ArchiveStore.Page) before a store
// reads it: a collection, numbers from 1 with From <= To, valid conditions.
func CheckPage(q dynamo.PageQuery) error {
	if q.From < 1 || q.To < q.From {
		return dynamo.Invalidf("page of %s: items %d to %d: want 1 <= from <= to", q.SourceID, q.From, q.To)
	}
	return dynamo.ValidateConditions(q.Conditions)
}

// HeadNumber is the item whose first version heads a page when the page is
// full (its last item, To), or 0 when it is not (last < To: the newest
// version heads it). A full page's head never changes, and neither do its
// items, numbered before last.
func HeadNumber(q dynamo.PageQuery, last int64) int64 {
	if last >= q.To {
		return q.To
	}
	return 0
}

// OlderPlain is ArchivePage.Older for a query without conditions: the
// number just below the page, when the collection has it.
func OlderPlain(q dynamo.PageQuery, last int64) int64 {
	return max(0, min(q.From-1, last))
}

// PageTx is the SQL a store runs, in one read snapshot, to read a page of
// a collection's archive (dynamo.ArchiveStore.Page); ReadPage decides what
// to read.
type PageTx interface {
	// Last returns the collection's last sequence number and its highest
	// item number of a published version; dynamo.ErrNotFound when there
	// is no such collection.
	Last(ctx context.Context) (lastSeq int, last int64, err error)
	// Items returns the items numbered q.From to q.To whose first revision
	// matches q.Conditions, highest number first, as ScanItem reads them
	// with the number as its extra column.
	Items(ctx context.Context, q dynamo.PageQuery) ([]dynamo.ArchivedItem, error)
	// Older returns the highest number below below of an item whose first
	// revision matches q.Conditions, 0 when there is none.
	Older(ctx context.Context, q dynamo.PageQuery, below int64) (int64, error)
	// FirstSeq returns the sequence number of the version that first held
	// item number n.
	FirstSeq(ctx context.Context, n int64) (int, error)
	// Head reads version seq without its items.
	Head(ctx context.Context, seq, lastSeq int) (*dynamo.Resource, *dynamo.Version, error)
}

// ReadPage reads the page q through tx: the highest published number
// (items beyond it belong to a version not yet published, docs/STORAGE.md
// "Large versions", and are not read), the page's items, the nearest older
// match and the version heading the page.
func ReadPage(ctx context.Context, tx PageTx, q dynamo.PageQuery) (*dynamo.ArchivePage, error) {
	lastSeq, last, err := tx.Last(ctx)
	if err != nil {
		return nil, err
	}
	p := &dynamo.ArchivePage{Last: last}
	page := q
	page.To = min(q.To, last)
	if p.Items, err = tx.Items(ctx, page); err != nil {
		return nil, fmt.Errorf("items: %w", err)
	}
	NumberPage(p.Items)
	if len(q.Conditions) == 0 {
		p.Older = OlderPlain(q, last)
	} else if p.Older, err = tx.Older(ctx, q, min(q.From, last+1)); err != nil {
		return nil, fmt.Errorf("older items: %w", err)
	}
	seq := lastSeq
	if n := HeadNumber(q, last); n > 0 {
		if seq, err = tx.FirstSeq(ctx, n); err != nil {
			return nil, fmt.Errorf("item %d: %w", n, err)
		}
	}
	if seq > 0 {
		if p.Head, p.Version, err = tx.Head(ctx, seq, lastSeq); err != nil {
			return nil, err
		}
	}
	return p, nil
}
