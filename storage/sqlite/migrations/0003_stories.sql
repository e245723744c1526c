-- Issue 16: near-duplicates are decided on the texts. A duplicate records
-- the rule and the score of the decision that made it a copy, and the copy
-- it was decided against (the story's primary or a later copy); issue 7's
-- Hamming distances become rule 'simhash', score 1 - distance/64, decided
-- against the primary. Items lose their SimHash fingerprint (revision
-- hashes no longer include it, so an unchanged item gets one new revision
-- the next time its page changes) and get a story number: RecordPoll
-- numbers the new items of polls that detect stories in the order they
-- commit (SQLite has one writer).
CREATE TABLE duplicates_new (
    source_id      TEXT NOT NULL,
    item_id        TEXT NOT NULL,
    primary_source TEXT NOT NULL,
    primary_item   TEXT NOT NULL,
    rule           TEXT NOT NULL,
    score          REAL NOT NULL,
    matched_source TEXT,
    matched_item   TEXT,
    PRIMARY KEY (source_id, item_id),
    FOREIGN KEY (source_id, item_id) REFERENCES items (source_id, item_id) ON DELETE CASCADE,
    FOREIGN KEY (primary_source, primary_item) REFERENCES items (source_id, item_id) ON DELETE CASCADE,
    FOREIGN KEY (matched_source, matched_item) REFERENCES items (source_id, item_id) ON DELETE SET NULL
) STRICT, WITHOUT ROWID;
INSERT INTO duplicates_new (source_id, item_id, primary_source, primary_item, rule, score, matched_source, matched_item)
    SELECT source_id, item_id, primary_source, primary_item, 'simhash', 1 - distance / 64.0, primary_source, primary_item
    FROM duplicates;
DROP TABLE duplicates;
ALTER TABLE duplicates_new RENAME TO duplicates;
CREATE INDEX duplicates_primary ON duplicates (primary_source, primary_item);

DROP INDEX items_fingerprints;
ALTER TABLE items DROP COLUMN fingerprint;
ALTER TABLE items ADD COLUMN story_seq INTEGER;
ALTER TABLE item_revisions DROP COLUMN fingerprint;
CREATE UNIQUE INDEX items_story_seq ON items (story_seq);
CREATE INDEX items_first_seen ON items (first_seen);
