-- Issue 21: text stored once. A folded copy (title_f, link_f, text_f) is
-- kept only when lowering the field's ASCII letters, which lower() does
-- under the "C" collation on any server, does not give dynamo.FoldCase of
-- it (non-ASCII letters that fold): conditions and the trigram indexes
-- match coalesce(copy, lower(field COLLATE "C")). Before, every field with
-- an upper-case letter kept a whole second copy. The UPDATE leaves dead
-- rows for VACUUM; the space returns to the operating system only with
-- VACUUM FULL item_revisions (docs/STORAGE.md "Folded copies").
DROP INDEX item_revisions_title_trgm, item_revisions_link_trgm, item_revisions_text_trgm;
UPDATE item_revisions SET
        title_f = CASE WHEN title_f = lower(title COLLATE "C") THEN NULL ELSE title_f END,
        link_f = CASE WHEN link_f = lower(link COLLATE "C") THEN NULL ELSE link_f END,
        text_f = CASE WHEN text_f = lower(plain_text COLLATE "C") THEN NULL ELSE text_f END
    WHERE title_f = lower(title COLLATE "C") OR link_f = lower(link COLLATE "C") OR text_f = lower(plain_text COLLATE "C");
CREATE INDEX item_revisions_title_trgm ON item_revisions USING gin (coalesce(title_f, lower(title COLLATE "C")) gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX item_revisions_link_trgm ON item_revisions USING gin (coalesce(link_f, lower(link COLLATE "C")) gin_trgm_ops) WITH (fastupdate = off);
CREATE INDEX item_revisions_text_trgm ON item_revisions USING gin (coalesce(text_f, lower(plain_text COLLATE "C")) gin_trgm_ops) WITH (fastupdate = off);
