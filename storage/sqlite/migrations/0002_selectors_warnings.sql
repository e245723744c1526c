-- Selector sources keep their selectors (dynamo.Source.SelectorsText, one
-- JSON object), and every source the warnings of the last page it read
-- (PollState.Warnings, one JSON array).
ALTER TABLE sources ADD COLUMN selectors TEXT NOT NULL DEFAULT '';
ALTER TABLE sources ADD COLUMN poll_warnings TEXT NOT NULL DEFAULT '';
