-- Issue 21: text stored once. A folded copy (title_f, link_f, text_f) is
-- kept only when SQLite's lower(), which lowers ASCII letters only, does
-- not give dynamo.FoldCase of the field (non-ASCII letters that fold):
-- conditions match coalesce(copy, lower(field)). Before, every field with
-- an upper-case letter kept a whole second copy. The freed pages stay in
-- the file for new rows until VACUUM (docs/STORAGE.md "Folded copies").
UPDATE item_revisions SET
        title_f = CASE WHEN title_f = lower(title) THEN NULL ELSE title_f END,
        link_f = CASE WHEN link_f = lower(link) THEN NULL ELSE link_f END,
        text_f = CASE WHEN text_f = lower(plain_text) THEN NULL ELSE text_f END
    WHERE title_f = lower(title) OR link_f = lower(link) OR text_f = lower(plain_text);
