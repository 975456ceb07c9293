-- What a post carries (CONTRACT 9): its language, links, media and quoted post, when its newest version was seen,
-- and whether X deleted it.
--
-- x_posts is keyed by the first id of the post's edit chain (X gives every edit a new id and lists them all in
-- edit_history_tweet_ids), so an edit is the post it edits: `version_ids` is the chain as the newest version seen
-- lists it (null for a post never edited; X counts engagement per version, so the poller reads them all),
-- `edited_at` when that version was seen, `deleted_at` when X answered the post as not found (its text and author
-- name are then cleared).
ALTER TABLE "x_posts"
  ADD COLUMN "version_ids" TEXT[],
  ADD COLUMN "edited_at" TIMESTAMPTZ(6),
  ADD COLUMN "deleted_at" TIMESTAMPTZ(6);

-- On feed items the lists are null when empty (nearly every post), so the hot insert passes nothing for them;
-- the item's JSON shows null lists as []. `json`, not `jsonb`: kept as written (compact), so the item's JSON
-- splices them in unchanged, and nothing queries inside them.
ALTER TABLE "feed_items"
  ADD COLUMN "lang" TEXT,
  ADD COLUMN "urls" JSON,
  ADD COLUMN "media" JSON,
  ADD COLUMN "quoted" JSON,
  ADD COLUMN "edited_at" TIMESTAMPTZ(6),
  ADD COLUMN "deleted" BOOLEAN NOT NULL DEFAULT false;

-- The item's JSON (20261125120000_feed_item_head) gains `lang` in `item_head`, and the other new fields in
-- `item_extra`, which stays NULL while they hold their defaults (no link, media, quote, edit or deletion: most
-- posts) and is read as `,"urls":[],"media":[],"quoted":null,"edited_at":null,"deleted":false` then
-- (@hashwatch/feed, itemJsonSql). Written into every row, those 70 bytes cost the feed insert about 15 % of its
-- rows per second (docs/BENCHMARKS.md, "X answer size and ingest").
ALTER TABLE "feed_items" ADD COLUMN "item_extra" TEXT;

CREATE OR REPLACE FUNCTION "feed_items_write_head"() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
    || ',"lang":' || COALESCE(to_json(NEW.lang)::text, 'null')
    || ',"posted_at":' || COALESCE('"' || to_char(NEW.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"detected_at":"' || to_char(NEW.detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'
    || CASE WHEN NEW.type = 'engagement'
         THEN ',"parent_id":' || COALESCE(to_json(NEW.parent_id)::text, 'null') || ',"kind":' || COALESCE('"' || NEW.kind::text || '"', 'null')
         ELSE '' END;
  NEW.item_extra := CASE WHEN NEW.urls IS NULL AND NEW.media IS NULL AND NEW.quoted IS NULL AND NEW.edited_at IS NULL AND NOT NEW.deleted
    THEN NULL
    ELSE ',"urls":' || COALESCE(NEW.urls::text, '[]')
      || ',"media":' || COALESCE(NEW.media::text, '[]')
      || ',"quoted":' || COALESCE(NEW.quoted::text, 'null')
      || ',"edited_at":' || COALESCE('"' || to_char(NEW.edited_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
      || ',"deleted":' || CASE WHEN NEW.deleted THEN 'true' ELSE 'false' END
    END;
  RETURN NEW;
END
$fn$;

DROP TRIGGER "feed_items_head" ON "feed_items";
CREATE TRIGGER "feed_items_head"
  BEFORE INSERT OR UPDATE OF "id", "type", "hashtag", "account", "sources", "author", "author_name", "text", "url",
                             "urls", "media", "quoted", "lang", "edited_at", "deleted",
                             "posted_at", "detected_at", "parent_id", "kind", "item_head", "item_extra"
  ON "feed_items" FOR EACH ROW EXECUTE FUNCTION "feed_items_write_head"();

-- Items stored before: their JSON gains `lang` (null); their extra stays NULL (the defaults).
UPDATE "feed_items" SET "item_head" = NULL;

-- X's batch compliance (docs/DECISIONS.md, "Posts as X really sends them"): stored posts are sent to X in jobs of up
-- to 100,000 ids, at most one job at a time (X's limit per app and type), and each post again a day after its last
-- check. `compliance_job_id` marks the posts a job holds until its results are applied.
ALTER TABLE "x_posts"
  ADD COLUMN "compliance_job_id" TEXT,
  ADD COLUMN "compliance_checked_at" TIMESTAMPTZ(6);

CREATE INDEX "x_posts_compliance_due_idx" ON "x_posts" ("compliance_checked_at" NULLS FIRST, "id")
  WHERE "deleted_at" IS NULL AND "compliance_job_id" IS NULL;

CREATE TABLE "compliance_jobs" (
  "id" TEXT NOT NULL,
  -- created (ids not uploaded yet), uploaded, complete, failed (X failed or expired it, or the upload expired).
  "status" TEXT NOT NULL,
  "post_count" INTEGER NOT NULL,
  "upload_url" TEXT NOT NULL,
  "upload_expires_at" TIMESTAMPTZ(6),
  "download_url" TEXT NOT NULL,
  "erased" INTEGER NOT NULL DEFAULT 0,
  "error" TEXT,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "finished_at" TIMESTAMPTZ(6),
  CONSTRAINT "compliance_jobs_pkey" PRIMARY KEY ("id")
);

-- One unfinished job at a time, whichever replica creates it.
CREATE UNIQUE INDEX "compliance_jobs_one_open_idx" ON "compliance_jobs" ((true)) WHERE "status" IN ('created', 'uploaded');
