-- Issue 20: a source's poll history says what the origin answered: the
-- HTTP status (0 when no answer came) and the size of the body read.
ALTER TABLE poll_log ADD COLUMN http_status integer NOT NULL DEFAULT 0;
ALTER TABLE poll_log ADD COLUMN bytes bigint NOT NULL DEFAULT 0;
