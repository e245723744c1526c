-- Issue 23: a large version is written in batches, each its own short
-- transaction, and published by a last one (docs/STORAGE.md, "Large
-- versions"). Until then its new revisions lie beyond the source's
-- published_rev, the greatest revision id of its published versions, which
-- archive queries do not read past, and its new items carry a first
-- sequence number the source has not reached. sources.staging names the
-- attempt writing a version in batches (0: none), so that a writer finding
-- another's unpublished rows deletes them and the other's next batch knows.
ALTER TABLE sources ADD COLUMN staging bigint NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN published_rev bigint NOT NULL DEFAULT 0;
UPDATE sources SET published_rev = coalesce((SELECT max(rev_id) FROM item_revisions r WHERE r.source_id = sources.id), 0);
