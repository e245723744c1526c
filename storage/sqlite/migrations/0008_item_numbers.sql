-- Issue 15: archived feeds (RFC 5005). Every item gets its number in its
-- source, in the order first seen (items of one version from the bottom of
-- the page up, so that the highest number is the archive's newest item),
-- and the revision it was first stored with, which archive pages show:
-- numbers fix the pages' bounds and first revisions their content, so a
-- full page never changes. Existing items are numbered in the same order.
ALTER TABLE items ADD COLUMN arch_seq INTEGER;
ALTER TABLE items ADD COLUMN first_rev INTEGER;
UPDATE items SET arch_seq = n.num
    FROM (SELECT source_id, item_id,
            row_number() OVER (PARTITION BY source_id ORDER BY first_seq, first_pos DESC, item_id) AS num
          FROM items) AS n
    WHERE items.source_id = n.source_id AND items.item_id = n.item_id;
UPDATE items SET first_rev = (SELECT min(r.rev_id) FROM item_revisions r
    WHERE r.source_id = items.source_id AND r.item_key = items.item_id);
CREATE UNIQUE INDEX items_arch_seq ON items (source_id, arch_seq);
