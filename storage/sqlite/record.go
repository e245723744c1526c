package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// RecordPoll applies one poll (archive.RecordPoll). Writes are
// serialized (one writer connection, IMMEDIATE transactions), so two
// writers storing the same content cannot both create a version: the
// second finds the first's hash, or, having lost the lease, is refused.
// The poll's transaction is a group commit with the other polls waiting
// for the writer (writeGrouped); once it started, ctx no longer stops it.
func (s *Store) RecordPoll(ctx context.Context, rec dynamo.PollRecord, decide func(dynamo.PollResult) dynamo.PollUpdate) (dynamo.PollResult, error) {
	return archive.RecordPoll(context.WithoutCancel(ctx), pollWriter{s: s, wait: ctx}, s.batch, rec, decide)
}

// pollWriter is SQLite's archive.PollWriter.
type pollWriter struct {
	s    *Store
	wait context.Context // the caller's, which a grouped write checks before it starts
}

// Write implements archive.PollWriter, in a group commit of the one
// writer. Its reads cost no exchange with a server, so none is read ahead
// for the content's hash.
func (w pollWriter) Write(ctx context.Context, rec dynamo.PollRecord, _ string, fn func(archive.PollTx, archive.LeasedSource) error) error {
	return w.s.writeGrouped(w.wait, func(tx *sql.Tx, changed func(string)) error {
		var (
			src     archive.LeasedSource
			owner   string
			removed bool
		)
		err := tx.QueryRowContext(ctx, "SELECT lease_owner, removed, last_seq, last_hash, staging FROM sources WHERE id = ?",
			rec.SourceID).Scan(&owner, &removed, &src.LastSeq, &src.LastHash, &src.Staging)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := archive.CheckLease(rec, err == nil, owner, removed); err != nil {
			return err
		}
		return fn(pollTx{tx: tx, rec: rec, changed: changed}, src)
	})
}

// Batches implements archive.PollWriter.
func (w pollWriter) Batches(rec dynamo.PollRecord, attempt int64, seq int, at time.Time) archive.Batches {
	return &batches{s: w.s, source: rec.SourceID, attempt: attempt, seq: seq, at: at}
}

// batches is SQLite's archive.Batches: reads on a reader connection, each
// batch a write transaction that first checks the source is still staged
// by this attempt.
type batches struct {
	s       *Store
	source  string
	attempt int64
	seq     int
	at      time.Time
}

// Read implements archive.Batches.
func (b *batches) Read(ctx context.Context, fn func(archive.VersionTx) error) error {
	return b.s.readTx(ctx, func(tx *sql.Tx) error {
		return fn(&versionTx{tx: tx, source: b.source, seq: b.seq, at: b.at})
	})
}

// Batch implements archive.Batches.
func (b *batches) Batch(ctx context.Context, fn func(archive.VersionTx) error) error {
	return b.s.write(ctx, func(tx *sql.Tx, _ func(string)) error {
		var staging int64
		err := tx.QueryRowContext(ctx, "SELECT staging FROM sources WHERE id = ?", b.source).Scan(&staging)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read staging: %w", err)
		}
		if err := archive.StagedBatch(err == nil, staging, b.attempt); err != nil {
			return err
		}
		return fn(&versionTx{tx: tx, source: b.source, seq: b.seq, at: b.at})
	})
}

// pollTx is SQLite's archive.PollTx: the poll rec's write transaction tx,
// which reports the sources it changed to changed.
type pollTx struct {
	tx      *sql.Tx
	rec     dynamo.PollRecord
	changed func(string)
}

// Version implements archive.PollTx.
func (p pollTx) Version(seq int, at time.Time) archive.VersionTx {
	return &versionTx{tx: p.tx, source: p.rec.SourceID, seq: seq, at: at}
}

// DropStaged implements archive.PollTx.
func (p pollTx) DropStaged(ctx context.Context, staging int64) error {
	if staging == 0 {
		return nil
	}
	for _, q := range []string{
		"DELETE FROM items WHERE source_id = ?1 AND first_seq > (SELECT last_seq FROM sources WHERE id = ?1)",
		"DELETE FROM item_revisions WHERE rev_id > (SELECT published_rev FROM sources WHERE id = ?1) AND source_id = ?1",
		"UPDATE sources SET staging = 0 WHERE id = ?1",
	} {
		if _, err := p.tx.ExecContext(ctx, q, p.rec.SourceID); err != nil {
			return fmt.Errorf("delete an unpublished version's rows: %w", err)
		}
	}
	return nil
}

// Stage implements archive.PollTx.
func (p pollTx) Stage(ctx context.Context, attempt int64) error {
	_, err := p.tx.ExecContext(ctx, "UPDATE sources SET staging = ? WHERE id = ?", attempt, p.rec.SourceID)
	return err
}

// Finish implements archive.PollTx; a new version, and the sources of
// duplicates, are reported as changed once the transaction commits.
func (p pollTx) Finish(ctx context.Context, at time.Time, result *dynamo.PollResult, decide func(dynamo.PollResult) dynamo.PollUpdate) error {
	if result.Version != nil {
		p.changed(p.rec.SourceID)
	}
	if p.rec.Stories && len(result.NewItems) > 0 {
		if err := numberStories(ctx, p.tx, p.rec, result); err != nil {
			return err
		}
	}
	upd := decide(*result)
	for _, d := range upd.Duplicates {
		p.changed(d.Item.SourceID)
		p.changed(d.Primary.SourceID)
	}
	if err := writeUpdate(ctx, p.tx, p.rec, at, *result, upd); err != nil {
		return err
	}
	if result.Version != nil && len(result.NewItems) > 0 {
		return numberAggregate(ctx, p.tx, p.rec.SourceID)
	}
	return nil
}

// numberAggregate gives the items the poll publishes their aggregate
// numbers (docs/STORAGE.md "Aggregate numbers"): the source's items without
// one, in the order of their numbers in the source, after every number
// handed out before. SQLite's one writer makes numbers follow commits. An
// item's numbers are on its first revision (migration 0016), found in the
// partial index item_revisions_unnumbered.
func numberAggregate(ctx context.Context, tx *sql.Tx, source string) error {
	var base int64
	err := tx.QueryRowContext(ctx, `UPDATE aggregate_counter
		SET n = n + (SELECT count(*) FROM item_revisions INDEXED BY item_revisions_unnumbered WHERE source_id = ?1 AND arch_seq IS NOT NULL AND agg_seq IS NULL)
		RETURNING n - (SELECT count(*) FROM item_revisions INDEXED BY item_revisions_unnumbered WHERE source_id = ?1 AND arch_seq IS NOT NULL AND agg_seq IS NULL)`,
		source).Scan(&base)
	if err != nil {
		return fmt.Errorf("hand out aggregate numbers: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE item_revisions SET agg_seq = ?2 + p.r
		FROM (SELECT rev_id, row_number() OVER (ORDER BY arch_seq) AS r FROM item_revisions INDEXED BY item_revisions_unnumbered
			WHERE source_id = ?1 AND arch_seq IS NOT NULL AND agg_seq IS NULL) AS p
		WHERE item_revisions.rev_id = p.rev_id`, source, base); err != nil {
		return fmt.Errorf("number items: %w", err)
	}
	return nil
}

// lastStory is the greatest story number handed out, from the partial
// index items_story_seq.
const lastStory = "SELECT coalesce(max(story_seq), 0) FROM items WHERE story_seq IS NOT NULL"

// numberStories numbers the poll's new items after every item numbered
// before, and reads the items other polls numbered after
// rec.StoriesAfter, first seen since rec.StoriesSince. SQLite's one writer (IMMEDIATE transactions, across
// processes too) makes numbers follow commits, and no other poll stores
// anything until this one commits.
func numberStories(ctx context.Context, tx *sql.Tx, rec dynamo.PollRecord, result *dynamo.PollResult) error {
	var last int64
	if err := tx.QueryRowContext(ctx, lastStory).Scan(&last); err != nil {
		return fmt.Errorf("number new items: %w", err)
	}
	mine := map[string]bool{}
	for _, it := range result.NewItems {
		last++
		mine[it.Item.ID] = true
		if _, err := tx.ExecContext(ctx, "UPDATE items SET story_seq = ? WHERE source_id = ? AND key = ?",
			last, rec.SourceID, storedKey(it.Item.ID)); err != nil {
			return fmt.Errorf("number new item %s: %w", it.Item.ID, err)
		}
	}
	result.StoriesSeq = last
	rows, err := tx.QueryContext(ctx, `SELECT `+storyItemColumns+` FROM items i `+archive.StoryItemJoins+`
		WHERE i.story_seq > ? AND r.first_seen >= ? ORDER BY i.story_seq`, rec.StoriesAfter, dbTime(rec.StoriesSince))
	if err != nil {
		return fmt.Errorf("items stored since %d: %w", rec.StoriesAfter, err)
	}
	defer rows.Close()
	for rows.Next() {
		it, err := archive.ScanStoryItem(rows)
		if err != nil {
			return fmt.Errorf("items stored since %d: %w", rec.StoriesAfter, err)
		}
		if it.Key.SourceID != rec.SourceID || !mine[it.Key.ItemID] {
			result.StoredSince = append(result.StoredSince, it)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("items stored since %d: %w", rec.StoriesAfter, err)
	}
	return nil
}

// writeUpdate writes what the poller decided and releases the lease.
func writeUpdate(ctx context.Context, tx *sql.Tx, rec dynamo.PollRecord, at time.Time, result dynamo.PollResult, upd dynamo.PollUpdate) error {
	st := upd.State
	var versionAt any
	if result.Version != nil {
		versionAt = dbTime(at)
	}
	_, err := tx.ExecContext(ctx, `UPDATE sources SET etag = ?, last_modified = ?, body_hash = ?, last_poll = ?,
			next_poll = ?, last_change = ?, last_status = ?, errors = ?, last_error = ?, schedule = ?,
			lease_owner = '', lease_expires = ?, last_version_at = coalesce(?, last_version_at), poll_warnings = ?
		WHERE id = ?`,
		st.ETag, st.LastModified, st.BodyHash, dbTime(st.LastPoll), dbTime(st.NextPoll), dbTime(st.LastChange),
		string(st.LastStatus), st.Errors, st.LastError, archive.ScheduleArg(st.Schedule), zeroTime, versionAt,
		archive.WarningsText(st.Warnings), rec.SourceID)
	if err != nil {
		return fmt.Errorf("write poll state: %w", err)
	}
	status := string(upd.Log.Status)
	if _, err := tx.ExecContext(ctx, `INSERT INTO poll_counts (source_id, status, n) VALUES (?, ?, 1)
		ON CONFLICT (source_id, status) DO UPDATE SET n = n + 1`, rec.SourceID, status); err != nil {
		return fmt.Errorf("count poll: %w", err)
	}
	logAt := upd.Log.At
	if logAt.IsZero() {
		logAt = at
	}
	// id: 1, or after the polls of the source logged at the same instant
	// (migration 0019).
	if _, err := tx.ExecContext(ctx, `INSERT INTO poll_log (source_id, at, id, status, duration_ns, new_items, error, http_status, bytes)
		VALUES (?1, ?2, (SELECT coalesce(max(id), 0) + 1 FROM poll_log WHERE source_id = ?1 AND at = ?2), ?3, ?4, ?5, ?6, ?7, ?8)`, rec.SourceID, dbTime(logAt), status, int64(upd.Log.Duration), upd.Log.NewItems,
		upd.Log.Error, upd.Log.HTTPStatus, upd.Log.Bytes); err != nil {
		return fmt.Errorf("log poll: %w", err)
	}
	if archive.TrimPollLog() {
		if _, err := tx.ExecContext(ctx, `DELETE FROM poll_log WHERE source_id = ?1 AND (at, id) IN (
			SELECT at, id FROM poll_log WHERE source_id = ?1 ORDER BY at DESC, id DESC LIMIT -1 OFFSET ?2)`,
			rec.SourceID, archive.PollLogLimit); err != nil {
			return fmt.Errorf("trim poll log: %w", err)
		}
	}
	return writeDuplicates(ctx, tx, upd.Duplicates)
}

// writeDuplicates records duplicates whose items both exist; a primary
// purged since the detector saw it is skipped, a matched copy purged since
// is left out.
func writeDuplicates(ctx context.Context, tx *sql.Tx, dups []dynamo.Duplicate) error {
	for _, d := range dups {
		_, err := tx.ExecContext(ctx, `INSERT INTO duplicates (source_id, item_id, primary_source, primary_item, rule, score,
				matched_source, matched_item)
			SELECT ?1, ?2, ?3, ?4, ?5, ?6, m.source_id, m.item_id
			FROM (SELECT 1) LEFT JOIN items m ON m.source_id = ?7 AND m.key = ?9
			WHERE EXISTS (SELECT 1 FROM items WHERE source_id = ?1 AND key = ?10)
				AND EXISTS (SELECT 1 FROM items WHERE source_id = ?3 AND key = ?11)
			ON CONFLICT (source_id, item_id) DO UPDATE SET primary_source = excluded.primary_source,
				primary_item = excluded.primary_item, rule = excluded.rule, score = excluded.score,
				matched_source = excluded.matched_source, matched_item = excluded.matched_item`,
			d.Item.SourceID, d.Item.ItemID, d.Primary.SourceID, d.Primary.ItemID, d.Rule, d.Score,
			d.Matched.SourceID, d.Matched.ItemID,
			storedKey(d.Matched.ItemID), storedKey(d.Item.ItemID), storedKey(d.Primary.ItemID))
		if err != nil {
			return fmt.Errorf("record duplicate %s/%s: %w", d.Item.SourceID, d.Item.ItemID, err)
		}
	}
	return nil
}

// versionTx is SQLite's SQL for archive.WriteVersion: one source's
// version being stored in tx, the one write transaction.
type versionTx struct {
	tx     *sql.Tx
	source string
	seq    int
	at     time.Time
}

var _ archive.VersionTx = (*versionTx)(nil)

// Stored implements archive.VersionTx; its revisions get their ids as
// they are inserted, nothing is reserved.
func (w *versionTx) Stored(ctx context.Context, keys, titles []string, _ int) (map[string]archive.Known, map[string][]string, error) {
	known := map[string]archive.Known{}
	if len(keys) > 0 {
		if err := w.known(ctx, keys, known); err != nil {
			return nil, nil, err
		}
	}
	if len(titles) == 0 {
		return known, nil, nil
	}
	titled, err := w.byTitle(ctx, titles)
	if err != nil {
		return nil, nil, err
	}
	return known, titled, nil
}

// knownItems reads the items of source ?1 among the keys ?2 (a JSON
// array), each found by its stored key, with the first-seen time, position
// and index of its shown revision (migration 0020: every revision holds
// them, items does not).
const knownItems = `SELECT i.item_id, r.first_seen, r.first_pos, r.first_index, i.latest_rev
	FROM items i JOIN item_revisions r ON r.rev_id = i.latest_rev
	WHERE i.source_id = ?1 AND i.key IN (SELECT ` + storedValue + ` FROM json_each(?2))`

// known adds what the store holds of the source's items among keys to
// found.
func (w *versionTx) known(ctx context.Context, keys []string, found map[string]archive.Known) error {
	rows, err := w.tx.QueryContext(ctx, knownItems, w.source, jsonArg(keys))
	if err != nil {
		return fmt.Errorf("read items: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var firstSeen int64
		var k archive.Known
		if err := rows.Scan(&key, &firstSeen, &k.FirstPos, &k.FirstIndex, &k.LatestRev); err != nil {
			return fmt.Errorf("read items: %w", err)
		}
		k.FirstSeen = goTime(firstSeen)
		found[key] = k
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read items: %w", err)
	}
	return nil
}

// itemsByTitle is byTitle's query of a source (?1) and its titles (?2, a
// JSON array): it finds the titles' keys in item_revisions_title, then
// compares the titles.
const itemsByTitle = `SELECT r.title, r.item_key, max(r.rev_id) AS rev FROM item_revisions r
	WHERE r.source_id = ?1 AND ` + keyFunc + `(r.title) IN (SELECT ` + keyFunc + `(value) FROM json_each(?2))
		AND r.title IN (SELECT value FROM json_each(?2))
	GROUP BY r.title, r.item_key ORDER BY rev DESC`

// byTitle returns the keys of the source's items that ever had each
// of titles, most recently revised first.
func (w *versionTx) byTitle(ctx context.Context, titles []string) (map[string][]string, error) {
	rows, err := w.tx.QueryContext(ctx, itemsByTitle, w.source, jsonArg(titles))
	if err != nil {
		return nil, fmt.Errorf("find items by title: %w", err)
	}
	defer rows.Close()
	found := map[string][]string{}
	for rows.Next() {
		var title, key string
		var rev int64
		if err := rows.Scan(&title, &key, &rev); err != nil {
			return nil, fmt.Errorf("find items by title: %w", err)
		}
		found[title] = append(found[title], key)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find items by title: %w", err)
	}
	return found, nil
}

// revisionOf is the query of the revision of a source (?1) with an item key
// (?2) and a content hash (?3), found by the key's hash in
// item_revisions_key.
const revisionOf = "SELECT rev_id FROM item_revisions WHERE source_id = ?1 AND " + keyFunc + "(item_key) = " + keyFunc + "(?2) AND item_key = ?2 AND rhash = ?3"

// Revisions implements archive.VersionTx, one indexed lookup a position.
func (w *versionTx) Revisions(ctx context.Context, keys []string, hashes [][]byte) (map[string]int64, error) {
	find, err := w.tx.PrepareContext(ctx, revisionOf)
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	defer find.Close()
	ids := map[string]int64{}
	for i, key := range keys {
		var id int64
		err := find.QueryRowContext(ctx, w.source, key, hashes[i]).Scan(&id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, fmt.Errorf("read revisions: %w", err)
		default:
			ids[archive.RevKey(key, hashes[i])] = id
		}
	}
	return ids, nil
}

// InsertRevisions implements archive.VersionTx.
func (w *versionTx) InsertRevisions(ctx context.Context, revs []archive.Revision, ids map[string]int64) error {
	insert, err := w.tx.PrepareContext(ctx, `INSERT INTO item_revisions (source_id, key, rhash, doc_id, title,
			link, markup_ops, plain_text, image, extensions, id_from_content, title_f, link_f, text_f,
			first_seen, first_pos, first_index, latest, media)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("insert revisions: %w", err)
	}
	defer insert.Close()
	for _, r := range revs {
		it := r.Item
		var docID any
		if it.ID != r.Key {
			docID = it.ID
		}
		res, err := insert.ExecContext(ctx, w.source, storedKey(r.Key), r.Hash, docID, it.Title, it.Link, packMarkup(it.Description, it.Text), it.Text,
			nullable(archive.JSON(it.Image != nil, it.Image)), nullable(archive.JSON(len(it.Extensions) > 0, it.Extensions)),
			boolInt(it.IDFromContent), folded(it.Title), folded(it.Link), folded(it.Text),
			dbTime(r.FirstSeen), r.FirstPos, r.FirstIndex, boolInt(r.Latest), nullable(archive.MediaJSON(it)))
		if err == nil {
			ids[archive.RevKey(r.Key, r.Hash)], err = res.LastInsertId()
		}
		if err != nil {
			return fmt.Errorf("insert revision of item %s: %w", r.Key, err)
		}
	}
	return nil
}

// storedKey is an item key as item_revisions (migration 0018) and items
// (0020) store it:
// the 16 bytes that dynamo.ItemID's 32 lower-case hex digits spell, any
// other key as its text. The virtual column item_key spells the bytes
// again with lower(hex(key)).
func storedKey(key string) any {
	if len(key) != 32 || strings.ToLower(key) != key {
		return key
	}
	b, err := hex.DecodeString(key)
	if err != nil {
		return key
	}
	return b
}

// storedValue is storedKey in SQL, of the text key value (a column of
// json_each): items and item_revisions are found by their stored keys.
const storedValue = "iif(length(value) = 32 AND lower(hex(unhex(value))) = value, unhex(value), value)"

// nullable is a value that may be SQL NULL as database/sql takes it.
func nullable(s string, present bool) any {
	if !present {
		return nil
	}
	return s
}

// folded is archive.Folded as an SQL argument.
func folded(s string) any { return nullable(archive.Folded(s)) }

// Previous implements archive.VersionTx.
func (w *versionTx) Previous(ctx context.Context, seq int) ([]archive.Position, time.Time, error) {
	var packed []byte
	var seenAt int64
	err := w.tx.QueryRowContext(ctx, "SELECT revs, seen_at FROM versions WHERE source_id = ? AND seq = ?",
		w.source, seq).Scan(&packed, &seenAt)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read previous version: %w", err)
	}
	revs, err := archive.UnpackRevs(packed)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read previous version: %w", err)
	}
	rows, err := w.tx.QueryContext(ctx, `SELECT r.item_key, r.rhash, r.rev_id, r.first_seen, r.first_pos, r.first_index, r.latest
		FROM json_each(?) AS p JOIN item_revisions r ON r.rev_id = p.value ORDER BY p.key`, jsonArg(revs))
	positions, err := collect(rows, err, func(row archive.Scanner) (archive.Position, error) {
		var p archive.Position
		var firstSeen int64
		err := row.Scan(&p.Key, &p.Hash, &p.Rev, &firstSeen, &p.FirstPos, &p.FirstIndex, &p.Latest)
		p.FirstSeen = goTime(firstSeen)
		return p, err
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read previous version: %w", err)
	}
	return positions, goTime(seenAt), nil
}

// LastNumber implements archive.VersionTx, from the numbers' index.
func (w *versionTx) LastNumber(ctx context.Context) (int64, error) {
	var n int64
	if err := w.tx.QueryRowContext(ctx, "SELECT coalesce(max(arch_seq), 0) FROM item_revisions WHERE source_id = ? AND arch_seq IS NOT NULL",
		w.source).Scan(&n); err != nil {
		return 0, fmt.Errorf("last item number: %w", err)
	}
	return n, nil
}

// moveLatest marks revision ?1 the one shown of its item (source ?2, key
// ?3) and no other, finding the item's revisions by the key's hash in
// item_revisions_key.
const moveLatest = `UPDATE item_revisions SET latest = (rev_id = ?1)
	WHERE source_id = ?2 AND ` + keyFunc + `(item_key) = ` + keyFunc + `(?3) AND item_key = ?3 AND latest <> (rev_id = ?1)`

// StoreItems implements archive.VersionTx: two statements a new item (its
// row, and its number on its first revision), one a moved item, one for
// the items back on the page and one for those gone.
func (w *versionTx) StoreItems(ctx context.Context, ch archive.ItemChanges) error {
	for _, it := range ch.New {
		if _, err := w.tx.ExecContext(ctx, `INSERT INTO items (source_id, key, first_seq, latest_rev) VALUES (?, ?, ?, ?)`,
			w.source, storedKey(it.Key), w.seq, it.Rev); err != nil {
			return fmt.Errorf("store item %s: %w", it.Key, err)
		}
		if _, err := w.tx.ExecContext(ctx, "UPDATE item_revisions SET arch_seq = ? WHERE rev_id = ?", it.Number, it.Rev); err != nil {
			return fmt.Errorf("number item %s: %w", it.Key, err)
		}
	}
	for _, m := range ch.Moved {
		// New revisions were inserted with their latest flag; a stored item
		// whose shown revision changed moves it.
		if _, err := w.tx.ExecContext(ctx, moveLatest, m.Rev, w.source, m.Key); err != nil {
			return fmt.Errorf("store item %s: %w", m.Key, err)
		}
		if _, err := w.tx.ExecContext(ctx, "UPDATE items SET latest_rev = ? WHERE source_id = ? AND key = ?",
			m.Rev, w.source, storedKey(m.Key)); err != nil {
			return fmt.Errorf("store item %s: %w", m.Key, err)
		}
	}
	if len(ch.Back) > 0 {
		if _, err := w.tx.ExecContext(ctx, `UPDATE items SET last_seen = NULL
			WHERE source_id = ? AND key IN (SELECT `+storedValue+` FROM json_each(?))`, w.source, jsonArg(ch.Back)); err != nil {
			return fmt.Errorf("store items back on the page: %w", err)
		}
	}
	if len(ch.Gone) > 0 {
		if _, err := w.tx.ExecContext(ctx, `UPDATE items SET last_seen = ?
			WHERE source_id = ? AND key IN (SELECT `+storedValue+` FROM json_each(?))`, dbTime(ch.GoneAt), w.source, jsonArg(ch.Gone)); err != nil {
			return fmt.Errorf("store items gone from the page: %w", err)
		}
	}
	return nil
}

// StoreVersion implements archive.VersionTx: the version row, its channel
// (stored once per source and content), and the source's summary.
func (w *versionTx) StoreVersion(ctx context.Context, nv archive.NewVersion) error {
	v, doc := nv.Version, nv.Doc
	channel, err := w.storeChannel(ctx, doc)
	if err != nil {
		return err
	}
	hash, err := hex.DecodeString(v.Hash)
	if err != nil {
		return fmt.Errorf("content hash %q: %w", v.Hash, err)
	}
	var indexes []byte
	for _, i := range nv.Indexes {
		indexes = binary.AppendVarint(indexes, int64(i))
	}
	// The URL, RSS id and title are the channel row's (migration 0017).
	if _, err := w.tx.ExecContext(ctx, `INSERT INTO versions (source_id, seq, seen_at, hash, url, rss_id, stamp_offset,
			channel_id, title, item_count, added, removed, revs, indexes)
		VALUES (?, ?, ?, ?, '', '', ?, ?, '', ?, ?, ?, ?, ?)`,
		w.source, w.seq, dbTime(w.at), hash, dbTime(doc.Timestamp)-dbTime(w.at), channel,
		v.Items, v.Added, v.Removed, archive.PackRevs(nv.Revs), indexes); err != nil {
		return fmt.Errorf("insert version %d: %w", w.seq, err)
	}
	if _, err := w.tx.ExecContext(ctx, `UPDATE sources SET last_seq = ?, last_hash = ?, title = ?,
			item_count = item_count + ?, published_rev = max(published_rev, ?) WHERE id = ?`,
		w.seq, v.Hash, v.Title, nv.NewItems, nv.Published, w.source); err != nil {
		return fmt.Errorf("insert version %d: %w", w.seq, err)
	}
	return nil
}

// storeChannel finds or stores the channel of a document with its URL and
// RSS id (and the channel's title, the version's), stored once per source
// and the three (migration 0017), and returns its id. Its key is
// archive.Channel's key, the URL and the RSS id hashed.
func (w *versionTx) storeChannel(ctx context.Context, doc *dynamo.Resource) (int64, error) {
	body, key, err := archive.Channel(doc.Channel)
	if err != nil {
		return 0, err
	}
	var id int64
	err = w.tx.QueryRowContext(ctx, `INSERT INTO channels (source_id, chash, body, url, rss_id, title) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (source_id, chash) DO UPDATE SET body = body RETURNING channel_id`,
		w.source, headKey(key, doc.URL, doc.RSSID), body, doc.URL, doc.RSSID, doc.Channel.Title).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store channel: %w", err)
	}
	return id, nil
}

// unpackIndexes decodes a version's index attributes; nil means 1..n.
func unpackIndexes(b []byte) ([]int, error) {
	var out []int
	for len(b) > 0 {
		v, n := binary.Varint(b)
		if n <= 0 {
			return nil, fmt.Errorf("corrupt index list after %d indexes", len(out))
		}
		out = append(out, int(v))
		b = b[n:]
	}
	return out, nil
}

// headKey is the key of a channels row stored since migration 0017: the
// channel's key (archive.Channel), the URL and the RSS id, length-prefixed
// and hashed (the first 16 bytes of the SHA-256).
func headKey(channelKey []byte, url, rssID string) []byte {
	b := append([]byte(nil), channelKey...)
	for _, field := range []string{url, rssID} {
		b = binary.BigEndian.AppendUint64(b, uint64(len(field)))
		b = append(b, field...)
	}
	sum := sha256.Sum256(b)
	return sum[:16]
}

// headColumns are the columns archive.ScanHead reads of a version v and
// its channels row c: the URL, RSS id and title from c for a version stored
// since migration 0017 (c.url is not NULL), from v before; the timestamp
// from its offset.
const headColumns = `coalesce(c.url, v.url), coalesce(c.rss_id, v.rss_id), v.seen_at + v.stamp_offset, c.body, v.seen_at, v.hash,
	coalesce(c.title, v.title), v.item_count, v.added, v.removed`
