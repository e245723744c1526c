package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// Page reads one page of a collection's archive (archive.ReadPage) in one
// read transaction, its items through the item_revisions_arch_seq index,
// each with its first revision.
func (s *Store) Page(ctx context.Context, q dynamo.PageQuery) (*dynamo.ArchivePage, error) {
	if err := archive.CheckPage(q); err != nil {
		return nil, err
	}
	where, cargs, err := conditionSQL(q.Conditions)
	if err != nil {
		return nil, fmt.Errorf("page of %s: %w", q.SourceID, err)
	}
	var p *dynamo.ArchivePage
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		p, err = archive.ReadPage(ctx, pageTx{s: s, tx: tx, source: q.SourceID, where: where, cargs: cargs}, q)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("page of %s: %w", q.SourceID, err)
	}
	return p, nil
}

// pageTx is SQLite's SQL for archive.ReadPage, with the page's conditions
// compiled (where, over cargs).
type pageTx struct {
	s      *Store
	tx     *sql.Tx
	source string
	where  string
	cargs  []any
}

// Last implements archive.PageTx.
func (p pageTx) Last(ctx context.Context) (lastSeq int, last int64, err error) {
	if lastSeq, err = p.s.lastSeq(ctx, p.tx, p.source); err != nil {
		return 0, 0, err
	}
	err = p.tx.QueryRowContext(ctx, `SELECT coalesce(max(arch_seq), 0) FROM item_revisions
		WHERE source_id = ?1 AND arch_seq IS NOT NULL AND rev_id <= (SELECT published_rev FROM sources WHERE id = ?1)`,
		p.source).Scan(&last)
	if err != nil {
		return 0, 0, fmt.Errorf("last item: %w", err)
	}
	return lastSeq, last, nil
}

// Items implements archive.PageTx.
func (p pageTx) Items(ctx context.Context, q dynamo.PageQuery) ([]dynamo.ArchivedItem, error) {
	rows, err := p.tx.QueryContext(ctx, pageSQL(p.where), append([]any{p.source, q.From, q.To}, p.cargs...)...)
	return collect(rows, err, archive.ScanItem)
}

// pageSQL selects the items numbered from ? through ? of source ? whose
// first revision (the one numbered, migration 0016) matches where, highest
// number first: a range of the item_revisions_arch_seq index.
func pageSQL(where string) string {
	return `SELECT ` + archive.ItemColumns + `, r.arch_seq FROM item_revisions r ` + itemJoins + `
		WHERE r.source_id = ? AND r.arch_seq BETWEEN ? AND ? AND ` + where + `
		ORDER BY r.arch_seq DESC`
}

// olderSQL selects the highest number below ? of an item of source ? whose
// first revision matches where, walking the item_revisions_arch_seq index
// down.
func olderSQL(where string) string {
	return `SELECT r.arch_seq FROM item_revisions r
		WHERE r.source_id = ? AND r.arch_seq < ? AND ` + where + `
		ORDER BY r.arch_seq DESC LIMIT 1`
}

// Older implements archive.PageTx.
func (p pageTx) Older(ctx context.Context, _ dynamo.PageQuery, below int64) (int64, error) {
	var n int64
	err := p.tx.QueryRowContext(ctx, olderSQL(p.where), append([]any{p.source, below}, p.cargs...)...).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// FirstSeq implements archive.PageTx.
func (p pageTx) FirstSeq(ctx context.Context, n int64) (int, error) {
	var seq int
	err := p.tx.QueryRowContext(ctx, `SELECT i.first_seq FROM item_revisions r JOIN items i ON i.source_id = r.source_id AND i.key = r.key
		WHERE r.source_id = ? AND r.arch_seq = ?`, p.source, n).Scan(&seq)
	return seq, err
}

// Head implements archive.PageTx.
func (p pageTx) Head(ctx context.Context, seq, lastSeq int) (*dynamo.Resource, *dynamo.Version, error) {
	v := &dynamo.Version{SourceID: p.source, Seq: seq, Index: lastSeq - seq + 1}
	doc, err := archive.ScanHead(p.tx.QueryRowContext(ctx, `SELECT `+headColumns+`
		FROM versions v JOIN channels c ON c.channel_id = v.channel_id
		WHERE v.source_id = ? AND v.seq = ?`, p.source, seq), v)
	if err != nil {
		return nil, nil, fmt.Errorf("version %d: %w", seq, notFound(err))
	}
	return doc, v, nil
}
