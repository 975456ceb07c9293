-- Engagement refreshes rewrite the counts, sample lists and switches of engagement-tracked feed items every
-- cycle for 48 hours. None of those columns is indexed, so the update can be HOT (no index entry written for
-- any of feed_items' indexes, the GIN index on sources included) when the new row version fits on its page.
-- At the default fillfactor 100 a freshly filled page has no room, and the first refresh of every item
-- touches every index. 85 leaves that room. Prisma's schema language cannot express storage parameters, so
-- this lives here only; it applies to pages written from now on.
ALTER TABLE "feed_items" SET (fillfactor = 85);
