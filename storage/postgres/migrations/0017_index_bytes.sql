-- Issue 21: bytes on disk. The trigram indexes' pending list goes from
-- 0016's 256 kB to 64 kB: the pages a merged list leaves in each index's
-- file (about the list's size, reused by later lists but never returned;
-- 0.75 MB for the three indexes at 256 kB) shrink to a quarter, while an
-- insert still appends to the list and the merge still takes about two
-- revisions' entries at once (docs/benchmarks/storage-postgres.md has the
-- server CPU of a changed poll under each setting). IF EXISTS: the
-- indexes' definitions are another migration's business.
ALTER INDEX IF EXISTS item_revisions_title_trgm SET (gin_pending_list_limit = 64);
ALTER INDEX IF EXISTS item_revisions_link_trgm SET (gin_pending_list_limit = 64);
ALTER INDEX IF EXISTS item_revisions_text_trgm SET (gin_pending_list_limit = 64);
-- Story numbers are read only as story_seq > n (numberStories), which no
-- NULL satisfies, and most items never get one: the unique index no longer
-- holds an entry for every item without a number.
DROP INDEX items_story_seq;
CREATE UNIQUE INDEX items_story_seq ON items (story_seq) WHERE story_seq IS NOT NULL;
-- The aggregate's newest-first walk reads item_revisions_recent backwards:
-- ascending, each new revision is inserted at the index's right end, where
-- B-tree pages split full, instead of at its left end, where they split in
-- half and stay half empty.
DROP INDEX item_revisions_recent;
CREATE INDEX item_revisions_recent ON item_revisions (first_seen) WHERE latest;
