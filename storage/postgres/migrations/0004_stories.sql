-- Issue 16: near-duplicates are decided on the texts. A duplicate records
-- the rule and the score of the decision that made it a copy, and the copy
-- it was decided against (the story's primary or a later copy); issue 7's
-- Hamming distances become rule 'simhash', score 1 - distance/64, decided
-- against the primary. Items lose their SimHash fingerprint (revision
-- hashes no longer include it, so an unchanged item gets one new revision
-- the next time its page changes) and get a story number: RecordPoll
-- numbers the new items of polls that detect stories in the order they
-- commit, under the stories lock.
ALTER TABLE duplicates
    ADD COLUMN rule text NOT NULL DEFAULT 'simhash',
    ADD COLUMN score double precision NOT NULL DEFAULT 0,
    ADD COLUMN matched_source text,
    ADD COLUMN matched_item text;
UPDATE duplicates SET score = 1 - distance / 64.0, matched_source = primary_source, matched_item = primary_item;
ALTER TABLE duplicates
    DROP COLUMN distance,
    ALTER COLUMN rule DROP DEFAULT,
    ALTER COLUMN score DROP DEFAULT,
    ADD FOREIGN KEY (matched_source, matched_item) REFERENCES items (source_id, item_id) ON DELETE SET NULL;

DROP INDEX items_fingerprints;
ALTER TABLE items DROP COLUMN fingerprint, ADD COLUMN story_seq bigint;
ALTER TABLE item_revisions DROP COLUMN fingerprint;
CREATE SEQUENCE story_seq;
CREATE UNIQUE INDEX items_story_seq ON items (story_seq);
CREATE INDEX items_first_seen ON items (first_seen);
