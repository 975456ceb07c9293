-- Which source(s) a stored post served, so that deleting a source (DELETE /tracks/{id}, /accounts/{id}, /me) finds
-- the posts only it needed by index instead of scanning the text of every post under a global lock (issue 25;
-- docs/DECISIONS.md, "Erasure by index").
--
-- Only posts that no feed item held when the scanner stored their batch get rows (over an account's alert quota,
-- kept back for a later page, or matched for a source deleted meanwhile): they are the only posts an erasure of a
-- source deletes (a post in some feed stays with its items; one whose items go later goes with them, erasure's
-- `x.id = ANY(...)` or the retention sweep). So the scanner's store path, which stores nearly every post it
-- records, writes no row in the common case (apps/scanner/src/storing/store-pack.ts, LINK_UNSTORED_POSTS), and a
-- post seen again by another source gains a row here instead of a rewrite of its x_posts row.
--
-- Keyed for erasure's lookup (every post of one source, an index-only range scan); the second index serves the
-- trigger below. No foreign key: a check would lock the post for each row written and fail a scan's store when a
-- sweep deletes that post at the same moment; a row naming a post deleted since is harmless (it goes with its
-- source) and holds no account's data.
CREATE TABLE "x_post_sources" (
  "source_key" TEXT NOT NULL,
  "x_post_id" TEXT NOT NULL,
  CONSTRAINT "x_post_sources_pkey" PRIMARY KEY ("source_key", "x_post_id")
);

CREATE INDEX "x_post_sources_x_post_id_idx" ON "x_post_sources" ("x_post_id");

-- Rows go with their post, whoever deletes it (retention sweep, erasure, a store undone), in one statement per
-- deleting statement.
CREATE FUNCTION "x_posts_drop_sources"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM "x_post_sources" s USING "gone_posts" g WHERE s."x_post_id" = g."id";
  RETURN NULL;
END
$fn$;

CREATE TRIGGER "x_posts_sources_delete"
  AFTER DELETE ON "x_posts" REFERENCING OLD TABLE AS "gone_posts"
  FOR EACH STATEMENT EXECUTE FUNCTION "x_posts_drop_sources"();

-- Posts stored before this migration that no feed item holds, linked to every source any track or account track
-- names that matched them by the rule erasure used until now (the text holds `#tag` or `$tag`, or the author is the
-- account): what an erasure would have found by scanning. Only unheld posts are read against the sources, a
-- small part of x_posts; posts held by a feed need no row.
INSERT INTO "x_post_sources" ("source_key", "x_post_id")
SELECT DISTINCT 'tag:' || t."norm", x."id"
  FROM "x_posts" x
  JOIN (SELECT DISTINCT "hashtag_norm" AS "norm" FROM "tracks") t
    ON strpos(lower(x."text"), '#' || t."norm") > 0 OR strpos(lower(x."text"), '$' || t."norm") > 0
 WHERE NOT EXISTS (SELECT 1 FROM "feed_items" f WHERE f."x_post_id" = x."id")
UNION
SELECT DISTINCT 'user:' || a."norm", x."id"
  FROM "x_posts" x
  JOIN (SELECT DISTINCT "username_norm" AS "norm" FROM "account_tracks") a ON lower(x."author_username") = a."norm"
 WHERE NOT EXISTS (SELECT 1 FROM "feed_items" f WHERE f."x_post_id" = x."id")
ON CONFLICT DO NOTHING;

ANALYZE "x_post_sources";
