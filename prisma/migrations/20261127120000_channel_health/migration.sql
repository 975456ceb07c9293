-- Channel health (CONTRACT 8, docs/DECISIONS.md "System notices: channels and quota"): what the notifier needs to
-- tell a channel that fails for a while from one that failed once, and to say so once.
--
-- failing_since: the time of the oldest failed send since the channel's last successful one (null: the last send
--   succeeded, or none failed yet). A send that succeeds clears it; re-enabling the channel or changing its
--   destination (PUT /notifications) clears it too, so the 1 h and 24 h clocks start again.
-- last_failure, last_failure_status: the latest failed send's reason (never a secret) and HTTP status, for the
--   notice's text.
-- failure_noticed: a channel_failing or channel_disabled notice was raised for this channel and no send has
--   succeeded since: the next successful send resolves them. Read with the channel row by every drain, so the
--   common case (healthy) costs no query.
ALTER TABLE "notification_channels"
  ADD COLUMN "failing_since" TIMESTAMPTZ(6),
  ADD COLUMN "last_failure" TEXT,
  ADD COLUMN "last_failure_status" INTEGER,
  ADD COLUMN "failure_noticed" BOOLEAN NOT NULL DEFAULT false;

-- The notifier's periodic check: the few channels failing now, never a scan of all channels.
CREATE INDEX "notification_channels_failing_since_idx" ON "notification_channels"("failing_since") WHERE "failing_since" IS NOT NULL;

-- The periodic check's other look-ups: open notices of one kind (channel_disabled of re-enabled channels, quota
-- notices of a past period), never a scan of every notice ever raised.
CREATE INDEX "notices_open_kind_idx" ON "notices"("kind") WHERE "resolved_at" IS NULL;
