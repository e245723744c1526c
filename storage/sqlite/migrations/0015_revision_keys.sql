-- Issue 21: bytes on disk. The revisions' unique key (source_id, item_key,
-- rhash) carried each item's 32-character key and 16-byte content hash in
-- every entry; the table is rebuilt without it, and item_revisions_key
-- indexes each revision by a 31-bit hash of its item's key
-- (dynamo_title_key, sqlfuncs.go); lookups compare the keys and hashes of
-- the rows found. A revision is never stored twice because RecordPoll
-- looks it up before inserting (archive.WriteVersion), in SQLite's one
-- write transaction. The copy needs the table's size again in free space
-- until it commits; the freed pages stay in the file for new rows until
-- VACUUM.
CREATE TABLE item_revisions_new (
    rev_id          INTEGER PRIMARY KEY,
    source_id       TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    item_key        TEXT NOT NULL,
    rhash           BLOB NOT NULL,
    doc_id          TEXT,
    title           TEXT NOT NULL,
    link            TEXT NOT NULL,
    plain_text      TEXT NOT NULL,
    image           TEXT,
    extensions      TEXT,
    id_from_content INTEGER NOT NULL,
    title_f         TEXT,
    link_f          TEXT,
    text_f          TEXT,
    first_seen      INTEGER NOT NULL,
    first_pos       INTEGER NOT NULL,
    first_index     INTEGER NOT NULL,
    latest          INTEGER NOT NULL,
    media           TEXT,
    markup_ops      BLOB NOT NULL DEFAULT x'',
    description     TEXT GENERATED ALWAYS AS (dynamo_markup(markup_ops, plain_text)) VIRTUAL
) STRICT;
INSERT INTO item_revisions_new (rev_id, source_id, item_key, rhash, doc_id, title, link, plain_text, image,
        extensions, id_from_content, title_f, link_f, text_f, first_seen, first_pos, first_index, latest, media,
        markup_ops)
    SELECT rev_id, source_id, item_key, rhash, doc_id, title, link, plain_text, image,
        extensions, id_from_content, title_f, link_f, text_f, first_seen, first_pos, first_index, latest, media,
        markup_ops
    FROM item_revisions;
DROP TABLE item_revisions;
ALTER TABLE item_revisions_new RENAME TO item_revisions;
CREATE INDEX item_revisions_archive ON item_revisions (source_id, first_seen DESC, first_pos) WHERE latest;
CREATE INDEX item_revisions_recent ON item_revisions (first_seen DESC) WHERE latest;
CREATE INDEX item_revisions_title ON item_revisions (source_id, dynamo_title_key(title));
CREATE INDEX item_revisions_key ON item_revisions (source_id, dynamo_title_key(item_key));
