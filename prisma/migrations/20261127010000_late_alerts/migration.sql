-- Catch-up after downtime: an item detected more than ALERT_MAX_AGE_SECONDS after its posted_at is "late". Its
-- deliveries to chat platforms (Discord, Slack, the Telegram bot) are recorded as `skipped`, a terminal state
-- with the reason in last_error, so the delivery log accounts for every (channel, item) pair and nothing waits
-- forever; its json deliveries are sent as usual, flagged `late` (the message carries `late: true`).
-- ADD VALUE runs in the migration's transaction (PostgreSQL 12+); nothing here uses the value before it commits.
ALTER TYPE "delivery_status" ADD VALUE IF NOT EXISTS 'skipped';

-- Decided once, when the delivery is routed, so every replica of the notifier sends what routing decided.
ALTER TABLE "deliveries" ADD COLUMN "late" BOOLEAN NOT NULL DEFAULT false;
