-- GET /v1/posts answers each item as JSON. Building that JSON from 21 columns on every read (to_json of a row,
-- three timestamps formatted, up to four arrays) was most of PostgreSQL's work per page (bench/posts-feed.ts).
-- Everything but the engagement object changes only when the item itself is written, so it is written then:
-- `item_head` is the item's JSON object without its closing brace and without `engagement`, the only part that
-- changes every refresh; the page appends `,"engagement":…}` at read time.
--
-- A trigger keeps it true for every writer: it runs on insert, and on an update of any column it shows
-- (item_head included, so nothing can set it by hand). Engagement refreshes write none of those columns, so
-- they neither run it nor pay for it. Timestamps are ISO 8601 UTC with exactly three digits of milliseconds
-- (CONTRACT section 4); engagement items also carry parent_id and kind.
CREATE FUNCTION "feed_items_write_head"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.item_head := '{"id":' || to_json(NEW.id)::text
    || ',"type":"' || NEW.type::text
    || '","hashtag":' || COALESCE(to_json(NEW.hashtag)::text, 'null')
    || ',"account":' || COALESCE(to_json(NEW.account)::text, 'null')
    || ',"sources":' || COALESCE(array_to_json(NEW.sources)::text, '[]')
    || ',"author":' || to_json(NEW.author)::text
    || ',"author_name":' || to_json(NEW.author_name)::text
    || ',"text":' || to_json(NEW.text)::text
    || ',"url":' || to_json(NEW.url)::text
    || ',"posted_at":' || COALESCE('"' || to_char(NEW.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"detected_at":"' || to_char(NEW.detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'
    || CASE WHEN NEW.type = 'engagement'
         THEN ',"parent_id":' || COALESCE(to_json(NEW.parent_id)::text, 'null') || ',"kind":' || COALESCE('"' || NEW.kind::text || '"', 'null')
         ELSE '' END;
  RETURN NEW;
END
$fn$;

ALTER TABLE "feed_items" ADD COLUMN "item_head" TEXT;

CREATE TRIGGER "feed_items_head"
  BEFORE INSERT OR UPDATE OF "id", "type", "hashtag", "account", "sources", "author", "author_name", "text", "url",
                             "posted_at", "detected_at", "parent_id", "kind", "item_head"
  ON "feed_items" FOR EACH ROW EXECUTE FUNCTION "feed_items_write_head"();

-- Items stored before this migration: the update of item_head runs the trigger for each of them.
UPDATE "feed_items" SET "item_head" = NULL;

ALTER TABLE "feed_items" ALTER COLUMN "item_head" SET NOT NULL;
