-- Engagement poller (apps/engagement-poller). Indexes only: Prisma's schema language cannot express partial
-- or expression indexes, so they live here, like feed_items_sources_idx.

-- Discovery reads the engagement-tracked detected posts committed since its watermark (the feed clock makes
-- detected_at commit-ordered), so it needs a range on detected_at over exactly those rows.
CREATE INDEX "feed_items_engagement_tracked_detected_at_idx" ON "feed_items"("detected_at")
    WHERE "engagement_tracked" AND "type" <> 'engagement';

-- Sampling spends its budget on the posts whose count rose most since their last sample: one small index per
-- category over just the posts with a rise, ordered by the rise.
CREATE INDEX "engagement_states_like_rise_idx" ON "engagement_states"(("like_count" - "sampled_likes") DESC)
    WHERE "like_count" > "sampled_likes";
CREATE INDEX "engagement_states_retweet_rise_idx" ON "engagement_states"(("retweet_count" - "sampled_retweets") DESC)
    WHERE "retweet_count" > "sampled_retweets";
CREATE INDEX "engagement_states_reply_rise_idx" ON "engagement_states"(("reply_count" - "sampled_replies") DESC)
    WHERE "reply_count" > "sampled_replies";
