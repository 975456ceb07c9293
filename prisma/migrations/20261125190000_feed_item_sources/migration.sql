-- GET /v1/posts?hashtag=… and ?account=… read the account's items that carry one source. With only the GIN
-- index on feed_items.sources, no single plan suits every source: a tag on a third of the items is best found by
-- walking the account's feed index and filtering, a tag on one item in 5,000 by the GIN index and a sort. So
-- those pages were planned per request, with the value in hand, which cost PostgreSQL more than reading them
-- (bench/posts-feed.ts: 450-670 us of CPU per page against about 110 us for the unfiltered feed).
--
-- `feed_item_sources` holds one row per item and source, keyed in the order pages are read: a filtered page is a
-- keyset scan of its primary key, newest first, whatever the source's frequency, so one prepared plan serves
-- every value. It replaces the GIN index, which nothing else used. The item's type rides along in the index
-- (INCLUDE), so `type=` is checked on the index entry before the item is fetched: engagement events carry their
-- post's sources and can outnumber the posts of a source many times over.
--
-- Triggers keep it true for every writer: a statement trigger adds the rows of each insert, in one statement per
-- batch; a row trigger follows the rare update of an item's sources, detected_at, type or user_id (the scanner
-- adding a source it matched later). Engagement refreshes write none of those columns, so they run neither. A
-- null element of sources gets no row. Rows go with their account (the foreign key below). Nothing deletes
-- single feed items; should one be deleted by hand, its rows stay behind unseen, since a page joins each row to
-- its item. A page also checks the item's account again, so even a row left wrong (written with the triggers
-- disabled) cannot show another account's item; it could show one of the account's items under a filter the
-- item no longer matches, so keep the triggers on.
CREATE TABLE "feed_item_sources" (
    "user_id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "detected_at" TIMESTAMPTZ(6) NOT NULL,
    "item_id" TEXT NOT NULL,
    "type" "feed_item_type" NOT NULL,
    CONSTRAINT "feed_item_sources_pkey" PRIMARY KEY ("user_id", "source", "detected_at", "item_id") INCLUDE ("type")
);

CREATE FUNCTION "feed_items_add_sources"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO "feed_item_sources" ("user_id", "source", "detected_at", "item_id", "type")
  SELECT n."user_id", s."source", n."detected_at", n."id", n."type"
    FROM "stored_items" n CROSS JOIN LATERAL unnest(n."sources") AS s("source")
   WHERE s."source" IS NOT NULL
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$fn$;

CREATE TRIGGER "feed_items_sources_insert"
  AFTER INSERT ON "feed_items" REFERENCING NEW TABLE AS "stored_items"
  FOR EACH STATEMENT EXECUTE FUNCTION "feed_items_add_sources"();

CREATE FUNCTION "feed_items_move_sources"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM "feed_item_sources"
   WHERE "user_id" = OLD."user_id" AND "source" = ANY(OLD."sources") AND "detected_at" = OLD."detected_at" AND "item_id" = OLD."id";
  INSERT INTO "feed_item_sources" ("user_id", "source", "detected_at", "item_id", "type")
  SELECT NEW."user_id", s."source", NEW."detected_at", NEW."id", NEW."type" FROM unnest(NEW."sources") AS s("source")
   WHERE s."source" IS NOT NULL
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$fn$;

CREATE TRIGGER "feed_items_sources_update"
  AFTER UPDATE OF "id", "user_id", "sources", "detected_at", "type" ON "feed_items" FOR EACH ROW
  WHEN (OLD."id" IS DISTINCT FROM NEW."id" OR OLD."user_id" IS DISTINCT FROM NEW."user_id"
        OR OLD."sources" IS DISTINCT FROM NEW."sources" OR OLD."detected_at" IS DISTINCT FROM NEW."detected_at"
        OR OLD."type" IS DISTINCT FROM NEW."type")
  EXECUTE FUNCTION "feed_items_move_sources"();

-- Items stored before this migration, in one statement. Writes to feed_items wait from the triggers' creation
-- to the commit (about 10 s per million items); reads wait only for the last steps below.
INSERT INTO "feed_item_sources" ("user_id", "source", "detected_at", "item_id", "type")
SELECT f."user_id", s."source", f."detected_at", f."id", f."type"
  FROM "feed_items" f CROSS JOIN LATERAL unnest(f."sources") AS s("source")
 WHERE s."source" IS NOT NULL
ON CONFLICT DO NOTHING;

-- Added after the backfill: the constraint locks `users` against writes until the commit, so only for its check.
ALTER TABLE "feed_item_sources" ADD CONSTRAINT "feed_item_sources_user_id_fkey"
  FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

DROP INDEX "feed_items_sources_idx";

ANALYZE "feed_item_sources";
