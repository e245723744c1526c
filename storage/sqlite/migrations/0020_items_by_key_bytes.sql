-- Issue 21: bytes on disk. items is rebuilt smaller in two ways.
--
-- An item's first_seen, first_pos and first_index never change and every
-- revision of the item holds a copy of them (the archive queries read them
-- there): items keeps them no more, and what read them from items (the
-- write path's lookup of the stored items, StoryItems) reads them from the
-- item's shown revision (latest_rev, a rowid lookup). 11 bytes an item.
--
-- An item's key, the primary key of this WITHOUT ROWID table, is stored
-- as item_revisions stores it since 0018 (key, ANY): the 16 bytes that
-- dynamo.ItemID's 32 lower-case hex digits spell, any other key as its
-- text. item_id is a virtual column giving the text back with SQLite's own
-- hex() and lower(); the store finds items by key (the revisions' key
-- joins it as it is; a key given as text is converted to the stored form
-- by storedKey in Go, or by the same iif() in SQL). 16 bytes an item.
--
-- duplicates keeps its keys as text, so its foreign keys to items (whose
-- parent key is now key, not item_id) are replaced by the trigger
-- items_deleted, which does what they did when an item is deleted (a
-- source purged, an unpublished version's items dropped): its duplicate
-- records and those naming it as primary go, those naming it as the
-- matched copy forget it. The rows written are checked as before by the
-- INSERT (both items must exist). The copies need the tables' size again
-- in free space until the migration commits.
CREATE TABLE duplicates_new (
    source_id      TEXT NOT NULL,
    item_id        TEXT NOT NULL,
    primary_source TEXT NOT NULL,
    primary_item   TEXT NOT NULL,
    rule           TEXT NOT NULL,
    score          REAL NOT NULL,
    matched_source TEXT,
    matched_item   TEXT,
    PRIMARY KEY (source_id, item_id)
) STRICT, WITHOUT ROWID;
INSERT INTO duplicates_new SELECT source_id, item_id, primary_source, primary_item, rule, score, matched_source, matched_item
    FROM duplicates;
DROP TABLE duplicates;
ALTER TABLE duplicates_new RENAME TO duplicates;
CREATE INDEX duplicates_primary ON duplicates (primary_source, primary_item);

CREATE TABLE items_new (
    source_id   TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    key         ANY NOT NULL,
    first_seq   INTEGER NOT NULL,
    last_seen   INTEGER,
    latest_rev  INTEGER NOT NULL,
    story_seq   INTEGER,
    item_id     TEXT GENERATED ALWAYS AS (iif(typeof(key) = 'blob', lower(hex(key)), key)) VIRTUAL,
    PRIMARY KEY (source_id, key)
) STRICT, WITHOUT ROWID;
INSERT INTO items_new (source_id, key, first_seq, last_seen, latest_rev, story_seq)
    SELECT source_id,
        iif(length(item_id) = 32 AND lower(hex(unhex(item_id))) = item_id, unhex(item_id), item_id),
        first_seq, last_seen, latest_rev, story_seq
    FROM items;
DROP TABLE items;
ALTER TABLE items_new RENAME TO items;
CREATE UNIQUE INDEX items_story_seq ON items (story_seq) WHERE story_seq IS NOT NULL;

CREATE TRIGGER items_deleted AFTER DELETE ON items BEGIN
    DELETE FROM duplicates
        WHERE source_id = old.source_id AND item_id = iif(typeof(old.key) = 'blob', lower(hex(old.key)), old.key);
    DELETE FROM duplicates
        WHERE primary_source = old.source_id AND primary_item = iif(typeof(old.key) = 'blob', lower(hex(old.key)), old.key);
    UPDATE duplicates SET matched_source = NULL, matched_item = NULL
        WHERE matched_source = old.source_id AND matched_item = iif(typeof(old.key) = 'blob', lower(hex(old.key)), old.key);
END;
