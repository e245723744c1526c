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

// sourceColumns is what archive.ScanSource reads: the shared columns,
// then the poll counts, a row of poll_counts per outcome.
const sourceColumns = archive.SourceColumns + `,
	(SELECT json_group_object(p.status, p.n) FROM poll_counts p WHERE p.source_id = s.id)`

// CreateSource stores a new source, or revives a removed one with its
// archive; ErrConflict if an active source has the id. A zero CreatedAt
// becomes now.
func (s *Store) CreateSource(ctx context.Context, src *dynamo.Source) error {
	if err := archive.PrepareNew(src); err != nil {
		return err
	}
	err := s.write(ctx, func(tx *sql.Tx, changed func(string)) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO sources (`+archive.NewSourceColumns+`)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)
			ON CONFLICT (id) DO UPDATE SET url = ?2, kind = ?3, interval_ns = ?4, policy = ?5, category = ?6,
				title_prefix = ?7, subscribers = ?8, timezone = ?9, paused = ?10, created_at = ?11,
				etag = ?12, last_modified = ?13, body_hash = ?14, last_poll = ?15, next_poll = ?16,
				last_change = ?17, last_status = ?18, errors = ?19, last_error = ?20, schedule = ?21,
				selectors = ?22, poll_warnings = ?23, ignore_robots = ?24, user_title = ?25, removed = 0, lease_owner = '', lease_expires = :zero
			WHERE sources.removed`, append(archive.NewSourceArgs(src, dbTimeArg), sql.Named("zero", zeroTime))...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, dynamo.ErrConflict)
		}
		changed(src.ID)
		return nil
	})
	if err != nil {
		return fmt.Errorf("create source %s: %w", src.ID, err)
	}
	return nil
}

// Source returns one source, active or removed with its archive kept.
func (s *Store) Source(ctx context.Context, id string) (*dynamo.Source, error) {
	src, err := archive.ScanSource(s.r.QueryRowContext(ctx, "SELECT "+sourceColumns+" FROM sources s WHERE s.id = ?", id))
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
	rows, err := s.r.QueryContext(ctx, "SELECT "+sourceColumns+" FROM sources s "+where+" ORDER BY s.id")
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
	err := s.write(ctx, func(tx *sql.Tx, changed func(string)) error {
		// A new address starts afresh: the validators and the body hash
		// belong to the old one (the right-hand side reads the old row).
		res, err := tx.ExecContext(ctx, `UPDATE sources SET url = ?2, kind = ?3, interval_ns = ?4, policy = ?5,
				category = ?6, title_prefix = ?7, subscribers = ?8, timezone = ?9, paused = ?10, selectors = ?11,
				ignore_robots = ?12, user_title = ?13,
				etag = CASE WHEN url = ?2 THEN etag ELSE '' END,
				last_modified = CASE WHEN url = ?2 THEN last_modified ELSE '' END,
				body_hash = CASE WHEN url = ?2 THEN body_hash ELSE '' END
			WHERE id = ?1 AND NOT removed`, archive.ConfigArgs(src)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, dynamo.ErrNotFound)
		}
		changed(src.ID)
		return nil
	})
	if err != nil {
		return fmt.Errorf("update source %s: %w", src.ID, err)
	}
	return nil
}

// DeleteSource stops polling a source and drops its lease. Its archive
// stays unless purge is set or it has none; purging deletes the versions,
// items, poll log and duplicates with it, including other sources'
// duplicates that named its items as their primary.
func (s *Store) DeleteSource(ctx context.Context, id string, purge bool) error {
	err := s.write(ctx, func(tx *sql.Tx, changed func(string)) error {
		var removed bool
		var versions int
		err := tx.QueryRowContext(ctx, "SELECT removed, last_seq FROM sources WHERE id = ?", id).Scan(&removed, &versions)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		drop, err := archive.Removal(err == nil, removed, versions, purge)
		if err != nil {
			return err
		}
		if drop {
			_, err = tx.ExecContext(ctx, "DELETE FROM sources WHERE id = ?", id)
		} else {
			_, err = tx.ExecContext(ctx, "UPDATE sources SET removed = 1, lease_owner = '', lease_expires = ? WHERE id = ?",
				zeroTime, id)
		}
		if err != nil {
			return err
		}
		changed(id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete source %s: %w", id, err)
	}
	return nil
}

// LeaseDue leases the active, unpaused sources due at now whose lease is
// free or expired, oldest next poll first. A source the caller already
// holds is not handed out again until its lease expires, so that a poll in
// flight is not started twice. Writes are serialized, so two callers never
// lease one source.
func (s *Store) LeaseDue(ctx context.Context, owner string, now time.Time, limit int, ttl time.Duration, hosts dynamo.LeaseHosts) ([]dynamo.Source, error) {
	if err := archive.CheckOwner("lease due sources", owner); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	var list []dynamo.Source
	err := s.write(ctx, func(tx *sql.Tx, _ func(string)) error {
		at := dbTime(now)
		rows, err := tx.QueryContext(ctx, `SELECT id, url FROM sources
			WHERE NOT removed AND NOT paused AND next_poll <= ?1 AND (lease_owner = '' OR lease_expires <= ?1)
			ORDER BY next_poll, id LIMIT ?2`, at, hosts.Scan(limit))
		if err != nil {
			return err
		}
		ids, err := archive.PickDue(rows, hosts, limit)
		rows.Close()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sources SET lease_owner = ?1, lease_expires = ?2
			WHERE id IN (SELECT value FROM json_each(?3))`, owner, dbTime(now.Add(ttl)), jsonArg(ids)); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, "SELECT "+sourceColumns+` FROM sources s
			WHERE s.id IN (SELECT value FROM json_each(?)) ORDER BY s.next_poll, s.id`, jsonArg(ids))
		list, err = collect(rows, err, archive.ScanSource)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("lease due sources: %w", err)
	}
	return list, nil
}

// LeaseSource leases one source now, whether due or not, in a group
// commit with the polls waiting for the writer (writeGrouped).
func (s *Store) LeaseSource(ctx context.Context, id, owner string, now time.Time, ttl time.Duration) (*dynamo.Source, error) {
	if err := archive.CheckOwner("lease source "+id, owner); err != nil {
		return nil, err
	}
	var src dynamo.Source
	wait := ctx
	ctx = context.WithoutCancel(ctx)
	err := s.writeGrouped(wait, func(tx *sql.Tx, _ func(string)) error {
		var holder string
		var expires int64
		err := tx.QueryRowContext(ctx, "SELECT lease_owner, lease_expires FROM sources WHERE id = ? AND NOT removed", id).
			Scan(&holder, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			return dynamo.ErrNotFound
		}
		if err != nil {
			return err
		}
		if holder != "" && holder != owner && expires > dbTime(now) {
			return dynamo.ErrLeaseLost
		}
		if _, err := tx.ExecContext(ctx, "UPDATE sources SET lease_owner = ?, lease_expires = ? WHERE id = ?",
			owner, dbTime(now.Add(ttl)), id); err != nil {
			return err
		}
		src, err = archive.ScanSource(tx.QueryRowContext(ctx, "SELECT "+sourceColumns+" FROM sources s WHERE s.id = ?", id))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("lease source %s: %w", id, err)
	}
	return &src, nil
}

// ReleaseLeases gives up every lease owner holds.
func (s *Store) ReleaseLeases(ctx context.Context, owner string) error {
	err := s.write(ctx, func(tx *sql.Tx, _ func(string)) error {
		_, err := tx.ExecContext(ctx, "UPDATE sources SET lease_owner = '', lease_expires = ? WHERE lease_owner = ?",
			zeroTime, owner)
		return err
	})
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
	err := s.write(ctx, func(tx *sql.Tx, _ func(string)) error {
		stmt, err := tx.PrepareContext(ctx, "UPDATE sources SET next_poll = ? WHERE id = ?")
		if err != nil {
			return err
		}
		defer stmt.Close()
		for id, t := range next {
			if _, err := stmt.ExecContext(ctx, dbTime(t), id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set next polls: %w", err)
	}
	return nil
}

// Polls returns a source's most recent polls, newest first.
func (s *Store) Polls(ctx context.Context, sourceID string, limit int) ([]dynamo.PollLogEntry, error) {
	if limit <= 0 {
		limit = archive.PollLogLimit
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+archive.PollColumns+` FROM poll_log
		WHERE source_id = ? ORDER BY at DESC, id DESC LIMIT ?`, sourceID, limit)
	list, err := collect(rows, err, archive.ScanPoll)
	if err != nil {
		return nil, fmt.Errorf("polls of %s: %w", sourceID, err)
	}
	return list, nil
}

// Setting returns a value, or ErrNotFound.
func (s *Store) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := s.r.QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&v)
	if err != nil {
		return "", fmt.Errorf("setting %s: %w", key, notFound(err))
	}
	return v, nil
}

// PutSetting stores a value, replacing any before it.
func (s *Store) PutSetting(ctx context.Context, key, value string) error {
	err := s.write(ctx, func(tx *sql.Tx, _ func(string)) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("put setting %s: %w", key, err)
	}
	return nil
}

// SettingsWithPrefix returns the values whose keys start with prefix.
func (s *Store) SettingsWithPrefix(ctx context.Context, prefix string) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT key, value FROM settings WHERE substr(key, 1, length(?1)) = ?1", prefix)
	if err != nil {
		return nil, fmt.Errorf("settings %s…: %w", prefix, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("settings %s…: %w", prefix, err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("settings %s…: %w", prefix, err)
	}
	return out, nil
}

// DeleteSetting deletes a value, if there is one.
func (s *Store) DeleteSetting(ctx context.Context, key string) error {
	err := s.write(ctx, func(tx *sql.Tx, _ func(string)) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM settings WHERE key = ?", key)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete setting %s: %w", key, err)
	}
	return nil
}
