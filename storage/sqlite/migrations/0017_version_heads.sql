-- Issue 21: bytes on disk. A version's document URL, RSS id and title
-- (its channel's) repeat from version to version: a version stored from
-- now on keeps them in its channels row, which is found by a key of the
-- channel and the two (archive.Channel's key, the URL and the RSS id
-- hashed, versionTx.storeChannel), and stores '' in its own columns;
-- versions stored before keep theirs, and their channels rows have NULL
-- in the new columns (reads take coalesce(c.url, v.url)). The document's
-- timestamp is stored as its difference from the time the version was
-- seen (stamp_offset, stamp - seen_at), 0 bytes where the two are equal.
ALTER TABLE channels ADD COLUMN url TEXT;
ALTER TABLE channels ADD COLUMN rss_id TEXT;
ALTER TABLE channels ADD COLUMN title TEXT;
ALTER TABLE versions RENAME COLUMN stamp TO stamp_offset;
UPDATE versions SET stamp_offset = stamp_offset - seen_at;
