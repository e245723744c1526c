-- Issue 21: a dictionary for repeated values. Every version kept its
-- channel's JSON (about a hundred bytes, more with a description or an
-- image) although most versions of a source share it; channels now holds
-- each source's distinct channels once, as SQLite's schema does, and a
-- version names its channel. chash is the first 16 bytes of the JSON's
-- SHA-256 (archive.Channel computes the same for new versions). versions
-- has no foreign key to channels: its check would scan versions for every
-- channel that purging a source deletes, and a channel is never deleted
-- while its source's versions exist (both go with the source).
CREATE TABLE channels (
    channel_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id  text NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    chash      bytea NOT NULL,
    body       json NOT NULL,
    UNIQUE (source_id, chash)
);
INSERT INTO channels (source_id, chash, body)
    SELECT DISTINCT ON (source_id, h) source_id, h, channel
    FROM (SELECT source_id, seq, substring(sha256(convert_to(channel::text, 'UTF8')) FOR 16) AS h, channel FROM versions) AS v
    ORDER BY source_id, h, seq;
ALTER TABLE versions ADD COLUMN channel_id bigint;
UPDATE versions v SET channel_id = c.channel_id FROM channels c
    WHERE c.source_id = v.source_id AND c.chash = substring(sha256(convert_to(v.channel::text, 'UTF8')) FOR 16);
ALTER TABLE versions ALTER COLUMN channel_id SET NOT NULL, DROP COLUMN channel;
