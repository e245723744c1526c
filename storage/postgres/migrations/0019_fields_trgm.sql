-- Issue 21: one trigram index over the three folded fields instead of one
-- index each. Conditions joined by and on two fields were two bitmap scans
-- ANDed: on 1 M items a title word and a description word read every
-- posting of the description's trigrams (6,042 matches of the word) only
-- to keep the seven that the title's 1,397 also hold. In one GIN scan with
-- a key per condition each key skips ahead to the item another has
-- reached, so the rarer condition sets the pace (docs/STORAGE.md
-- "Conditions in the database"). A condition on one field reads only that
-- column's entries, as its own index did. The expressions and the pending
-- list are those of 0013, 0016 and 0017.
--
-- Built before the old indexes are dropped: CREATE INDEX blocks writes to
-- item_revisions (polls wait) but not reads until the migration commits,
-- where DROP INDEX would block reads too; the old and new indexes take
-- twice the space meanwhile (4.4 minutes and 0.9 GB for 1 M items).
CREATE INDEX item_revisions_fields_trgm ON item_revisions USING gin (
        coalesce(title_f, lower(title COLLATE "C")) gin_trgm_ops,
        coalesce(link_f, lower(link COLLATE "C")) gin_trgm_ops,
        coalesce(text_f, lower(plain_text COLLATE "C")) gin_trgm_ops)
    WITH (fastupdate = on, gin_pending_list_limit = 64);
DROP INDEX IF EXISTS item_revisions_title_trgm, item_revisions_link_trgm, item_revisions_text_trgm;
