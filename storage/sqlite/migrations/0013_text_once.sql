-- Issue 21: bytes on disk. A revision's description is stored as the
-- operations that rebuild it from its plain text (markup_ops, see
-- markup.go); the Go step of this migration (textOnce in migrate.go) packs
-- every stored description, drops the column and adds it back generated
-- from the operations, so queries read r.description as before. Titles
-- are indexed by a 31-bit hash of each (dynamo_title_key, sqlfuncs.go),
-- not by the whole title, and compared when found. Only the
-- items that have a story number are indexed by it, and versions, always
-- read by their key, are stored in that key's B-tree (WITHOUT ROWID).
ALTER TABLE item_revisions ADD COLUMN markup_ops BLOB NOT NULL DEFAULT x'';

DROP INDEX item_revisions_title;
CREATE INDEX item_revisions_title ON item_revisions (source_id, dynamo_title_key(title));

DROP INDEX items_story_seq;
CREATE UNIQUE INDEX items_story_seq ON items (story_seq) WHERE story_seq IS NOT NULL;

CREATE TABLE versions_new (
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
) STRICT, WITHOUT ROWID;
INSERT INTO versions_new (source_id, seq, seen_at, hash, url, rss_id, stamp, channel_id, title, item_count,
        added, removed, revs, indexes)
    SELECT source_id, seq, seen_at, hash, url, rss_id, stamp, channel_id, title, item_count,
        added, removed, revs, indexes FROM versions;
DROP TABLE versions;
ALTER TABLE versions_new RENAME TO versions;
