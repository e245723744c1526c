-- Issue 15: the aggregate's archived feed (RFC 5005). Every item gets a
-- number across sources, handed out by the transaction that publishes its
-- version from the one row of aggregate_counter (SQLite's one writer makes
-- numbers follow commits), so a page of numbers, once every number of it
-- is handed out, never gains an item. Items of a version not yet published
-- have none (NULL). The counter never goes down, so purging items leaves
-- gaps, never numbers handed out twice. Existing published items are
-- numbered in the order first seen.
CREATE TABLE aggregate_counter (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    n   INTEGER NOT NULL
) STRICT;
ALTER TABLE items ADD COLUMN agg_seq INTEGER;
UPDATE items SET agg_seq = n.num
    FROM (SELECT i.source_id, i.item_id,
            row_number() OVER (ORDER BY i.first_seen, i.source_id, i.arch_seq) AS num
          FROM items i JOIN sources s ON s.id = i.source_id AND i.first_seq <= s.last_seq) AS n
    WHERE items.source_id = n.source_id AND items.item_id = n.item_id;
INSERT INTO aggregate_counter (one, n) SELECT 1, coalesce(max(agg_seq), 0) FROM items;
CREATE UNIQUE INDEX items_agg_seq ON items (agg_seq);
CREATE INDEX items_unnumbered ON items (source_id) WHERE agg_seq IS NULL;
