-- Issue 21: bytes on disk. A revision's item key is almost always
-- dynamo.ItemID's 32 lower-case hex digits: the 16 bytes they spell are
-- stored instead (key, a BLOB), and any other key as the text it is (key
-- holds a TEXT then; the column is ANY). item_key is a virtual column that
-- gives the key's text back with SQLite's own hex() and lower(), so every
-- query reads it as before without a call into Go. 16 bytes less a
-- revision. The table is rebuilt, as in 0015: the copy needs the table's
-- size again in free space until it commits.
--
-- The rebuilt archive indexes are ascending in first_seen: a new revision
-- is first seen last, so it goes to the end of them, where descending
-- each went to the front and every page split there left a half-empty
-- page (about 40 % of those indexes). Archive queries walk them backwards:
-- first_pos DESC, rev_id DESC make that walk give their order (first_seen
-- DESC, first_pos, rev_id) without a sort.
CREATE TABLE item_revisions_new (
    rev_id          INTEGER PRIMARY KEY,
    source_id       TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    key             ANY NOT NULL,
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
    arch_seq        INTEGER,
    agg_seq         INTEGER,
    description     TEXT GENERATED ALWAYS AS (dynamo_markup(markup_ops, plain_text)) VIRTUAL,
    item_key        TEXT GENERATED ALWAYS AS (iif(typeof(key) = 'blob', lower(hex(key)), key)) VIRTUAL
) STRICT;
INSERT INTO item_revisions_new (rev_id, source_id, key, rhash, doc_id, title, link, plain_text, image,
        extensions, id_from_content, title_f, link_f, text_f, first_seen, first_pos, first_index, latest, media,
        markup_ops, arch_seq, agg_seq)
    SELECT rev_id, source_id,
        iif(length(item_key) = 32 AND lower(hex(unhex(item_key))) = item_key, unhex(item_key), item_key),
        rhash, doc_id, title, link, plain_text, image,
        extensions, id_from_content, title_f, link_f, text_f, first_seen, first_pos, first_index, latest, media,
        markup_ops, arch_seq, agg_seq
    FROM item_revisions;
DROP TABLE item_revisions;
ALTER TABLE item_revisions_new RENAME TO item_revisions;
CREATE INDEX item_revisions_archive ON item_revisions (source_id, first_seen, first_pos DESC, rev_id DESC) WHERE latest;
CREATE INDEX item_revisions_recent ON item_revisions (first_seen) WHERE latest;
CREATE INDEX item_revisions_title ON item_revisions (source_id, dynamo_title_key(title));
CREATE INDEX item_revisions_key ON item_revisions (source_id, dynamo_title_key(item_key));
CREATE UNIQUE INDEX item_revisions_arch_seq ON item_revisions (source_id, arch_seq) WHERE arch_seq IS NOT NULL;
CREATE UNIQUE INDEX item_revisions_agg_seq ON item_revisions (agg_seq) WHERE agg_seq IS NOT NULL;
CREATE INDEX item_revisions_unnumbered ON item_revisions (source_id) WHERE arch_seq IS NOT NULL AND agg_seq IS NULL;
