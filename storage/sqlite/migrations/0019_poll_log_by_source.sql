-- Issue 21: bytes on disk. The poll log (at most archive.PollLogLimit rows
-- a source) was a rowid table with an index by (source_id, at DESC, id
-- DESC) that every reader and the trim walk: the rows are now stored in
-- that order's B-tree itself (WITHOUT ROWID, primary key (source_id, at,
-- id)), and the index is gone: about 16 KB a source with a full log. id
-- orders the polls of one source logged at the same instant, as the rowid
-- did: RecordPoll gives a poll 1 + the greatest id of its source's polls
-- at its time (a range of the primary key), so a row's id is 1 but for
-- such ties.
CREATE TABLE poll_log_new (
    source_id   TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    at          INTEGER NOT NULL,
    id          INTEGER NOT NULL,
    status      TEXT NOT NULL,
    duration_ns INTEGER NOT NULL,
    new_items   INTEGER NOT NULL,
    error       TEXT NOT NULL,
    http_status INTEGER NOT NULL DEFAULT 0,
    bytes       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (source_id, at, id)
) STRICT, WITHOUT ROWID;
INSERT INTO poll_log_new (source_id, at, id, status, duration_ns, new_items, error, http_status, bytes)
    SELECT source_id, at, row_number() OVER (PARTITION BY source_id, at ORDER BY id), status, duration_ns,
        new_items, error, http_status, bytes
    FROM poll_log;
DROP TABLE poll_log;
ALTER TABLE poll_log_new RENAME TO poll_log;
