-- Issue 21: bytes on disk. An item's numbers in its source's archived feed
-- (arch_seq, migration 0008) and in the aggregate's (agg_seq, 0011) move
-- from items to the item's first revision, which pages show: items is
-- stored in its primary key's B-tree (WITHOUT ROWID), so every entry of
-- items_arch_seq and items_agg_seq carried the item's 32-character key,
-- where the revisions' indexes carry a rowid (a few bytes). items loses
-- first_rev too: the revision that has a number is the first. Pages read
-- a range of item_revisions_arch_seq or item_revisions_agg_seq and join
-- each revision's item by its key, as every archive query does.
ALTER TABLE item_revisions ADD COLUMN arch_seq INTEGER;
ALTER TABLE item_revisions ADD COLUMN agg_seq INTEGER;
UPDATE item_revisions SET arch_seq = i.arch_seq, agg_seq = i.agg_seq
    FROM items i WHERE item_revisions.rev_id = i.first_rev;
DROP INDEX items_arch_seq;
DROP INDEX items_agg_seq;
DROP INDEX items_unnumbered;
ALTER TABLE items DROP COLUMN arch_seq;
ALTER TABLE items DROP COLUMN agg_seq;
ALTER TABLE items DROP COLUMN first_rev;
CREATE UNIQUE INDEX item_revisions_arch_seq ON item_revisions (source_id, arch_seq) WHERE arch_seq IS NOT NULL;
CREATE UNIQUE INDEX item_revisions_agg_seq ON item_revisions (agg_seq) WHERE agg_seq IS NOT NULL;
CREATE INDEX item_revisions_unnumbered ON item_revisions (source_id) WHERE arch_seq IS NOT NULL AND agg_seq IS NULL;
