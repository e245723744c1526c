-- Issue 14: a per-source switch to poll a page its host's robots.txt
-- disallows (a webmaster polling their own page); off by default.
ALTER TABLE sources ADD COLUMN ignore_robots boolean NOT NULL DEFAULT false;
