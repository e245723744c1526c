-- The initial schema: sources with their polling state and lease, the
-- versioned archive (items stored once per source, their revisions, and
-- versions as ordered lists of revisions), the poll log, duplicates and
-- settings. docs/STORAGE.md explains each table.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE sources (
    id              text PRIMARY KEY,
    url             text NOT NULL,
    kind            text NOT NULL,
    interval_ns     bigint NOT NULL DEFAULT 0,
    policy          text NOT NULL DEFAULT '',
    category        text NOT NULL DEFAULT '',
    title_prefix    text NOT NULL DEFAULT '',
    subscribers     integer NOT NULL DEFAULT 0,
    timezone        text NOT NULL DEFAULT '',
    paused          boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL,
    removed         boolean NOT NULL DEFAULT false,

    -- PollState, written by the poller through RecordPoll.
    etag            text NOT NULL DEFAULT '',
    last_modified   text NOT NULL DEFAULT '',
    body_hash       text NOT NULL DEFAULT '',
    last_poll       timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    next_poll       timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    last_change     timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    last_status     text NOT NULL DEFAULT '',
    errors          integer NOT NULL DEFAULT 0,
    last_error      text NOT NULL DEFAULT '',
    -- json, not jsonb: the scheduler's state is opaque and comes back byte
    -- for byte as it was written.
    schedule        json,

    lease_owner     text NOT NULL DEFAULT '',
    lease_expires   timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',

    -- The summary, kept up to date by RecordPoll so that listing sources
    -- never counts a large archive.
    last_seq        integer NOT NULL DEFAULT 0,
    last_hash       text NOT NULL DEFAULT '',
    title           text NOT NULL DEFAULT '',
    item_count      integer NOT NULL DEFAULT 0,
    last_version_at timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    poll_counts     jsonb NOT NULL DEFAULT '{}'
);

CREATE INDEX sources_due ON sources (next_poll, id) WHERE NOT removed AND NOT paused;

-- One row per distinct content of an item: a changed title or description
-- under the same id makes a new revision, so every version is rebuilt with
-- the content it had. The *_f columns hold dynamo.FoldCase of their field,
-- or NULL when folding changes nothing, so conditions match in the database
-- through the trigram indexes below.
CREATE TABLE item_revisions (
    rev_id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id       text NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    item_key        text NOT NULL,
    rhash           bytea NOT NULL,
    -- The item's id in the document when it differs from item_key (an item
    -- recognized by its title, whose content-derived id changed).
    doc_id          text,
    title           text NOT NULL,
    link            text NOT NULL,
    description     text NOT NULL,
    plain_text      text NOT NULL,
    image           json,
    extensions      json,
    id_from_content boolean NOT NULL,
    fingerprint     bigint NOT NULL,
    title_f         text,
    link_f          text,
    text_f          text,
    -- Copied from the item (they never change) so that archive queries
    -- read one table: latest marks the revision the archive shows.
    first_seen      timestamptz NOT NULL,
    first_pos       integer NOT NULL,
    first_index     integer NOT NULL,
    latest          boolean NOT NULL,
    UNIQUE (source_id, item_key, rhash)
);

CREATE INDEX item_revisions_archive ON item_revisions (source_id, first_seen DESC, first_pos) WHERE latest;
CREATE INDEX item_revisions_recent ON item_revisions (first_seen DESC) WHERE latest;
CREATE INDEX item_revisions_title ON item_revisions (source_id, md5(title));
CREATE INDEX item_revisions_title_trgm ON item_revisions USING gin (coalesce(title_f, title) gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX item_revisions_link_trgm ON item_revisions USING gin (coalesce(link_f, link) gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX item_revisions_text_trgm ON item_revisions USING gin (coalesce(text_f, plain_text) gin_trgm_ops) WITH (fastupdate = off);

-- One row per item of a source, keyed by its id. last_seen is NULL while
-- the item is in the newest version (it was then last seen when that
-- version was), so that a new version writes only the items that came or
-- went rather than every item it holds.
CREATE TABLE items (
    source_id   text NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    item_id     text NOT NULL,
    first_seen  timestamptz NOT NULL,
    first_seq   integer NOT NULL,
    first_pos   integer NOT NULL,
    first_index integer NOT NULL,
    last_seen   timestamptz,
    latest_rev  bigint NOT NULL REFERENCES item_revisions (rev_id),
    fingerprint bigint NOT NULL,
    PRIMARY KEY (source_id, item_id)
);

CREATE INDEX items_fingerprints ON items (first_seen) WHERE fingerprint <> 0;

-- A version lists its items as revision ids in page order (revs: each id's
-- difference from the one before, as zigzag varints, about a byte per item
-- since pages mostly keep their order), with their XMLData index attributes
-- (indexes, NULL when they are 1..n), and keeps the document's own
-- attributes and channel.
CREATE TABLE versions (
    source_id   text NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    seq         integer NOT NULL,
    seen_at     timestamptz NOT NULL,
    hash        text NOT NULL,
    url         text NOT NULL,
    rss_id      text NOT NULL,
    stamp       timestamptz NOT NULL,
    channel     json NOT NULL,
    title       text NOT NULL,
    item_count  integer NOT NULL,
    added       integer NOT NULL,
    removed     integer NOT NULL,
    revs        bytea NOT NULL,
    indexes     integer[],
    PRIMARY KEY (source_id, seq)
);

-- The newest polls of each source; RecordPoll keeps at most 500 per source.
CREATE TABLE poll_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id   text NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    at          timestamptz NOT NULL,
    status      text NOT NULL,
    duration_ns bigint NOT NULL,
    new_items   integer NOT NULL,
    error       text NOT NULL
);

CREATE INDEX poll_log_source ON poll_log (source_id, at DESC, id DESC);

-- Item is a near-duplicate of the primary item of another source.
CREATE TABLE duplicates (
    source_id      text NOT NULL,
    item_id        text NOT NULL,
    primary_source text NOT NULL,
    primary_item   text NOT NULL,
    distance       integer NOT NULL,
    PRIMARY KEY (source_id, item_id),
    FOREIGN KEY (source_id, item_id) REFERENCES items (source_id, item_id) ON DELETE CASCADE,
    FOREIGN KEY (primary_source, primary_item) REFERENCES items (source_id, item_id) ON DELETE CASCADE
);

CREATE INDEX duplicates_primary ON duplicates (primary_source, primary_item);

CREATE TABLE settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);
