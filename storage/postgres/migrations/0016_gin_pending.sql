-- Issue 21: inserting a revision into the three trigram indexes one entry
-- at a time (fastupdate = off) was half of PostgreSQL's CPU for a poll
-- storing one new item among fifty (about 1.5 ms: each of a
-- description's hundreds of trigrams descends its posting tree). With a
-- pending list the insert appends the entries, and every 256 kB (about
-- ten revisions of a thousand characters) the inserting backend merges
-- them into the tree, sorted, each key once. 256 kB keeps what this costs
-- queries small: a keyword query also reads the pending list, at most 32
-- pages per index (docs/STORAGE.md "Conditions in the database"), where
-- the default 4 MB list, which 0001 turned off, held hundreds.
ALTER INDEX item_revisions_title_trgm SET (fastupdate = on, gin_pending_list_limit = 256);
ALTER INDEX item_revisions_link_trgm SET (fastupdate = on, gin_pending_list_limit = 256);
ALTER INDEX item_revisions_text_trgm SET (fastupdate = on, gin_pending_list_limit = 256);
