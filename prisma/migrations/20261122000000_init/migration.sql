-- CreateEnum
CREATE TYPE "subscription_status" AS ENUM ('active', 'past_due', 'canceled');
CREATE TYPE "feed_item_type" AS ENUM ('hashtag', 'account', 'engagement');
CREATE TYPE "engagement_kind" AS ENUM ('retweet', 'like', 'reply');
CREATE TYPE "channel_kind" AS ENUM ('webhook', 'bot');
CREATE TYPE "delivery_status" AS ENUM ('pending', 'delivered', 'failed');

-- CreateTable
CREATE TABLE "plans" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "hashtags_limit" INTEGER NOT NULL,
    "accounts_limit" INTEGER NOT NULL,
    "engagement_limit" INTEGER NOT NULL,
    "webhooks_limit" INTEGER NOT NULL,
    "alerts_limit" INTEGER NOT NULL,
    "scan_interval_seconds" INTEGER NOT NULL,
    "engagement_refresh_seconds" INTEGER NOT NULL,
    "rate_limit_per_minute" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "plans_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "plan_id" TEXT NOT NULL,
    "hashtags_limit" INTEGER NOT NULL,
    "accounts_limit" INTEGER NOT NULL,
    "engagement_limit" INTEGER NOT NULL,
    "webhooks_limit" INTEGER NOT NULL,
    "alerts_limit" INTEGER NOT NULL,
    "scan_interval_seconds" INTEGER NOT NULL,
    "engagement_refresh_seconds" INTEGER NOT NULL,
    "rate_limit_per_minute" INTEGER NOT NULL,
    "subscription_status" "subscription_status" NOT NULL,
    "current_period_start" TIMESTAMPTZ(6) NOT NULL,
    "current_period_end" TIMESTAMPTZ(6) NOT NULL,
    "totp_secret_enc" TEXT,
    "totp_pending_secret_enc" TEXT,
    "totp_last_step" BIGINT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "key_hash" BYTEA NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(6),
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "tracks" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "hashtag" TEXT NOT NULL,
    "hashtag_norm" TEXT NOT NULL,
    "lang" TEXT,
    "exclude_retweets" BOOLEAN NOT NULL DEFAULT true,
    "track_engagement" BOOLEAN NOT NULL DEFAULT false,
    "track_likes" BOOLEAN NOT NULL DEFAULT true,
    "track_reposts" BOOLEAN NOT NULL DEFAULT true,
    "track_comments" BOOLEAN NOT NULL DEFAULT true,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_scanned_at" TIMESTAMPTZ(6),
    "last_post_at" TIMESTAMPTZ(6),
    "scan_error" TEXT,
    CONSTRAINT "tracks_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "account_tracks" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "username_norm" TEXT NOT NULL,
    "x_user_id" TEXT,
    "exclude_replies" BOOLEAN NOT NULL DEFAULT true,
    "track_engagement" BOOLEAN NOT NULL DEFAULT false,
    "track_likes" BOOLEAN NOT NULL DEFAULT true,
    "track_reposts" BOOLEAN NOT NULL DEFAULT true,
    "track_comments" BOOLEAN NOT NULL DEFAULT true,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_scanned_at" TIMESTAMPTZ(6),
    "last_post_at" TIMESTAMPTZ(6),
    "scan_error" TEXT,
    CONSTRAINT "account_tracks_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "feed_items" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "dedupe_key" TEXT NOT NULL,
    "type" "feed_item_type" NOT NULL,
    "hashtag" TEXT,
    "account" TEXT,
    "sources" TEXT[],
    "x_post_id" TEXT NOT NULL,
    "author_id" TEXT,
    "author" TEXT NOT NULL,
    "author_name" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "posted_at" TIMESTAMPTZ(6),
    "detected_at" TIMESTAMPTZ(6) NOT NULL,
    "parent_id" TEXT,
    "kind" "engagement_kind",
    "engagement_tracked" BOOLEAN NOT NULL DEFAULT false,
    "track_likes" BOOLEAN NOT NULL DEFAULT true,
    "track_reposts" BOOLEAN NOT NULL DEFAULT true,
    "track_comments" BOOLEAN NOT NULL DEFAULT true,
    "retweet_count" INTEGER NOT NULL DEFAULT 0,
    "like_count" INTEGER NOT NULL DEFAULT 0,
    "reply_count" INTEGER NOT NULL DEFAULT 0,
    "retweeters" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "likers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "repliers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "engagement_updated_at" TIMESTAMPTZ(6),
    CONSTRAINT "feed_items_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "feed_clock" (
    "id" INTEGER NOT NULL,
    "last" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "feed_clock_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "usage_periods" (
    "user_id" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(6) NOT NULL,
    "period_end" TIMESTAMPTZ(6) NOT NULL,
    "alerts_used" INTEGER NOT NULL DEFAULT 0,
    "upstream_posts_read" DECIMAL(18,4) NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "usage_periods_pkey" PRIMARY KEY ("user_id","period_start")
);

CREATE TABLE "notification_channels" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "kind" "channel_kind" NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "url" TEXT,
    "format" TEXT NOT NULL DEFAULT 'auto',
    "bot_name" TEXT NOT NULL DEFAULT 'Hashwatch',
    "hashtags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "accounts" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "source_filter" TEXT NOT NULL DEFAULT 'all',
    "engagement_alerts" BOOLEAN NOT NULL DEFAULT false,
    "template" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "signing_secret_enc" TEXT,
    "bot_token_enc" TEXT,
    "token_hint" TEXT,
    "chat_id" TEXT,
    "disabled_reason" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "notification_channels_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "deliveries" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "channel_id" TEXT NOT NULL,
    "feed_item_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "status" "delivery_status" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "last_status" INTEGER,
    "next_attempt_at" TIMESTAMPTZ(6),
    "delivered_at" TIMESTAMPTZ(6),
    "digest_id" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "x_posts" (
    "id" TEXT NOT NULL,
    "author_id" TEXT NOT NULL,
    "author_username" TEXT NOT NULL,
    "author_name" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "lang" TEXT,
    "conversation_id" TEXT,
    "is_retweet" BOOLEAN NOT NULL DEFAULT false,
    "is_reply" BOOLEAN NOT NULL DEFAULT false,
    "posted_at" TIMESTAMPTZ(6) NOT NULL,
    "first_seen_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "x_posts_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "engagement_states" (
    "x_post_id" TEXT NOT NULL,
    "interval_seconds" INTEGER NOT NULL,
    "poll_until" TIMESTAMPTZ(6) NOT NULL,
    "next_poll_at" TIMESTAMPTZ(6) NOT NULL,
    "retweet_count" INTEGER NOT NULL DEFAULT 0,
    "like_count" INTEGER NOT NULL DEFAULT 0,
    "reply_count" INTEGER NOT NULL DEFAULT 0,
    "sampled_retweets" INTEGER NOT NULL DEFAULT 0,
    "sampled_likes" INTEGER NOT NULL DEFAULT 0,
    "sampled_replies" INTEGER NOT NULL DEFAULT 0,
    "retweeters" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "likers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "repliers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "counts_updated_at" TIMESTAMPTZ(6),
    "samples_updated_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "engagement_states_pkey" PRIMARY KEY ("x_post_id")
);

CREATE TABLE "source_cursors" (
    "source_key" TEXT NOT NULL,
    "since_id" TEXT,
    "not_before" TIMESTAMPTZ(6) NOT NULL,
    "last_scan_at" TIMESTAMPTZ(6),
    "last_error" TEXT,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "source_cursors_pkey" PRIMARY KEY ("source_key")
);

CREATE TABLE "outbox_jobs" (
    "id" BIGSERIAL NOT NULL,
    "queue" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");
CREATE INDEX "api_keys_user_id_idx" ON "api_keys"("user_id");
CREATE INDEX "tracks_user_id_created_at_idx" ON "tracks"("user_id", "created_at");
CREATE INDEX "tracks_hashtag_norm_idx" ON "tracks"("hashtag_norm");
-- The same hashtag + lang twice (case-insensitive, null lang counted as one value) is a conflict.
CREATE UNIQUE INDEX "tracks_user_hashtag_lang_key" ON "tracks"("user_id", "hashtag_norm", COALESCE("lang", ''));
CREATE UNIQUE INDEX "account_tracks_user_id_username_norm_key" ON "account_tracks"("user_id", "username_norm");
CREATE INDEX "account_tracks_username_norm_idx" ON "account_tracks"("username_norm");
CREATE UNIQUE INDEX "feed_items_user_id_dedupe_key_key" ON "feed_items"("user_id", "dedupe_key");
CREATE INDEX "feed_items_user_id_detected_at_id_idx" ON "feed_items"("user_id", "detected_at" DESC, "id" DESC);
CREATE INDEX "feed_items_x_post_id_idx" ON "feed_items"("x_post_id");
-- Filtered feed reads (hashtag / account filters match any entry of sources).
CREATE INDEX "feed_items_sources_idx" ON "feed_items" USING GIN ("sources");
CREATE INDEX "deliveries_user_id_created_at_id_idx" ON "deliveries"("user_id", "created_at" DESC, "id" DESC);
CREATE INDEX "deliveries_channel_id_status_created_at_idx" ON "deliveries"("channel_id", "status", "created_at");
CREATE UNIQUE INDEX "deliveries_channel_id_feed_item_id_key" ON "deliveries"("channel_id", "feed_item_id");
CREATE INDEX "notification_channels_user_id_idx" ON "notification_channels"("user_id");
-- At most one bot channel per account.
CREATE UNIQUE INDEX "notification_channels_one_bot_key" ON "notification_channels"("user_id") WHERE "kind" = 'bot';
CREATE INDEX "engagement_states_next_poll_at_idx" ON "engagement_states"("next_poll_at");
CREATE INDEX "outbox_jobs_created_at_idx" ON "outbox_jobs"("created_at");

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "tracks" ADD CONSTRAINT "tracks_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "account_tracks" ADD CONSTRAINT "account_tracks_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "feed_items" ADD CONSTRAINT "feed_items_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "usage_periods" ADD CONSTRAINT "usage_periods_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_feed_item_id_fkey" FOREIGN KEY ("feed_item_id") REFERENCES "feed_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The feed clock starts at the epoch; the first writer moves it to now.
INSERT INTO "feed_clock" ("id", "last") VALUES (1, '1970-01-01T00:00:00Z');
