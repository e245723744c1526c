package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/storage/internal/archive"
)

// RecordPoll applies one poll (archive.RecordPoll). Locking the source's
// row first serializes every writer of one source, so two writers storing
// the same content cannot both create a version: the second sees the
// first's hash (and, having lost the lease, is refused before that).
func (s *Store) RecordPoll(ctx context.Context, rec dynamo.PollRecord, decide func(dynamo.PollResult) dynamo.PollUpdate) (dynamo.PollResult, error) {
	if rec.Document == nil {
		// Nothing read, so nothing stored: what decide sees is known
		// before the store is asked, and the poll is one statement.
		upd := decide(dynamo.PollResult{})
		if len(upd.Duplicates) == 0 {
			return dynamo.PollResult{}, s.recordUnchanged(ctx, rec, upd)
		}
		decide = func(dynamo.PollResult) dynamo.PollUpdate { return upd }
	}
	return archive.RecordPoll(ctx, pollWriter{s}, s.batch, rec, decide)
}

// pollWriter is PostgreSQL's archive.PollWriter.
type pollWriter struct{ s *Store }

// Write implements archive.PollWriter in as few exchanges with the server
// as the poll's reads allow: the first begins the transaction, locks and
// reads the source's row and, for a document of other content than the
// source's, reads ahead its newest version and last item number
// (readAhead); the writes that return nothing wait in the transaction's
// queue and go with the statement whose answer is needed next, the last of
// them with the COMMIT (pipeline). An error rolls the transaction back.
func (w pollWriter) Write(ctx context.Context, rec dynamo.PollRecord, hash string, fn func(archive.PollTx, archive.LeasedSource) error) error {
	conn, err := w.s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	// The pool closes a connection released inside a transaction, so
	// one whose ROLLBACK failed is never reused.
	defer conn.Release()
	if w.s.wrote != nil {
		start := time.Now()
		defer func() { w.s.wrote(time.Since(start)) }()
	}
	p := pollTx{pipeline: &pipeline{tx: conn}, rec: rec}
	var (
		src     archive.LeasedSource
		owner   string
		removed bool
		found   bool
	)
	p.queue("BEGIN")
	p.queued.Queue("SELECT lease_owner, removed, last_seq, last_hash, staging FROM sources WHERE id = $1 FOR UPDATE",
		rec.SourceID).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&owner, &removed, &src.LastSeq, &src.LastHash, &src.Staging)
		found = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	if hash != "" {
		p.ahead = &readAhead{}
		p.queued.Queue(readAheadQuery, rec.SourceID, hash).QueryRow(p.ahead.scan)
	}
	if err = p.send(ctx); err != nil {
		err = fmt.Errorf("begin: %w", err)
	}
	if err == nil {
		err = archive.CheckLease(rec, found, owner, removed)
	}
	if err == nil {
		err = fn(p, src)
	}
	if err == nil {
		p.queue("COMMIT")
		if err = p.send(ctx); err != nil {
			err = fmt.Errorf("commit: %w", err)
		}
	}
	if err != nil && conn.Conn().PgConn().TxStatus() != 'I' {
		conn.Exec(context.Background(), "ROLLBACK")
	}
	return err
}

// pipeline is a connection whose writes that return nothing are queued
// and sent together, in one exchange, with the next statement whose
// answer is needed (send), instead of one exchange each. A queued write's
// error is its batch's.
type pipeline struct {
	tx     txConn
	queued pgx.Batch
	// summary holds, once StoreVersion has run, the arguments of the
	// source's new summary (setSummary), which queueUpdate writes with
	// the poll's state: one update of the source's row, not two.
	summary []any
	// newItems holds, once StoreItems has run in a poll's transaction
	// that numbers its new items as it stores them (versionTx.number),
	// their insert (insertNumbered, or insertNumberedStories, which
	// Finish sends under the stories lock), which queueUpdate queues last
	// but for the duplicates and the notification.
	newItems []any
	newSQL   string
	// numbered: the poll's new items got their aggregate numbers in
	// their insert (newSQL), so no numberAggregate follows.
	numbered bool
	// generic: the transaction runs its statements with generic plans
	// (genericPlans) until customPlans.
	generic bool
}

// genericPlans queues, unless queued already, the statement that makes
// the transaction's next statements run with the plan PostgreSQL keeps for
// all arguments (its generic plan) instead of planning each afresh for the
// arguments at hand. A version's statements that take lists of keys (the
// new items' lookup and numbered insert, the ids' reservation, the gone
// items' last_seen, the moved revisions) were planned at every poll with
// several new or gone items, because a plan for three keys looks cheaper
// than the generic plan's assumed ten, though it is the same plan
// (docs/benchmarks/poller.md, "Issue 21: several new items a poll"). Each
// finds its rows by the source's id and its keys, equal or in a list, where
// the generic plan reads the same index. A version with one new item and
// one gone asks with "=" (oneOrAny), whose one plan PostgreSQL keeps by
// itself, and pays for no statement more.
func (p *pipeline) genericPlans() {
	if !p.generic {
		p.queue("SET LOCAL plan_cache_mode = force_generic_plan")
		p.generic = true
	}
}

// customPlans queues, after genericPlans, the statement that lets
// PostgreSQL plan the rest of the transaction's statements for their
// arguments again, as by default: the poll log's trim (whose generic plan
// reads all of poll_log), duplicates, the stories' reads, whose ranges a
// plan for their values serves better.
func (p *pipeline) customPlans() {
	if p.generic {
		p.queue("SET LOCAL plan_cache_mode TO DEFAULT")
		p.generic = false
	}
}

// readAhead is what a poll's first exchange reads, with the source's row,
// for a new version of the source when the document's content is not the
// source's: its newest version (Previous) and its last item number
// (LastNumber). Nothing is read when the content is the same, for the
// source's first version (there is no newest), or while rows of a batched
// write are staged, which DropStaged deletes first.
type readAhead struct {
	found  bool
	seq    int
	revs   []byte
	seenAt time.Time
	last   int64
}

// readAheadQuery reads a readAhead of a source ($1) whose content hash is
// not $2.
const readAheadQuery = `SELECT v.seq, v.revs, v.seen_at, (SELECT coalesce(max(arch_seq), 0) FROM items WHERE source_id = $1)
	FROM sources s JOIN versions v ON v.source_id = s.id AND v.seq = s.last_seq
	WHERE s.id = $1 AND s.last_hash <> $2 AND s.staging = 0`

func (a *readAhead) scan(row pgx.Row) error {
	err := row.Scan(&a.seq, &a.revs, &a.seenAt, &a.last)
	a.found = err == nil
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	return err
}

// txConn runs the statements of a transaction: a pgx.Tx, or a pooled
// connection on which Write began one.
type txConn interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// queue adds a write to the next exchange.
func (p *pipeline) queue(sql string, args ...any) { p.queued.Queue(sql, args...) }

// send sends the queued statements, if any, and waits for their answers.
func (p *pipeline) send(ctx context.Context) error {
	if p.queued.Len() == 0 {
		return nil
	}
	b := p.queued
	p.queued = pgx.Batch{}
	return p.tx.SendBatch(ctx, &b).Close()
}

// Batches implements archive.PollWriter.
func (w pollWriter) Batches(rec dynamo.PollRecord, attempt int64, seq int, at time.Time) archive.Batches {
	return &batches{s: w.s, source: rec.SourceID, attempt: attempt, seq: seq, at: at}
}

// batches is PostgreSQL's archive.Batches: reads in a read-only
// transaction, each batch a transaction that first checks, under a share
// lock of the source's row, that the source is still staged by this
// attempt.
type batches struct {
	s       *Store
	source  string
	attempt int64
	seq     int
	at      time.Time
}

// Read implements archive.Batches.
func (b *batches) Read(ctx context.Context, fn func(archive.VersionTx) error) error {
	return pgx.BeginTxFunc(ctx, b.s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return fn(&versionTx{pipeline: &pipeline{tx: tx}, source: b.source, seq: b.seq, at: b.at})
	})
}

// Batch implements archive.Batches.
func (b *batches) Batch(ctx context.Context, fn func(archive.VersionTx) error) error {
	return b.s.inTx(ctx, func(tx pgx.Tx) error {
		var staging int64
		err := tx.QueryRow(ctx, "SELECT staging FROM sources WHERE id = $1 FOR SHARE", b.source).Scan(&staging)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read staging: %w", err)
		}
		if err := archive.StagedBatch(err == nil, staging, b.attempt); err != nil {
			return err
		}
		v := &versionTx{pipeline: &pipeline{tx: tx}, source: b.source, seq: b.seq, at: b.at}
		if err := fn(v); err != nil {
			return err
		}
		if err := v.send(ctx); err != nil {
			return fmt.Errorf("write batch: %w", err)
		}
		return nil
	})
}

// pollTx is PostgreSQL's archive.PollTx: the poll rec's transaction.
type pollTx struct {
	*pipeline
	rec   dynamo.PollRecord
	ahead *readAhead // nil when Write read none
}

// Version implements archive.PollTx: its writes join the poll's queue.
// Its new items get their aggregate numbers as they are stored, and, when
// the poll numbers stories, their story numbers in the same insert, which
// Finish sends once it holds the stories lock: every poll takes the
// stories lock (if at all) before the aggregate counter's, so two polls
// never wait for each other's (docs/STORAGE.md "Aggregate numbers").
func (p pollTx) Version(seq int, at time.Time) archive.VersionTx {
	return &versionTx{pipeline: p.pipeline, source: p.rec.SourceID, seq: seq, at: at, ahead: p.ahead,
		number: true, stories: p.rec.Stories, reserve: true}
}

// DropStaged implements archive.PollTx.
func (p pollTx) DropStaged(ctx context.Context, staging int64) error {
	if staging == 0 {
		return nil
	}
	for _, q := range []string{
		"DELETE FROM items WHERE source_id = $1 AND first_seq > (SELECT last_seq FROM sources WHERE id = $1)",
		"DELETE FROM item_revisions WHERE rev_id > (SELECT published_rev FROM sources WHERE id = $1) AND source_id = $1",
		"UPDATE sources SET staging = 0 WHERE id = $1",
	} {
		if _, err := p.tx.Exec(ctx, q, p.rec.SourceID); err != nil {
			return fmt.Errorf("delete an unpublished version's rows: %w", err)
		}
	}
	return nil
}

// Stage implements archive.PollTx, queued.
func (p pollTx) Stage(_ context.Context, attempt int64) error {
	p.queue("UPDATE sources SET staging = $2 WHERE id = $1", p.rec.SourceID, attempt)
	return nil
}

// Finish implements archive.PollTx, queued (Write sends it with the
// COMMIT).
func (p pollTx) Finish(ctx context.Context, at time.Time, result *dynamo.PollResult, decide func(dynamo.PollResult) dynamo.PollUpdate) error {
	if p.rec.Stories && len(result.NewItems) > 0 {
		p.customPlans()
		// The poll's new items are inserted with their numbers under the
		// stories lock; a batched write's, stored before, are numbered.
		number, args := numberStaged, []any{p.rec.SourceID, newKeys(result.NewItems)}
		if p.newItems != nil {
			number, args = p.newSQL, p.newItems
			p.newItems = nil
		}
		queueStories(p.pipeline, p.rec, result, number, args)
		if err := p.send(ctx); err != nil {
			return fmt.Errorf("store version and number its stories: %w", err)
		}
	}
	queueUpdate(p.pipeline, p.rec, at, *result, decide(*result))
	return nil
}

// storiesLock is the pg_advisory_xact_lock key that serializes, across
// every process on the database, the polls that store new items for a
// detector of stories, from their numbering to their commit.
const storiesLock = 0x64796e616d6f73 // "dynamos"

// queueStories queues, to go with the poll's writes in one exchange, the
// stories lock, the numbering of the poll's new items after every item
// numbered before (the lock makes numbers follow commits) by number with
// args, which returns the highest number (result.StoriesSeq), and the read
// of the items other polls numbered after rec.StoriesAfter, first seen
// since rec.StoriesSince (result.StoredSince).
func queueStories(b *pipeline, rec dynamo.PollRecord, result *dynamo.PollResult, number string, args []any) {
	b.queue("SELECT pg_advisory_xact_lock($1)", int64(storiesLock))
	b.queued.Queue(number, args...).QueryRow(func(row pgx.Row) error {
		if err := row.Scan(&result.StoriesSeq); err != nil {
			return fmt.Errorf("number new items: %w", err)
		}
		return nil
	})
	b.queued.Queue(`SELECT `+archive.StoryItemColumns+` FROM items i `+archive.StoryItemJoins+`
		WHERE i.story_seq > $1 AND i.first_seen >= $4 AND NOT (i.source_id = $2 AND i.item_id = ANY($3))
		ORDER BY i.story_seq`,
		rec.StoriesAfter, rec.SourceID, newKeys(result.NewItems), stamp(rec.StoriesSince)).Query(func(rows pgx.Rows) error {
		var err error
		if result.StoredSince, err = collect(rows, nil, archive.ScanStoryItem); err != nil {
			return fmt.Errorf("items stored since %d: %w", rec.StoriesAfter, err)
		}
		return nil
	})
}

// newKeys are the keys of a poll's new items.
func newKeys(items []dynamo.ArchivedItem) []string {
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = it.Item.ID
	}
	return keys
}

// numberStaged gives the source's ($1) stored items of keys ($2), a
// batched write's, their story numbers in the order of keys, and returns
// the highest.
const numberStaged = `WITH n AS (
		SELECT key, nextval('story_seq') AS seq FROM (
			SELECT key FROM unnest($2::text[]) WITH ORDINALITY AS u(key, ord) ORDER BY ord) AS o),
	u AS (UPDATE items i SET story_seq = n.seq FROM n WHERE i.source_id = $1 AND i.item_id = n.key RETURNING n.seq)
	SELECT coalesce(max(seq), 0) FROM u`

// setState is the SET list that writes a poll's state and releases the
// lease, over the arguments of stateArgs.
const setState = `etag = $2, last_modified = $3, body_hash = $4, last_poll = $5, next_poll = $6,
	last_change = $7, last_status = $8, errors = $9, last_error = $10, schedule = $11,
	lease_owner = '', lease_expires = '0001-01-01 00:00:00+00',
	last_version_at = coalesce($12, last_version_at),
	poll_counts = jsonb_set(poll_counts, ARRAY[$13::text], to_jsonb(coalesce((poll_counts->>$13::text)::int, 0) + 1)),
	poll_warnings = $14`

// stateArgs are setState's arguments ($1 the source), then the poll log
// entry's ($15 to $21).
func stateArgs(rec dynamo.PollRecord, at time.Time, result dynamo.PollResult, upd dynamo.PollUpdate) []any {
	st := upd.State
	var versionAt any
	if result.Version != nil {
		versionAt = at
	}
	logAt := upd.Log.At
	if logAt.IsZero() {
		logAt = at
	}
	return []any{rec.SourceID, st.ETag, st.LastModified, st.BodyHash, stamp(st.LastPoll), stamp(st.NextPoll),
		stamp(st.LastChange), string(st.LastStatus), st.Errors, st.LastError, archive.ScheduleArg(st.Schedule),
		versionAt, string(upd.Log.Status), archive.WarningsText(st.Warnings),
		stamp(logAt), int64(upd.Log.Duration), upd.Log.NewItems, upd.Log.Error, upd.Log.HTTPStatus, upd.Log.Bytes}
}

// recordUnchanged records a poll that read nothing new in one statement,
// so one round trip: the lease check (the UPDATE finds the row only while
// rec.Owner holds it), the state, the lease's release, the log entry and
// its trimming (at times: archive.TrimPollLog). It writes only soft
// state, so its commit does not wait for the WAL flush (docs/STORAGE.md,
// "What a crash can lose").
func (s *Store) recordUnchanged(ctx context.Context, rec dynamo.PollRecord, upd dynamo.PollUpdate) error {
	args := append(stateArgs(rec, stamp(rec.At), dynamo.PollResult{}, upd), rec.Owner, archive.PollLogLimit-1, archive.TrimPollLog())
	// The statement's parts see one snapshot: the trim does not see the
	// new entry, so it keeps one old entry fewer.
	var n int
	err := s.pool.QueryRow(ctx, `WITH s AS (
			UPDATE sources SET `+setState+`
			WHERE id = $1 AND lease_owner = $21 AND NOT removed
			RETURNING id),
		l AS (INSERT INTO poll_log (source_id, at, status, duration_ns, new_items, error, http_status, bytes)
			SELECT id, $15, $13, $16, $17, $18, $19, $20 FROM s),
		d AS (DELETE FROM poll_log WHERE id IN (SELECT id FROM poll_log
			WHERE $23 AND source_id = $1 AND EXISTS (SELECT FROM s) ORDER BY at DESC, id DESC OFFSET $22))
		SELECT count(*), set_config('synchronous_commit', 'off', true) FROM s`, args...).Scan(&n, new(string))
	switch {
	case err != nil:
		return fmt.Errorf("record poll of %s: %w", rec.SourceID, err)
	case n == 0:
		return fmt.Errorf("record poll of %s: %w", rec.SourceID, dynamo.ErrLeaseLost)
	}
	return nil
}

// queueUpdate queues what the poller decided: the source's state, the
// lease's release, the log entry (and, at times, its trimming:
// archive.TrimPollLog), duplicates and the change's notification.
func queueUpdate(b *pipeline, rec dynamo.PollRecord, at time.Time, result dynamo.PollResult, upd dynamo.PollUpdate) {
	if result.Version == nil && len(upd.Duplicates) == 0 {
		// A poll that stored nothing new writes only soft state: the
		// schedule, validators, counters and the log. Its commit need not
		// wait for the disk; should the server crash before the WAL is
		// flushed, the source is merely polled again. Versions and
		// duplicates keep the durable commit.
		b.queue("SET LOCAL synchronous_commit = off")
	}
	args := stateArgs(rec, at, result, upd)
	if b.summary != nil {
		b.queue(`UPDATE sources SET `+setState+`, `+setSummary+` WHERE id = $1`, append(args[:14:14], b.summary...)...)
	} else {
		b.queue(`UPDATE sources SET `+setState+` WHERE id = $1`, args[:14]...)
	}
	b.queue(`INSERT INTO poll_log (source_id, at, status, duration_ns, new_items, error, http_status, bytes)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, append([]any{args[0], args[14], args[12]}, args[15:]...)...)
	// The aggregate numbers late, so that the counter's row is locked
	// only for the rest of the batch and the commit.
	if b.newItems != nil {
		b.queue(b.newSQL, b.newItems...)
	}
	b.customPlans()
	if archive.TrimPollLog() {
		b.queue(`DELETE FROM poll_log WHERE id IN (SELECT id FROM poll_log WHERE source_id = $1
			ORDER BY at DESC, id DESC OFFSET $2)`, rec.SourceID, archive.PollLogLimit)
	}
	if len(upd.Duplicates) > 0 {
		queueDuplicates(b, upd.Duplicates)
	}
	if result.Version != nil || len(upd.Duplicates) > 0 {
		b.queue("SELECT pg_notify($1, $2)", ChangeChannel, rec.SourceID)
	}
	if !b.numbered && result.Version != nil && len(result.NewItems) > 0 {
		b.queue(numberAggregate, rec.SourceID)
	}
}

// numberAggregate gives the items the poll publishes their aggregate
// numbers (docs/STORAGE.md "Aggregate numbers"): the source's items without
// one, in the order of their numbers in the source, after every number
// handed out before. Both reads of the items go through the partial index
// items_unnumbered, so the cost does not grow with the source's archive.
// The counter's row stays locked until the transaction
// ends, so a transaction handing out numbers waits for the one before it
// to commit: numbers become visible in the order handed out, and a page of
// the aggregate's archived feed whose numbers are all handed out has all
// its items committed.
const numberAggregate = `WITH p AS (
		SELECT item_id, row_number() OVER (ORDER BY arch_seq) AS r FROM items WHERE source_id = $1 AND agg_seq IS NULL),
	c AS (UPDATE aggregate_counter SET n = n + (SELECT count(*) FROM p) RETURNING n - (SELECT count(*) FROM p) AS base)
	UPDATE items i SET agg_seq = c.base + p.r FROM p, c
	WHERE i.source_id = $1 AND i.agg_seq IS NULL AND i.item_id = p.item_id`

// insertNumbered stores a version's new items ($4 to $8: keys, first
// revisions, positions, indexes, numbers in the source) as StoreItems
// does, handing them their aggregate numbers as numberAggregate would
// (after the counter, in the order of their numbers in the source, the
// counter's row locked until the commit), for a poll's transaction whose
// new items are the only ones of the source without one: a batched
// write's items, stored before their version is published, get theirs
// from numberAggregate. Numbered as they are stored, the items are
// written once, not again with their numbers. insertNumberedOne is the
// same for one item ($4 to $8 its values), as a version mostly gains one:
// PostgreSQL keeps one plan of it for all polls, where it plans the
// arrays' statement afresh for their length at every poll.
const insertNumberedOne = `WITH c AS (UPDATE aggregate_counter SET n = n + 1 RETURNING n)
	INSERT INTO items (source_id, item_id, first_seen, first_seq, first_pos, first_index, latest_rev, first_rev,
		arch_seq, agg_seq)
	SELECT $1, $4, $2, $3, $6, $7, $5, $5, $8, c.n FROM c`

const insertNumbered = `WITH c AS (
		UPDATE aggregate_counter SET n = n + cardinality($4::text[]) RETURNING n - cardinality($4::text[]) AS base)
	INSERT INTO items (source_id, item_id, first_seen, first_seq, first_pos, first_index, latest_rev, first_rev,
		arch_seq, agg_seq)
	SELECT $1, u.key, $2, $3, u.pos, u.idx, u.rev, u.rev, u.num, c.base + row_number() OVER (ORDER BY u.num)
	FROM unnest($4::text[], $5::int8[], $6::int[], $7::int[], $8::int8[]) AS u(key, rev, pos, idx, num), c`

// insertNumberedStories is insertNumbered for a poll that numbers stories:
// it also hands the items their story numbers (story_seq, in the order of
// the keys, as numberStaged would) and returns the highest, so that each
// item is written once instead of inserted and then updated twice (its
// story number, its aggregate number: each update a new row version with
// an entry in each of items' indexes, docs/STORAGE.md "Aggregate
// numbers"). Finish runs it under the stories lock, which every poll takes
// before the aggregate counter's row.
const insertNumberedStories = `WITH c AS (
		UPDATE aggregate_counter SET n = n + cardinality($4::text[]) RETURNING n - cardinality($4::text[]) AS base),
	s AS (SELECT ord, nextval('story_seq') AS seq FROM (
		SELECT ord FROM generate_series(1, cardinality($4::text[])) AS g(ord) ORDER BY ord) AS o),
	i AS (INSERT INTO items (source_id, item_id, first_seen, first_seq, first_pos, first_index, latest_rev, first_rev,
			arch_seq, agg_seq, story_seq)
		SELECT $1, u.key, $2, $3, u.pos, u.idx, u.rev, u.rev, u.num, c.base + row_number() OVER (ORDER BY u.num), s.seq
		FROM unnest($4::text[], $5::int8[], $6::int[], $7::int[], $8::int8[]) WITH ORDINALITY AS u(key, rev, pos, idx, num, ord)
			JOIN s USING (ord), c
		RETURNING story_seq)
	SELECT coalesce(max(story_seq), 0) FROM i`

// queueDuplicates records duplicates whose items both exist; a primary
// purged since the detector saw it is skipped, a matched copy purged since
// is left out.
func queueDuplicates(b *pipeline, dups []dynamo.Duplicate) {
	n := len(dups)
	src, item, psrc, pitem := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	msrc, mitem, rule := make([]string, n), make([]string, n), make([]string, n)
	score := make([]float64, n)
	for i, d := range dups {
		src[i], item[i] = d.Item.SourceID, d.Item.ItemID
		psrc[i], pitem[i] = d.Primary.SourceID, d.Primary.ItemID
		msrc[i], mitem[i] = d.Matched.SourceID, d.Matched.ItemID
		rule[i], score[i] = d.Rule, d.Score
	}
	b.queue(`INSERT INTO duplicates (source_id, item_id, primary_source, primary_item, rule, score, matched_source, matched_item)
		SELECT d.s, d.i, d.ps, d.pi, d.rule, d.score, m.source_id, m.item_id
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::text[])
			AS d(s, i, ps, pi, rule, score, ms, mi)
		LEFT JOIN items m ON m.source_id = d.ms AND m.item_id = d.mi
		WHERE EXISTS (SELECT 1 FROM items WHERE source_id = d.s AND item_id = d.i)
			AND EXISTS (SELECT 1 FROM items WHERE source_id = d.ps AND item_id = d.pi)
		ON CONFLICT (source_id, item_id) DO UPDATE SET primary_source = excluded.primary_source,
			primary_item = excluded.primary_item, rule = excluded.rule, score = excluded.score,
			matched_source = excluded.matched_source, matched_item = excluded.matched_item`,
		src, item, psrc, pitem, rule, score, msrc, mitem)
}

// versionTx is PostgreSQL's SQL for archive.WriteVersion: one source's
// version being stored in a transaction whose writes are queued
// (StoreItems, StoreVersion) and sent by whoever made it, with its last
// exchange.
type versionTx struct {
	*pipeline
	source string
	seq    int
	at     time.Time
	ahead  *readAhead // nil when none was read
	// number: the new items get their aggregate numbers as they are
	// stored (insertNumbered), in a poll's transaction; stories: their
	// story numbers too (insertNumberedStories).
	number, stories bool
	// reserve: Stored reserves revision ids (not in a read-only
	// transaction), which InsertRevisions takes; reserved holds them.
	reserve  bool
	reserved []int64
}

var _ archive.VersionTx = (*versionTx)(nil)

// Stored implements archive.VersionTx in one exchange, which reserves the
// revisions' ids in a poll's transaction, so that their insert waits for
// the COMMIT's exchange instead of having one of its own (InsertRevisions).
func (w *versionTx) Stored(ctx context.Context, keys, titles []string, revisions int) (map[string]archive.Known, map[string][]string, error) {
	known := map[string]archive.Known{}
	if len(keys) > 1 || (w.reserve && revisions > 1) {
		w.genericPlans()
	}
	if len(keys) > 0 {
		match, arg := oneOrAny(keys)
		w.queued.Queue(`SELECT item_id, first_seen, first_pos, first_index, latest_rev FROM items
			WHERE source_id = $1 AND item_id `+match, w.source, arg).Query(func(rows pgx.Rows) error {
			var key string
			var k archive.Known
			_, err := pgx.ForEachRow(rows, []any{&key, &k.FirstSeen, &k.FirstPos, &k.FirstIndex, &k.LatestRev}, func() error {
				known[key] = k
				return nil
			})
			if err != nil {
				return fmt.Errorf("read items: %w", err)
			}
			return nil
		})
	}
	var byTitle map[string][]string
	if len(titles) > 0 {
		byTitle = map[string][]string{}
		// The titles' md5 come as an array that item_revisions_title is
		// searched with, so that a plan kept for any titles (PostgreSQL's
		// generic plan) still reads only theirs.
		w.queued.Queue(`SELECT r.title, r.item_key, max(r.rev_id) AS rev FROM item_revisions r
			WHERE r.source_id = $1 AND md5(r.title) = ANY(ARRAY(SELECT md5(t) FROM unnest($2::text[]) AS t))
				AND r.title = ANY($2)
			GROUP BY r.title, r.item_key ORDER BY rev DESC`, w.source, titles).Query(func(rows pgx.Rows) error {
			var title, key string
			var rev int64
			_, err := pgx.ForEachRow(rows, []any{&title, &key, &rev}, func() error {
				byTitle[title] = append(byTitle[title], key)
				return nil
			})
			if err != nil {
				return fmt.Errorf("find items by title: %w", err)
			}
			return nil
		})
	}
	if w.reserve && revisions > 0 {
		// One id, as a version mostly needs, without a series: PostgreSQL
		// keeps one plan of that for all polls.
		reserve, args := `SELECT nextval('item_revisions_rev_id_seq')`, []any(nil)
		if revisions > 1 {
			reserve, args = reserve+` FROM generate_series(1, $1)`, []any{revisions}
		}
		w.queued.Queue(reserve, args...).Query(func(rows pgx.Rows) error {
			var err error
			w.reserved, err = pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return fmt.Errorf("reserve revision ids: %w", err)
			}
			return nil
		})
	}
	if err := w.send(ctx); err != nil {
		return nil, nil, err
	}
	return known, byTitle, nil
}

// Revisions implements archive.VersionTx. The keys and the hashes are
// searched for as two lists in the unique index of (source_id, item_key,
// rhash), so that a plan kept for any lists (PostgreSQL's generic plan)
// still reads only theirs; a revision of one key with another's hash
// comes back too, its id as true as any.
func (w *versionTx) Revisions(ctx context.Context, keys []string, hashes [][]byte) (map[string]int64, error) {
	rows, err := w.tx.Query(ctx, `SELECT item_key, rhash, rev_id FROM item_revisions
		WHERE source_id = $1 AND item_key = ANY($2) AND rhash = ANY($3)`, w.source, keys, hashes)
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	ids := map[string]int64{}
	if err := collectRevisionIDs(rows, ids); err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	return ids, nil
}

// collectRevisionIDs adds rows of (item_key, rhash, rev_id) to ids.
func collectRevisionIDs(rows pgx.Rows, ids map[string]int64) error {
	var key string
	var rhash []byte
	var id int64
	_, err := pgx.ForEachRow(rows, []any{&key, &rhash, &id}, func() error {
		ids[archive.RevKey(key, rhash)] = id
		return nil
	})
	return err
}

// InsertRevisions implements archive.VersionTx, in one statement: queued
// with the ids Stored reserved when there are enough, else sent, its ids
// returned.
func (w *versionTx) InsertRevisions(ctx context.Context, revs []archive.Revision, ids map[string]int64) error {
	n := len(revs)
	var (
		keys, titles, links, descs, texts = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		hashes                            = make([][]byte, n)
		docIDs, images, exts, medias      = make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
		titleF, linkF, textF              = make([]*string, n), make([]*string, n), make([]*string, n)
		fromContent, latest               = make([]bool, n), make([]bool, n)
		firstSeen                         = make([]time.Time, n)
		firstPos, firstIndex              = make([]int32, n), make([]int32, n)
	)
	for i, r := range revs {
		it := r.Item
		keys[i], hashes[i] = r.Key, r.Hash
		if it.ID != r.Key {
			docIDs[i] = &it.ID
		}
		titles[i], links[i], descs[i], texts[i] = it.Title, it.Link, it.Description, it.Text
		images[i], exts[i] = orNil(archive.JSON(it.Image != nil, it.Image)), orNil(archive.JSON(len(it.Extensions) > 0, it.Extensions))
		medias[i] = orNil(archive.MediaJSON(it))
		titleF[i], linkF[i], textF[i] = orNil(archive.Folded(it.Title)), orNil(archive.Folded(it.Link)), orNil(archive.Folded(it.Text))
		fromContent[i] = it.IDFromContent
		firstSeen[i], firstPos[i], firstIndex[i], latest[i] = r.FirstSeen, int32(r.FirstPos), int32(r.FirstIndex), r.Latest
	}
	args := []any{w.source, keys, hashes, docIDs, titles, links, descs, texts, images, exts, fromContent,
		titleF, linkF, textF, firstSeen, firstPos, firstIndex, latest, medias}
	const columns = `item_key, rhash, doc_id, title, link, description, plain_text, image, extensions,
		id_from_content, title_f, link_f, text_f, first_seen, first_pos, first_index, latest, media`
	const values = `unnest($2::text[], $3::bytea[], $4::text[], $5::text[], $6::text[], $7::text[],
		$8::text[], $9::json[], $10::json[], $11::bool[], $12::text[], $13::text[], $14::text[],
		$15::timestamptz[], $16::int[], $17::int[], $18::bool[], $19::json[]`
	if len(w.reserved) >= n {
		revIDs := w.reserved[:n]
		w.reserved = w.reserved[n:]
		for i, r := range revs {
			ids[archive.RevKey(r.Key, r.Hash)] = revIDs[i]
		}
		w.queue(`INSERT INTO item_revisions (source_id, `+columns+`, rev_id) OVERRIDING SYSTEM VALUE
			SELECT $1, u.* FROM `+values+`, $20::int8[]) AS u(`+columns+`, rev_id)`, append(args, revIDs)...)
		return nil
	}
	rows, err := w.tx.Query(ctx, `INSERT INTO item_revisions (source_id, `+columns+`)
		SELECT $1, u.* FROM `+values+`) AS u
		RETURNING item_key, rhash, rev_id`, args...)
	if err != nil {
		return fmt.Errorf("insert revisions: %w", err)
	}
	if err := collectRevisionIDs(rows, ids); err != nil {
		return fmt.Errorf("insert revisions: %w", err)
	}
	return nil
}

// oneOrAny is the condition and argument ($2) that match an items row's
// item_id against keys: "= $2" for one key, as a version mostly gains one
// item and loses one, "= ANY($2)" for several. PostgreSQL keeps one plan
// for all polls of the first (its generic plan costs what a plan for the
// key at hand would), where it plans the second afresh at every poll
// (its generic plan assumes ten keys, a plan for one is cheaper), which
// cost more than running it.
func oneOrAny(keys []string) (string, any) {
	if len(keys) == 1 {
		return "= $2", keys[0]
	}
	return "= ANY($2)", keys
}

// orNil is a value that may be SQL NULL as pgx takes it.
func orNil(s string, present bool) *string {
	if !present {
		return nil
	}
	return &s
}

// Previous implements archive.VersionTx: the version's row, unless Write
// read it ahead, then its revisions.
func (w *versionTx) Previous(ctx context.Context, seq int) ([]archive.Position, time.Time, error) {
	var packed []byte
	var seenAt time.Time
	if a := w.ahead; a != nil && a.found && a.seq == seq {
		packed, seenAt = a.revs, a.seenAt
	} else if err := w.tx.QueryRow(ctx, "SELECT revs, seen_at FROM versions WHERE source_id = $1 AND seq = $2",
		w.source, seq).Scan(&packed, &seenAt); err != nil {
		return nil, seenAt, fmt.Errorf("read previous version: %w", err)
	}
	revs, err := archive.UnpackRevs(packed)
	if err != nil {
		return nil, seenAt, fmt.Errorf("read previous version: %w", err)
	}
	rows, err := w.tx.Query(ctx, `SELECT item_key, rhash, rev_id, first_seen, first_pos, first_index, latest
		FROM item_revisions WHERE rev_id = ANY($1)`, revs)
	if err != nil {
		return nil, seenAt, fmt.Errorf("read previous version: %w", err)
	}
	byRev := make(map[int64]archive.Position, len(revs))
	var p archive.Position
	_, err = pgx.ForEachRow(rows, []any{&p.Key, &p.Hash, &p.Rev, &p.FirstSeen, &p.FirstPos, &p.FirstIndex, &p.Latest}, func() error {
		byRev[p.Rev] = p
		return nil
	})
	if err != nil {
		return nil, seenAt, fmt.Errorf("read previous version: %w", err)
	}
	positions := make([]archive.Position, len(revs))
	for i, rev := range revs {
		var ok bool
		if positions[i], ok = byRev[rev]; !ok {
			return nil, seenAt, fmt.Errorf("read previous version: revision %d of position %d is not stored", rev, i+1)
		}
	}
	return positions, seenAt, nil
}

// LastNumber implements archive.VersionTx, from the numbers' index unless
// Write read it ahead.
func (w *versionTx) LastNumber(ctx context.Context) (int64, error) {
	if a := w.ahead; a != nil && a.found && a.seq == w.seq-1 {
		return a.last, nil
	}
	var n int64
	if err := w.tx.QueryRow(ctx, "SELECT coalesce(max(arch_seq), 0) FROM items WHERE source_id = $1",
		w.source).Scan(&n); err != nil {
		return 0, fmt.Errorf("last item number: %w", err)
	}
	return n, nil
}

// StoreItems implements archive.VersionTx, queued.
func (w *versionTx) StoreItems(_ context.Context, ch archive.ItemChanges) error {
	b := w.pipeline
	if len(ch.New) > 1 || len(ch.Moved) > 0 || len(ch.Back) > 1 || len(ch.Gone) > 1 {
		b.genericPlans()
	}
	if n := len(ch.New); n > 0 {
		keys, revs, nums := make([]string, n), make([]int64, n), make([]int64, n)
		pos, indexes := make([]int32, n), make([]int32, n)
		for i, it := range ch.New {
			keys[i], revs[i], nums[i] = it.Key, it.Rev, it.Number
			pos[i], indexes[i] = int32(it.Pos), int32(it.Index)
		}
		args := []any{w.source, w.at, w.seq, keys, revs, pos, indexes, nums}
		b.numbered = w.number
		switch {
		case w.stories:
			b.newSQL, b.newItems = insertNumberedStories, args
		case w.number && n == 1:
			b.newSQL, b.newItems = insertNumberedOne, []any{w.source, w.at, w.seq, keys[0], revs[0], pos[0], indexes[0], nums[0]}
		case w.number:
			b.newSQL, b.newItems = insertNumbered, args
		default:
			b.queue(`INSERT INTO items (source_id, item_id, first_seen, first_seq, first_pos, first_index, latest_rev,
					first_rev, arch_seq)
				SELECT $1, c.key, $2, $3, c.pos, c.idx, c.rev, c.rev, c.num
				FROM unnest($4::text[], $5::int8[], $6::int[], $7::int[], $8::int8[]) AS c(key, rev, pos, idx, num)`, args...)
		}
	}
	if n := len(ch.Moved); n > 0 {
		keys, revs := make([]string, n), make([]int64, n)
		for i, m := range ch.Moved {
			keys[i], revs[i] = m.Key, m.Rev
		}
		// New revisions were inserted with their latest flag; stored items
		// whose shown revision changed move it.
		b.queue(`UPDATE item_revisions r SET latest = (r.rev_id = c.rev)
			FROM unnest($2::text[], $3::int8[]) AS c(key, rev)
			WHERE r.source_id = $1 AND r.item_key = c.key AND r.latest <> (r.rev_id = c.rev)`,
			w.source, keys, revs)
		b.queue(`UPDATE items i SET latest_rev = c.rev FROM unnest($2::text[], $3::int8[]) AS c(key, rev)
			WHERE i.source_id = $1 AND i.item_id = c.key`, w.source, keys, revs)
	}
	if len(ch.Back) > 0 {
		match, arg := oneOrAny(ch.Back)
		b.queue(`UPDATE items SET last_seen = NULL WHERE source_id = $1 AND item_id `+match, w.source, arg)
	}
	if len(ch.Gone) > 0 {
		match, arg := oneOrAny(ch.Gone)
		b.queue(`UPDATE items SET last_seen = $3 WHERE source_id = $1 AND item_id `+match, w.source, arg, ch.GoneAt)
	}
	return nil
}

// StoreVersion implements archive.VersionTx, queued: the version row and
// its channel (stored once per source and content, in the same
// statement); the source's summary waits for the poll's state
// (queueUpdate).
func (w *versionTx) StoreVersion(_ context.Context, nv archive.NewVersion) error {
	v, doc := nv.Version, nv.Doc
	channel, key, err := archive.Channel(doc.Channel)
	if err != nil {
		return err
	}
	var indexes []int32
	for _, i := range nv.Indexes {
		indexes = append(indexes, int32(i))
	}
	// The source's lease keeps other writers of its channels out, so a
	// channel that the INSERT finds stored is visible to the SELECT.
	w.queue(`WITH added AS (
			INSERT INTO channels (source_id, chash, body) VALUES ($1, $15, $8)
			ON CONFLICT (source_id, chash) DO NOTHING RETURNING channel_id),
		ch AS (SELECT channel_id FROM added
			UNION ALL SELECT channel_id FROM channels WHERE source_id = $1 AND chash = $15)
		INSERT INTO versions (source_id, seq, seen_at, hash, url, rss_id, stamp, channel_id, title,
			item_count, added, removed, revs, indexes)
		SELECT $1, $2, $3, $4, $5, $6, $7, (SELECT channel_id FROM ch LIMIT 1), $9, $10, $11, $12, $13, $14`,
		w.source, w.seq, w.at, v.Hash, doc.URL, doc.RSSID, stamp(doc.Timestamp), channel,
		v.Title, v.Items, v.Added, v.Removed, archive.PackRevs(nv.Revs), indexes, key)
	w.summary = []any{w.seq, v.Hash, v.Title, nv.NewItems, nv.Published}
	return nil
}

// setSummary is the SET list that writes a source's summary for a new
// version, after setState's arguments ($15 to $19: pipeline.summary).
const setSummary = `last_seq = $15, last_hash = $16, title = $17, item_count = item_count + $18,
	published_rev = greatest(published_rev, $19)`
