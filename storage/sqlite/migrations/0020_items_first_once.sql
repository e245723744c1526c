-- Issue 21: bytes on disk. An item's first_seen, first_pos and first_index
-- never change and every revision of the item holds a copy of them (the
-- archive queries read them there): items keeps them no more, and what
-- read them from items (the write path's lookup of the stored items,
-- StoryItems) reads them from the item's shown revision (latest_rev, a
-- rowid lookup). 11 bytes less an item row. DROP COLUMN rewrites the rows
-- in place; the pages they free are reused by later rows, and returned to
-- the file system only by VACUUM.
ALTER TABLE items DROP COLUMN first_seen;
ALTER TABLE items DROP COLUMN first_pos;
ALTER TABLE items DROP COLUMN first_index;
