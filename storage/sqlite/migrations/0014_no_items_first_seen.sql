-- Issue 21: bytes on disk. items_first_seen duplicated what the revisions'
-- indexes hold: StoryItems now finds the items first seen since a time
-- through their shown revisions (item_revisions_recent, which has every
-- item's first_seen), and each item by its key.
DROP INDEX items_first_seen;
