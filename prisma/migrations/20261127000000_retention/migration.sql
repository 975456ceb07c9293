-- Retention: a plan keeps its accounts' feed items `retention_days` days (by detected_at), then the maintenance
-- sweep (apps/scanner/src/maintenance) deletes them in small batches, with the posts no item references any more.
-- It deletes each item's feed_item_sources rows in the same statement (that table has no foreign key to the item,
-- see 20261125190000_feed_item_sources), so none is left behind.
-- At least 31 days: every item of the current billing period (at most 31 days) stays, so the usage page's
-- alerts-per-day chart never loses a day of the period (the alert quota itself counts usage_periods.alerts_used,
-- not rows, so no deletion can refund alerts whatever the retention).
ALTER TABLE "plans" ADD COLUMN "retention_days" INTEGER NOT NULL DEFAULT 90;
ALTER TABLE "plans" ADD CONSTRAINT "plans_retention_days_check" CHECK ("retention_days" BETWEEN 31 AND 3650);

-- Deleting a feed item cascades to its deliveries and the sweep skips items with a pending delivery; without an
-- index led by feed_item_id both would scan the deliveries table once per item. Built in the migration's
-- transaction (CONCURRENTLY cannot run in one): writes to deliveries wait while it builds (about 1 s per million
-- deliveries on the bench machine), reads do not.
CREATE INDEX "deliveries_feed_item_id_idx" ON "deliveries"("feed_item_id");

-- The sweep's pass over posts no feed item references finds them oldest first, among those first seen before
-- every plan's retention. Built in the migration's transaction: the scanner's inserts into x_posts wait while
-- it builds.
CREATE INDEX "x_posts_first_seen_at_idx" ON "x_posts"("first_seen_at");
