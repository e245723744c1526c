-- Issue 15: archived feeds (RFC 5005). Every item gets its number in its
-- source, in the order first seen (items of one version from the bottom of
-- the page up, so that the highest number is the archive's newest item),
-- and the revision it was first stored with, which archive pages show:
-- numbers fix the pages' bounds and first revisions their content, so a
-- full page never changes. Existing items are numbered in the same order.
ALTER TABLE items ADD COLUMN arch_seq bigint, ADD COLUMN first_rev bigint;
UPDATE items i SET arch_seq = n.num
    FROM (SELECT source_id, item_id,
            row_number() OVER (PARTITION BY source_id ORDER BY first_seq, first_pos DESC, item_id) AS num
          FROM items) AS n
    WHERE i.source_id = n.source_id AND i.item_id = n.item_id;
UPDATE items i SET first_rev = f.rev
    FROM (SELECT source_id, item_key, min(rev_id) AS rev FROM item_revisions GROUP BY source_id, item_key) AS f
    WHERE f.source_id = i.source_id AND f.item_key = i.item_id;
ALTER TABLE items ALTER COLUMN arch_seq SET NOT NULL, ALTER COLUMN first_rev SET NOT NULL;
CREATE UNIQUE INDEX items_arch_seq ON items (source_id, arch_seq);
