package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// Page reads one page of a collection's archive in one read-only
// repeatable-read transaction (one snapshot: a page read as full has all its
// items): the items numbered q.From through q.To through the items_arch_seq
// index, each with its first revision, the highest number, the nearest
// older match and the version heading the page.
func (s *Store) Page(ctx context.Context, q dynamo.PageQuery) (*dynamo.ArchivePage, error) {
	if err := archive.CheckPage(q); err != nil {
		return nil, err
	}
	p := &dynamo.ArchivePage{}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var lastSeq int
		// Items beyond the source's last_seq belong to a version not yet
		// published (docs/STORAGE.md, "Large versions"), numbered above
		// every published item: no number above Last is read.
		err := tx.QueryRow(ctx, `SELECT s.last_seq, (SELECT coalesce(max(arch_seq), 0) FROM items
				WHERE source_id = s.id AND first_seq <= s.last_seq)
			FROM sources s WHERE s.id = $1`, q.SourceID).Scan(&lastSeq, &p.Last)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("collection %s: %w", q.SourceID, dynamo.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("last item: %w", err)
		}
		page := q
		page.To = min(q.To, p.Last)
		sq, err := pageQuery(page)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sq.sql, sq.args...)
		if err != nil {
			return fmt.Errorf("items: %w", err)
		}
		p.Items, err = collect(rows, nil, archive.ScanItem)
		if err != nil {
			return fmt.Errorf("items: %w", err)
		}
		for i := range p.Items {
			p.Items[i].Number, p.Items[i].Item.Index = int64(p.Items[i].Item.Index), i+1
		}
		if p.Older, err = olderMatch(ctx, tx, q, p.Last); err != nil {
			return err
		}
		seq := lastSeq
		if n := archive.HeadNumber(q, p.Last); n > 0 {
			if err := tx.QueryRow(ctx, "SELECT first_seq FROM items WHERE source_id = $1 AND arch_seq = $2",
				q.SourceID, n).Scan(&seq); err != nil {
				return fmt.Errorf("item %d: %w", n, err)
			}
		}
		if seq > 0 {
			p.Head, p.Version, err = headOf(ctx, tx, q.SourceID, seq, lastSeq)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("page of %s: %w", q.SourceID, err)
	}
	return p, nil
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

// olderMatch is ArchivePage.Older: the highest number below q.From of an
// item whose first revision matches the conditions, walking the numbers'
// index down.
func olderMatch(ctx context.Context, tx pgx.Tx, q dynamo.PageQuery, last int64) (int64, error) {
	if len(q.Conditions) == 0 {
		return archive.OlderPlain(q, last), nil
	}
	where, args, err := conditionSQL(q.Conditions, []any{q.SourceID, min(q.From, last+1)})
	if err != nil {
		return 0, err
	}
	var n int64
	err = tx.QueryRow(ctx, `SELECT p.arch_seq FROM items p JOIN item_revisions r ON r.rev_id = p.first_rev
		WHERE p.source_id = $1 AND p.arch_seq < $2 AND `+where+`
		ORDER BY p.arch_seq DESC LIMIT 1`, args...).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("older items: %w", err)
	}
	return n, nil
}

// headOf reads version seq of a collection without its items.
func headOf(ctx context.Context, tx pgx.Tx, sourceID string, seq, lastSeq int) (*dynamo.Resource, *dynamo.Version, error) {
	doc := &dynamo.Resource{}
	v := &dynamo.Version{SourceID: sourceID, Seq: seq, Index: lastSeq - seq + 1}
	var channel []byte
	err := tx.QueryRow(ctx, `SELECT url, rss_id, stamp, channel, seen_at, hash, title, item_count, added, removed
		FROM versions WHERE source_id = $1 AND seq = $2`, sourceID, seq).Scan(
		&doc.URL, &doc.RSSID, &doc.Timestamp, &channel, &v.SeenAt, &v.Hash, &v.Title, &v.Items, &v.Added, &v.Removed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, fmt.Errorf("version %d: %w", seq, dynamo.ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("version %d: %w", seq, err)
	}
	doc.Timestamp, v.SeenAt = doc.Timestamp.UTC(), v.SeenAt.UTC()
	if err := json.Unmarshal(channel, &doc.Channel); err != nil {
		return nil, nil, fmt.Errorf("version %d: channel: %w", seq, err)
	}
	return doc, v, nil
}
