-- Mentions of a watched account (CONTRACT 9 `include_mentions`): an account track may also detect posts that mention
-- its handle. The source `user:<handle>` is then searched as `from:<handle> OR @<handle>` (source_cursors
-- .with_mentions, written by the scanner's sync: true while any served tracker of it asks for mentions), and each
-- item says how it matched (`matched_by`: `author` or `mention`; NULL on hashtag and engagement items, and on
-- account items stored before, which were all by their author).
ALTER TABLE "account_tracks" ADD COLUMN "include_mentions" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "source_cursors" ADD COLUMN "with_mentions" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "feed_items" ADD COLUMN "matched_by" TEXT;
ALTER TABLE "feed_items" ADD CONSTRAINT "feed_items_matched_by_check"
  CHECK ("matched_by" IS NULL OR ("matched_by" IN ('author', 'mention') AND "type" = 'account'));
