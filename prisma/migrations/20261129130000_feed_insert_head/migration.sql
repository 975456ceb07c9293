-- The feed insert at 10,000 items a second (fifty accounts sharing tags): two per-row costs of every stored item
-- made smaller (docs/BENCHMARKS.md, "Ingest at 10,000 items a second").
--
-- 1. The item's JSON. The row trigger built `item_head` and `item_extra` for every item, escaping the post's text
--    and formatting its two timestamps once per account. @hashwatch/feed's insert now writes them itself, building
--    what a post shows once per post and the batch's detected_at once per batch, and the insert trigger runs only
--    for a row that arrives without its head (any other writer). Updates keep the trigger as before. The insert's
--    JSON is the trigger's to the byte: packages/feed/src/item-head.test.ts stores items both ways and compares.
DROP TRIGGER "feed_items_head" ON "feed_items";

CREATE TRIGGER "feed_items_head_insert"
  BEFORE INSERT ON "feed_items" FOR EACH ROW
  WHEN (NEW."item_head" IS NULL)
  EXECUTE FUNCTION "feed_items_write_head"();

CREATE TRIGGER "feed_items_head"
  BEFORE UPDATE OF "id", "type", "hashtag", "account", "sources", "author", "author_name", "text", "url",
                   "urls", "media", "quoted", "lang", "edited_at", "deleted",
                   "posted_at", "detected_at", "parent_id", "kind", "item_head", "item_extra"
  ON "feed_items" FOR EACH ROW EXECUTE FUNCTION "feed_items_write_head"();

-- 2. The source rows of an insert. Each stored item is new (a fresh random id), so its rows cannot be there
--    already; only an item listing one source twice could repeat one, which DISTINCT over that item's own sources
--    drops. With ON CONFLICT (speculative insertion) the source rows of 10,000 items took 350–480 ms, without 290–350 ms.
CREATE OR REPLACE FUNCTION "feed_items_add_sources"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "feed_item_sources" ("user_id", "source", "detected_at", "item_id", "type")
  SELECT n."user_id", s."source", n."detected_at", n."id", n."type"
    FROM "stored_items" n
    CROSS JOIN LATERAL (SELECT DISTINCT u."source" FROM unnest(n."sources") AS u("source") WHERE u."source" IS NOT NULL) s;
  RETURN NULL;
END
$fn$;
