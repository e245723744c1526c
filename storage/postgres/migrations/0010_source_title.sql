-- Issue 15: a user's title for a source (an imported OPML outline's),
-- shown until the feed's own title is known and written on export. The
-- column title is the newest channel title, kept by the store.
ALTER TABLE sources ADD COLUMN user_title text NOT NULL DEFAULT '';
