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

// sourceColumns is what archive.ScanSource reads: the shared columns,
// then the poll counts, kept as one jsonb column.
const sourceColumns = archive.SourceColumns + ", s.poll_counts"

// collectSources reads the rows of sourceColumns.
func collectSources(rows pgx.Rows) ([]dynamo.Source, error) {
	defer rows.Close()
	return archive.Collect(rows, archive.ScanSource)
}

// stamp prepares a time for storage: PostgreSQL keeps microseconds.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// stampArg is stamp as the shared code's writers take it (archive.SubscriptionArgs).
func stampArg(t time.Time) any { return stamp(t) }

// CreateSource stores a new source, or revives a removed one with its
// archive. A zero CreatedAt is set to now.
func (s *Store) CreateSource(ctx context.Context, src *dynamo.Source) error {
	if err := archive.PrepareNew(src); err != nil {
		return err
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO sources (`+archive.NewSourceColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)
			ON CONFLICT (id) DO UPDATE SET url = $2, kind = $3, interval_ns = $4, policy = $5, category = $6,
				title_prefix = $7, subscribers = $8, timezone = $9, paused = $10, created_at = $11,
				etag = $12, last_modified = $13, body_hash = $14, last_poll = $15, next_poll = $16,
				last_change = $17, last_status = $18, errors = $19, last_error = $20, schedule = $21,
				selectors = $22, poll_warnings = $23, ignore_robots = $24, user_title = $25, removed = false, lease_owner = '', lease_expires = '0001-01-01 00:00:00+00'
			WHERE sources.removed`, archive.NewSourceArgs(src, stampArg)...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return dynamo.ErrConflict
		}
		return notify(ctx, tx, src.ID)
	})
	if err != nil {
		return fmt.Errorf("create source %s: %w", src.ID, err)
	}
	return nil
}

// Source returns one source, active or removed with its archive kept.
func (s *Store) Source(ctx context.Context, id string) (*dynamo.Source, error) {
	src, err := archive.ScanSource(s.pool.QueryRow(ctx, "SELECT "+sourceColumns+" FROM sources s WHERE s.id = $1", id))
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", id, notFound(err))
	}
	return &src, nil
}

// EachSource reads the sources with one query, row by row.
func (s *Store) EachSource(ctx context.Context, collections bool, fn func(*dynamo.Source) error) error {
	what, where := "sources", "WHERE NOT s.removed"
	if collections {
		what, where = "collections", ""
	}
	rows, err := s.pool.Query(ctx, "SELECT "+sourceColumns+" FROM sources s "+where+" ORDER BY s.id")
	if err != nil {
		return fmt.Errorf("list %s: %w", what, err)
	}
	defer rows.Close()
	if err := archive.Each(rows, archive.ScanSource, func(src dynamo.Source) error { return fn(&src) }); err != nil {
		return fmt.Errorf("list %s: %w", what, err)
	}
	return nil
}

// UpdateSource changes an active source's configuration.
func (s *Store) UpdateSource(ctx context.Context, src *dynamo.Source) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// A new address starts afresh: the validators and the body hash
		// belong to the old one (the right-hand side reads the old row).
		tag, err := tx.Exec(ctx, `UPDATE sources SET url = $2, kind = $3, interval_ns = $4, policy = $5,
				category = $6, title_prefix = $7, subscribers = $8, timezone = $9, paused = $10, selectors = $11,
				ignore_robots = $12, user_title = $13,
				etag = CASE WHEN url = $2 THEN etag ELSE '' END,
				last_modified = CASE WHEN url = $2 THEN last_modified ELSE '' END,
				body_hash = CASE WHEN url = $2 THEN body_hash ELSE '' END
			WHERE id = $1 AND NOT removed`, archive.ConfigArgs(src)...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return dynamo.ErrNotFound
		}
		return notify(ctx, tx, src.ID)
	})
	if err != nil {
		return fmt.Errorf("update source %s: %w", src.ID, err)
	}
	return nil
}

// DeleteSource stops polling a source and drops its lease. Its archive
// stays unless purge is set or it has no versions, in which case the source
// goes entirely. A removed source can still be purged.
func (s *Store) DeleteSource(ctx context.Context, id string, purge bool) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var removed bool
		var versions int
		err := tx.QueryRow(ctx, "SELECT removed, last_seq FROM sources WHERE id = $1 FOR UPDATE", id).Scan(&removed, &versions)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		drop, err := archive.Removal(err == nil, removed, versions, purge)
		if err != nil {
			return err
		}
		if drop {
			_, err = tx.Exec(ctx, "DELETE FROM sources WHERE id = $1", id)
		} else {
			_, err = tx.Exec(ctx, `UPDATE sources SET removed = true, lease_owner = '',
				lease_expires = '0001-01-01 00:00:00+00' WHERE id = $1`, id)
		}
		if err != nil {
			return err
		}
		return notify(ctx, tx, id)
	})
	if err != nil {
		return fmt.Errorf("delete source %s: %w", id, err)
	}
	return nil
}

// leaseDue leases up to $3 sources due at $2 to owner $1 until $4,
// returning the columns that follow it. The leased ids are an array, which
// the planner always looks up by primary key: joined with the locked rows
// as a table, it was estimated from LIMIT's parameter and, on a table of
// 10,000 sources, read the whole table to update 64 rows.
const leaseDue = `WITH due AS (
		SELECT id FROM sources
		WHERE NOT removed AND NOT paused AND next_poll <= $2
			AND (lease_owner = '' OR lease_expires <= $2)
		ORDER BY next_poll, id
		LIMIT $3
		FOR UPDATE SKIP LOCKED)
	UPDATE sources s SET lease_owner = $1, lease_expires = $4
	WHERE s.id = ANY (ARRAY(SELECT id FROM due))
	RETURNING `

// LeaseDue leases up to limit due sources to owner. Rows that another
// transaction is leasing are skipped rather than waited for, so concurrent
// pollers divide the due sources between them. A source owner already holds
// is not handed out again until its lease expires, so that a poll still in
// flight is not started twice.
func (s *Store) LeaseDue(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration, hosts dynamo.LeaseHosts) ([]dynamo.Source, error) {
	if err := archive.CheckOwner("lease due sources", owner); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	now = stamp(now)
	if hosts.Limited() {
		return s.leaseDueByHost(ctx, owner, now, limit, ttl, hosts)
	}
	rows, err := s.pool.Query(ctx, leaseDue+sourceColumns, owner, now, limit, stamp(now.Add(ttl)))
	if err != nil {
		return nil, fmt.Errorf("lease due sources: %w", err)
	}
	list, err := collectSources(rows)
	if err != nil {
		return nil, fmt.Errorf("lease due sources: %w", err)
	}
	archive.SortByNextPoll(list)
	return list, nil
}

// leaseDueByHost is LeaseDue within hosts' limits: the due rows are
// locked (skipping those other transactions hold), chosen by host in Go,
// and only the chosen ones leased, all in one transaction.
func (s *Store) leaseDueByHost(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration, hosts dynamo.LeaseHosts) ([]dynamo.Source, error) {
	var list []dynamo.Source
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, url FROM sources
			WHERE NOT removed AND NOT paused AND next_poll <= $1
				AND (lease_owner = '' OR lease_expires <= $1)
			ORDER BY next_poll, id
			LIMIT $2
			FOR UPDATE SKIP LOCKED`, now, hosts.Scan(limit))
		if err != nil {
			return err
		}
		chosen, err := archive.PickDue(rows, hosts, limit)
		rows.Close()
		if err != nil {
			return err
		}
		if len(chosen) == 0 {
			return nil
		}
		rows, err = tx.Query(ctx, `UPDATE sources s SET lease_owner = $1, lease_expires = $2
			WHERE s.id = ANY($3) RETURNING `+sourceColumns, owner, stamp(now.Add(ttl)), chosen)
		if err != nil {
			return err
		}
		list, err = collectSources(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("lease due sources: %w", err)
	}
	archive.SortByNextPoll(list)
	return list, nil
}

// LeaseSource leases one active source now, due or not.
func (s *Store) LeaseSource(ctx context.Context, id, owner string, now time.Time, ttl time.Duration) (*dynamo.Source, error) {
	if err := archive.CheckOwner("lease source "+id, owner); err != nil {
		return nil, err
	}
	now = stamp(now)
	// One statement, so one round trip: a poll now costs as little as a
	// scheduled one. Only when it leases nothing is the reason looked up.
	src, err := archive.ScanSource(s.pool.QueryRow(ctx, `UPDATE sources s SET lease_owner = $2, lease_expires = $4
		WHERE s.id = $1 AND NOT s.removed AND (s.lease_owner IN ('', $2) OR s.lease_expires <= $3)
		RETURNING `+sourceColumns, id, owner, now, stamp(now.Add(ttl))))
	if errors.Is(err, pgx.ErrNoRows) {
		var removed bool
		switch err = s.pool.QueryRow(ctx, "SELECT removed FROM sources WHERE id = $1", id).Scan(&removed); {
		case errors.Is(err, pgx.ErrNoRows) || err == nil && removed:
			err = dynamo.ErrNotFound
		case err == nil:
			err = dynamo.ErrLeaseLost
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lease source %s: %w", id, err)
	}
	return &src, nil
}

// ReleaseLeases gives up every lease owner holds.
func (s *Store) ReleaseLeases(ctx context.Context, owner string) error {
	_, err := s.pool.Exec(ctx, `UPDATE sources SET lease_owner = '', lease_expires = '0001-01-01 00:00:00+00'
		WHERE lease_owner = $1`, owner)
	if err != nil {
		return fmt.Errorf("release leases of %s: %w", owner, err)
	}
	return nil
}

// SetNextPolls moves the next poll of the given sources; unknown ids are
// ignored.
func (s *Store) SetNextPolls(ctx context.Context, next map[string]time.Time) error {
	if len(next) == 0 {
		return nil
	}
	ids := make([]string, 0, len(next))
	times := make([]time.Time, 0, len(next))
	for id, t := range next {
		ids = append(ids, id)
		times = append(times, stamp(t))
	}
	_, err := s.pool.Exec(ctx, `UPDATE sources s SET next_poll = n.at
		FROM unnest($1::text[], $2::timestamptz[]) AS n(id, at) WHERE s.id = n.id`, ids, times)
	if err != nil {
		return fmt.Errorf("set next polls: %w", err)
	}
	return nil
}

// Setting returns a value, or ErrNotFound.
func (s *Store) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, "SELECT value FROM settings WHERE key = $1", key).Scan(&v)
	if err != nil {
		return "", fmt.Errorf("setting %s: %w", key, notFound(err))
	}
	return v, nil
}

// PutSetting stores a value, replacing any earlier one.
func (s *Store) PutSetting(ctx context.Context, key, value string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO settings (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("put setting %s: %w", key, err)
	}
	return nil
}

// SettingsWithPrefix returns the values whose keys start with prefix.
func (s *Store) SettingsWithPrefix(ctx context.Context, prefix string) (map[string]string, error) {
	rows, err := s.pool.Query(ctx, "SELECT key, value FROM settings WHERE starts_with(key, $1)", prefix)
	if err != nil {
		return nil, fmt.Errorf("settings %s…: %w", prefix, err)
	}
	out := map[string]string{}
	var k, v string
	if _, err := pgx.ForEachRow(rows, []any{&k, &v}, func() error { out[k] = v; return nil }); err != nil {
		return nil, fmt.Errorf("settings %s…: %w", prefix, err)
	}
	return out, nil
}

// DeleteSetting deletes a value, if there is one.
func (s *Store) DeleteSetting(ctx context.Context, key string) error {
	if _, err := s.pool.Exec(ctx, "DELETE FROM settings WHERE key = $1", key); err != nil {
		return fmt.Errorf("delete setting %s: %w", key, err)
	}
	return nil
}

// Polls returns a source's most recent polls, newest first; limit <= 0
// returns every poll kept.
func (s *Store) Polls(ctx context.Context, sourceID string, limit int) ([]dynamo.PollLogEntry, error) {
	if limit <= 0 {
		limit = archive.PollLogLimit
	}
	rows, err := s.pool.Query(ctx, `SELECT `+archive.PollColumns+` FROM poll_log
		WHERE source_id = $1 ORDER BY at DESC, id DESC LIMIT $2`, sourceID, limit)
	if err != nil {
		return nil, fmt.Errorf("polls of %s: %w", sourceID, err)
	}
	defer rows.Close()
	list, err := archive.Collect(rows, archive.ScanPoll)
	if err != nil {
		return nil, fmt.Errorf("polls of %s: %w", sourceID, err)
	}
	return list, nil
}
