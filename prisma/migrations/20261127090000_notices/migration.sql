-- System notices (CONTRACT 8): what Hashwatch tells an account about its own monitoring, through the account's
-- channels. One row per episode of a condition: opened when the condition starts, resolved (resolved_at set)
-- when it ends. `subject` says what the condition is about, so one condition has at most one open notice:
-- the source (`#tag`, `$tag`, `@user`), the channel's row id, or the billing period's start for the quota.
CREATE TABLE "notices" (
  "id" TEXT NOT NULL,
  "user_id" TEXT NOT NULL,
  "kind" TEXT NOT NULL,
  "subject" TEXT NOT NULL,
  "source" TEXT,
  "channel_id" TEXT,
  "message" TEXT NOT NULL,
  "opened_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "resolved_at" TIMESTAMPTZ(6),
  CONSTRAINT "notices_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "notices_kind_check" CHECK ("kind" IN ('source_silent', 'source_failing', 'channel_failing', 'channel_disabled', 'quota_warning', 'quota_exhausted')),
  CONSTRAINT "notices_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  -- A deleted channel takes its notices with it: the condition it was about is gone with it.
  CONSTRAINT "notices_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- At most one open notice per condition: a replica that raises the same condition at the same moment inserts
-- nothing (ON CONFLICT DO NOTHING on this index).
CREATE UNIQUE INDEX "notices_open_condition_key" ON "notices"("user_id", "kind", "subject") WHERE "resolved_at" IS NULL;
-- GET /v1/notices: newest first, cursor-paged.
CREATE INDEX "notices_user_id_opened_at_id_idx" ON "notices"("user_id", "opened_at" DESC, "id" DESC);
-- The cooldown: when did this condition last resolve.
CREATE INDEX "notices_condition_resolved_idx" ON "notices"("user_id", "kind", "subject", "resolved_at" DESC);
CREATE INDEX "notices_channel_id_idx" ON "notices"("channel_id");

-- Whether a channel receives notices. Null: its platform's default, decided when a notice is sent, since a
-- webhook's format may be `auto` (true for Discord, Slack and the bot; false for json, so no receiver meets a
-- message shape it does not expect).
ALTER TABLE "notification_channels" ADD COLUMN "notices" BOOLEAN;

-- One row per (notice, state, channel): the opening and the resolution of a notice each reach every channel of
-- the account that takes notices, once. Sent by the channel's drain with its alerts, under the same pacing,
-- leases and retries; `message_id` is the Standard Webhooks `webhook-id`, `<notice id>:<state>`.
CREATE TABLE "notice_deliveries" (
  "id" TEXT NOT NULL,
  "user_id" TEXT NOT NULL,
  "notice_id" TEXT NOT NULL,
  "state" TEXT NOT NULL,
  "channel_id" TEXT NOT NULL,
  "message_id" TEXT NOT NULL,
  "status" "delivery_status" NOT NULL DEFAULT 'pending',
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "last_error" TEXT,
  "last_status" INTEGER,
  "next_attempt_at" TIMESTAMPTZ(6),
  "delivered_at" TIMESTAMPTZ(6),
  "claim_token" TEXT,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  CONSTRAINT "notice_deliveries_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "notice_deliveries_state_check" CHECK ("state" IN ('open', 'resolved')),
  CONSTRAINT "notice_deliveries_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "notice_deliveries_notice_id_fkey" FOREIGN KEY ("notice_id") REFERENCES "notices"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "notice_deliveries_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "notice_deliveries_notice_id_state_channel_id_key" ON "notice_deliveries"("notice_id", "state", "channel_id");
CREATE INDEX "notice_deliveries_channel_id_status_created_at_idx" ON "notice_deliveries"("channel_id", "status", "created_at");
CREATE INDEX "notice_deliveries_user_id_idx" ON "notice_deliveries"("user_id");
