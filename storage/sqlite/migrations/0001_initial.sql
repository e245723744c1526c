-- The initial schema, the same model as PostgreSQL's (docs/STORAGE.md):
-- sources with their polling state and lease, items stored once per source
-- with one revision per distinct content, versions as ordered lists of
-- revisions, the poll log, duplicates and settings. Times are microseconds
-- since the Unix epoch (UTC); the zero time.Time is -62135596800000000.

CREATE TABLE sources (
    id              TEXT PRIMARY KEY,
    url             TEXT NOT NULL,
    kind            TEXT NOT NULL,
    interval_ns     INTEGER NOT NULL,
    policy          TEXT NOT NULL,
    category        TEXT NOT NULL,
    title_prefix    TEXT NOT NULL,
    subscribers     INTEGER NOT NULL,
    timezone        TEXT NOT NULL,
    paused          INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    removed         INTEGER NOT NULL DEFAULT 0,

    -- PollState, written by the poller through RecordPoll.
    etag            TEXT NOT NULL,
    last_modified   TEXT NOT NULL,
    body_hash       TEXT NOT NULL,
    last_poll       INTEGER NOT NULL,
    next_poll       INTEGER NOT NULL,
    last_change     INTEGER NOT NULL,
    last_status     TEXT NOT NULL,
    errors          INTEGER NOT NULL,
    last_error      TEXT NOT NULL,
    schedule        BLOB,

    lease_owner     TEXT NOT NULL DEFAULT '',
    lease_expires   INTEGER NOT NULL DEFAULT -62135596800000000,

    -- The summary, kept up to date by RecordPoll so that listing sources
    -- never counts an archive.
    last_seq        INTEGER NOT NULL DEFAULT 0,
    last_hash       TEXT NOT NULL DEFAULT '',
    title           TEXT NOT NULL DEFAULT '',
    item_count      INTEGER NOT NULL DEFAULT 0,
    last_version_at INTEGER NOT NULL DEFAULT -62135596800000000
) STRICT;

CREATE INDEX sources_due ON sources (next_poll, id) WHERE NOT removed AND NOT paused;

-- Polls by outcome, since the source was created.
CREATE TABLE poll_counts (
    source_id TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    status    TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (source_id, status)
) STRICT, WITHOUT ROWID;

-- One row per distinct content of an item. The *_f columns hold
-- dynamo.FoldCase of their field, or NULL when folding changes nothing, so
-- that conditions compare folded text in the database.
CREATE TABLE item_revisions (
    rev_id          INTEGER PRIMARY KEY,
    source_id       TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    item_key        TEXT NOT NULL,
    rhash           BLOB NOT NULL,
    -- The item's id in the document when it differs from item_key (an item
    -- recognized by its title, whose content-derived id changed).
    doc_id          TEXT,
    title           TEXT NOT NULL,
    link            TEXT NOT NULL,
    description     TEXT NOT NULL,
    plain_text      TEXT NOT NULL,
    image           TEXT,
    extensions      TEXT,
    id_from_content INTEGER NOT NULL,
    fingerprint     INTEGER NOT NULL,
    title_f         TEXT,
    link_f          TEXT,
    text_f          TEXT,
    -- Copied from the item (they never change) so that archive queries read
    -- one table; latest marks the revision the archive shows.
    first_seen      INTEGER NOT NULL,
    first_pos       INTEGER NOT NULL,
    first_index     INTEGER NOT NULL,
    latest          INTEGER NOT NULL,
    UNIQUE (source_id, item_key, rhash)
) STRICT;

CREATE INDEX item_revisions_archive ON item_revisions (source_id, first_seen DESC, first_pos) WHERE latest;
CREATE INDEX item_revisions_recent ON item_revisions (first_seen DESC) WHERE latest;
CREATE INDEX item_revisions_title ON item_revisions (source_id, title);

-- One row per item of a source, keyed by its id. last_seen is NULL while
-- the item is in the newest version.
CREATE TABLE items (
    source_id   TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    item_id     TEXT NOT NULL,
    first_seen  INTEGER NOT NULL,
    first_seq   INTEGER NOT NULL,
    first_pos   INTEGER NOT NULL,
    first_index INTEGER NOT NULL,
    last_seen   INTEGER,
    latest_rev  INTEGER NOT NULL,
    fingerprint INTEGER NOT NULL,
    PRIMARY KEY (source_id, item_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX items_fingerprints ON items (first_seen) WHERE fingerprint <> 0;

-- A channel as some version showed it (JSON), stored once per source and
-- content: most versions of a source share their channel.
CREATE TABLE channels (
    channel_id INTEGER PRIMARY KEY,
    source_id  TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    chash      BLOB NOT NULL,
    body       TEXT NOT NULL,
    UNIQUE (source_id, chash)
) STRICT;

-- A version lists its revisions in page order (revs: runs of consecutive
-- ids, see packRevs) with the items' index attributes (indexes: varints,
-- NULL when they are 1..n). hash is the ContentHash's 32 bytes.
CREATE TABLE versions (
    source_id  TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL,
    hash       BLOB NOT NULL,
    url        TEXT NOT NULL,
    rss_id     TEXT NOT NULL,
    stamp      INTEGER NOT NULL,
    channel_id INTEGER NOT NULL REFERENCES channels (channel_id),
    title      TEXT NOT NULL,
    item_count INTEGER NOT NULL,
    added      INTEGER NOT NULL,
    removed    INTEGER NOT NULL,
    revs       BLOB NOT NULL,
    indexes    BLOB,
    PRIMARY KEY (source_id, seq)
) STRICT;

-- The newest polls of each source; RecordPoll keeps at most 500 per source.
CREATE TABLE poll_log (
    id          INTEGER PRIMARY KEY,
    source_id   TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    at          INTEGER NOT NULL,
    status      TEXT NOT NULL,
    duration_ns INTEGER NOT NULL,
    new_items   INTEGER NOT NULL,
    error       TEXT NOT NULL
) STRICT;

CREATE INDEX poll_log_source ON poll_log (source_id, at DESC, id DESC);

-- Item is a near-duplicate of the primary item of another source.
CREATE TABLE duplicates (
    source_id      TEXT NOT NULL,
    item_id        TEXT NOT NULL,
    primary_source TEXT NOT NULL,
    primary_item   TEXT NOT NULL,
    distance       INTEGER NOT NULL,
    PRIMARY KEY (source_id, item_id),
    FOREIGN KEY (source_id, item_id) REFERENCES items (source_id, item_id) ON DELETE CASCADE,
    FOREIGN KEY (primary_source, primary_item) REFERENCES items (source_id, item_id) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE INDEX duplicates_primary ON duplicates (primary_source, primary_item);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
