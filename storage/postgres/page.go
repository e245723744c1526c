package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// Page reads one page of a collection's archive (archive.ReadPage) in one
// read-only repeatable-read transaction (one snapshot: a page read as full
// has all its items), its items through the items_arch_seq index, each
// with its first revision.
func (s *Store) Page(ctx context.Context, q dynamo.PageQuery) (*dynamo.ArchivePage, error) {
	if err := archive.CheckPage(q); err != nil {
		return nil, err
	}
	var p *dynamo.ArchivePage
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		p, err = archive.ReadPage(ctx, pageTx{tx: tx, source: q.SourceID}, q)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("page of %s: %w", q.SourceID, err)
	}
	return p, nil
}

// pageTx is PostgreSQL's SQL for archive.ReadPage.
type pageTx struct {
	tx     pgx.Tx
	source string
}

// Last implements archive.PageTx.
func (p pageTx) Last(ctx context.Context) (lastSeq int, last int64, err error) {
	err = p.tx.QueryRow(ctx, `SELECT s.last_seq, (SELECT coalesce(max(arch_seq), 0) FROM items
			WHERE source_id = s.id AND first_seq <= s.last_seq)
		FROM sources s WHERE s.id = $1`, p.source).Scan(&lastSeq, &last)
	if err != nil {
		return 0, 0, fmt.Errorf("collection %s: %w", p.source, notFound(err))
	}
	return lastSeq, last, nil
}

// Items implements archive.PageTx: a range of the items_arch_seq index.
func (p pageTx) Items(ctx context.Context, q dynamo.PageQuery) ([]dynamo.ArchivedItem, error) {
	sq, err := pageQuery(q)
	if err != nil {
		return nil, err
	}
	rows, err := p.tx.Query(ctx, sq.sql, sq.args...)
	return collect(rows, err, archive.ScanItem)
}

// pageQuery selects the items numbered q.From through q.To whose first
// revision matches the conditions, highest number first: a range of the
// items_arch_seq index.
func pageQuery(q dynamo.PageQuery) (query, error) {
	where, args, err := conditionSQL(q.Conditions, []any{q.SourceID, q.From, q.To})
	if err != nil {
		return query{}, err
	}
	return query{`SELECT ` + archive.ItemColumns + `, p.arch_seq
		FROM items p JOIN item_revisions r ON r.rev_id = p.first_rev ` + archive.ItemJoins + `
		WHERE p.source_id = $1 AND p.arch_seq BETWEEN $2 AND $3 AND ` + where + `
		ORDER BY p.arch_seq DESC`, args}, nil
}

// Older implements archive.PageTx, walking the numbers' index down.
func (p pageTx) Older(ctx context.Context, q dynamo.PageQuery, below int64) (int64, error) {
	where, args, err := conditionSQL(q.Conditions, []any{q.SourceID, below})
	if err != nil {
		return 0, err
	}
	var n int64
	err = p.tx.QueryRow(ctx, `SELECT p.arch_seq FROM items p JOIN item_revisions r ON r.rev_id = p.first_rev
		WHERE p.source_id = $1 AND p.arch_seq < $2 AND `+where+`
		ORDER BY p.arch_seq DESC LIMIT 1`, args...).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// FirstSeq implements archive.PageTx.
func (p pageTx) FirstSeq(ctx context.Context, n int64) (int, error) {
	var seq int
	err := p.tx.QueryRow(ctx, "SELECT first_seq FROM items WHERE source_id = $1 AND arch_seq = $2", p.source, n).Scan(&seq)
	return seq, err
}

// Head implements archive.PageTx.
func (p pageTx) Head(ctx context.Context, seq, lastSeq int) (*dynamo.Resource, *dynamo.Version, error) {
	v := &dynamo.Version{SourceID: p.source, Seq: seq, Index: lastSeq - seq + 1}
	doc, err := archive.ScanHead(p.tx.QueryRow(ctx, `SELECT url, rss_id, stamp, `+versionChannel("versions")+`, seen_at, hash, title, item_count, added, removed
		FROM versions WHERE source_id = $1 AND seq = $2`, p.source, seq), v)
	if err != nil {
		return nil, nil, fmt.Errorf("version %d: %w", seq, notFound(err))
	}
	return doc, v, nil
}
