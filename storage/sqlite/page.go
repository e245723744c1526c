package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// Page reads one page of a collection's archive in one read transaction:
// the items numbered q.From through q.To through the items_arch_seq index,
// each with its first revision, the highest number, the nearest older
// match and the version heading the page.
func (s *Store) Page(ctx context.Context, q dynamo.PageQuery) (*dynamo.ArchivePage, error) {
	if err := archive.CheckPage(q); err != nil {
		return nil, err
	}
	where, cargs, err := conditionSQL(q.Conditions)
	if err != nil {
		return nil, fmt.Errorf("page of %s: %w", q.SourceID, err)
	}
	p := &dynamo.ArchivePage{}
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		lastSeq, err := s.lastSeq(ctx, tx, q.SourceID)
		if err != nil {
			return err
		}
		// Items beyond the source's last_seq belong to a version not yet
		// published (docs/STORAGE.md, "Large versions"), numbered above
		// every published item: no number above Last is read.
		if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(arch_seq), 0) FROM items WHERE source_id = ? AND first_seq <= ?",
			q.SourceID, lastSeq).Scan(&p.Last); err != nil {
			return fmt.Errorf("last item: %w", err)
		}
		args := append([]any{q.SourceID, q.From, min(q.To, p.Last)}, cargs...)
		rows, err := tx.QueryContext(ctx, pageSQL(where), args...)
		if err != nil {
			return fmt.Errorf("items: %w", err)
		}
		if p.Items, err = collect(rows, nil, archive.ScanItem); err != nil {
			return fmt.Errorf("items: %w", err)
		}
		for i := range p.Items {
			p.Items[i].Number, p.Items[i].Item.Index = int64(p.Items[i].Item.Index), i+1
		}
		if p.Older, err = olderMatch(ctx, tx, q, p.Last, where, cargs); err != nil {
			return err
		}
		seq := lastSeq
		if n := archive.HeadNumber(q, p.Last); n > 0 {
			if err := tx.QueryRowContext(ctx, "SELECT first_seq FROM items WHERE source_id = ? AND arch_seq = ?",
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

// pageSQL selects the items numbered from ? through ? of source ? whose
// first revision matches where, highest number first: a range of the
// items_arch_seq index.
func pageSQL(where string) string {
	return `SELECT ` + archive.ItemColumns + `, p.arch_seq
		FROM items p JOIN item_revisions r ON r.rev_id = p.first_rev ` + archive.ItemJoins + `
		WHERE p.source_id = ? AND p.arch_seq BETWEEN ? AND ? AND ` + where + `
		ORDER BY p.arch_seq DESC`
}

// olderSQL selects the highest number below ? of an item of source ? whose
// first revision matches where, walking the items_arch_seq index down.
func olderSQL(where string) string {
	return `SELECT p.arch_seq FROM items p JOIN item_revisions r ON r.rev_id = p.first_rev
		WHERE p.source_id = ? AND p.arch_seq < ? AND ` + where + `
		ORDER BY p.arch_seq DESC LIMIT 1`
}

// olderMatch is ArchivePage.Older: the highest number below q.From of an
// item whose first revision matches the conditions (where, args), walking
// the numbers' index down.
func olderMatch(ctx context.Context, tx *sql.Tx, q dynamo.PageQuery, last int64, where string, cargs []any) (int64, error) {
	if len(q.Conditions) == 0 {
		return archive.OlderPlain(q, last), nil
	}
	var n int64
	args := append([]any{q.SourceID, min(q.From, last+1)}, cargs...)
	err := tx.QueryRowContext(ctx, olderSQL(where), args...).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("older items: %w", err)
	}
	return n, nil
}

// headOf reads version seq of a collection without its items.
func headOf(ctx context.Context, tx *sql.Tx, sourceID string, seq, lastSeq int) (*dynamo.Resource, *dynamo.Version, error) {
	v := &dynamo.Version{SourceID: sourceID, Seq: seq, Index: lastSeq - seq + 1}
	var url, rssID, channel string
	var stamp, seen int64
	var hash []byte
	err := tx.QueryRowContext(ctx, `SELECT v.url, v.rss_id, v.stamp, c.body, v.seen_at, v.hash, v.title,
			v.item_count, v.added, v.removed
		FROM versions v JOIN channels c ON c.channel_id = v.channel_id
		WHERE v.source_id = ? AND v.seq = ?`, sourceID, seq).Scan(
		&url, &rssID, &stamp, &channel, &seen, &hash, &v.Title, &v.Items, &v.Added, &v.Removed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("version %d: %w", seq, dynamo.ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("version %d: %w", seq, err)
	}
	doc := &dynamo.Resource{URL: url, RSSID: rssID, Timestamp: goTime(stamp)}
	if err := json.Unmarshal([]byte(channel), &doc.Channel); err != nil {
		return nil, nil, fmt.Errorf("version %d: channel: %w", seq, err)
	}
	v.SeenAt, v.Hash = goTime(seen), hex.EncodeToString(hash)
	return doc, v, nil
}
