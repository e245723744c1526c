-- Issue 21: a BRIN index on first_seen, so that an archive query asks the
-- newest items first (archiveQuery in archive.go): ANDed with a trigram
-- index's matches, it leaves only those in a window of the newest items to
-- be read. Revisions are stored in the order they are first seen, so a
-- block range's first_seen values are close together; a range that is not
-- (a later revision of an old item) is only read needlessly, never missed.
-- The index is about 40 KB for 1 M items (its smallest is 24 KB).
CREATE INDEX item_revisions_seen ON item_revisions USING brin (first_seen) WITH (autosummarize = on);
