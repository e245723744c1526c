-- Issue 15: an item's enclosures (URL, media type, length) and the time it
-- was last updated, as JSON ({"enclosures": [...], "updated": "..."}); NULL
-- when it has neither, as every revision stored before has.
ALTER TABLE item_revisions ADD COLUMN media json;
