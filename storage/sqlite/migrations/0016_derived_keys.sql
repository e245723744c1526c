-- Issue 21: bytes on disk. A revision's item key is, for most items, the
-- key derived from its own link (dynamo.ItemID(link, true, "", "")): the
-- table is rebuilt with own_key, the key only where it is not the one
-- dynamo_link_key(link) derives (sqlfuncs.go, a frozen copy of that
-- derivation), and item_key a virtual column generated from the two, so
-- queries read r.item_key as before and item_revisions_key indexes it as
-- before. The archive's two indexes by first_seen ascend now (read
-- backwards for newest first): new revisions come last in them, where
-- descending they came first and left each split page half empty. The copy
-- needs the table's size again in free space until it commits; the freed
-- pages stay in the file for new rows until VACUUM.
CREATE TABLE item_revisions_new (
    rev_id          INTEGER PRIMARY KEY,
    source_id       TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    own_key         TEXT,
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
    description     TEXT GENERATED ALWAYS AS (dynamo_markup(markup_ops, plain_text)) VIRTUAL,
    item_key        TEXT GENERATED ALWAYS AS (coalesce(own_key, dynamo_link_key(link))) VIRTUAL
) STRICT;
INSERT INTO item_revisions_new (rev_id, source_id, own_key, rhash, doc_id, title, link, plain_text, image,
        extensions, id_from_content, title_f, link_f, text_f, first_seen, first_pos, first_index, latest, media,
        markup_ops)
    SELECT rev_id, source_id, CASE WHEN item_key = dynamo_link_key(link) THEN NULL ELSE item_key END, rhash,
        doc_id, title, link, plain_text, image, extensions, id_from_content, title_f, link_f, text_f, first_seen,
        first_pos, first_index, latest, media, markup_ops
    FROM item_revisions;
DROP TABLE item_revisions;
ALTER TABLE item_revisions_new RENAME TO item_revisions;
CREATE INDEX item_revisions_archive ON item_revisions (source_id, first_seen, first_pos DESC, rev_id DESC) WHERE latest;
CREATE INDEX item_revisions_recent ON item_revisions (first_seen) WHERE latest;
CREATE INDEX item_revisions_title ON item_revisions (source_id, dynamo_title_key(title));
CREATE INDEX item_revisions_key ON item_revisions (source_id, dynamo_title_key(item_key));
