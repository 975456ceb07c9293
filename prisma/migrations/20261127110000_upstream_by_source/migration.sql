-- Upstream cost per source: what X served for each packed query (posts read, requests) is split evenly across
-- the sources the query served, then each source's share evenly across the accounts tracking it, and added
-- here per account, billing period and source (`#tag` or `@user`) by the scanner, in the transaction and under
-- the usage_periods row lock that already count the account's upstream_posts_read (docs/DECISIONS.md,
-- "Upstream cost per source"). A row belongs to its usage row: erasing the account or the period removes it.
CREATE TABLE "upstream_usage_by_source" (
    "user_id" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(6) NOT NULL,
    "source" TEXT NOT NULL,
    "reads" DECIMAL(20,6) NOT NULL DEFAULT 0,
    "requests" DECIMAL(20,6) NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "upstream_usage_by_source_pkey" PRIMARY KEY ("user_id","period_start","source")
);

ALTER TABLE "upstream_usage_by_source" ADD CONSTRAINT "upstream_usage_by_source_user_id_period_start_fkey"
  FOREIGN KEY ("user_id", "period_start") REFERENCES "usage_periods"("user_id", "period_start") ON DELETE CASCADE ON UPDATE CASCADE;

-- The shares are whole millionths, handed out so that they add up exactly to what X served; upstream_posts_read
-- (an account's reads, the sum of its per-source reads) takes the same scale so the two always agree. A rewrite
-- of usage_periods: one row per account and period.
ALTER TABLE "usage_periods" ALTER COLUMN "upstream_posts_read" TYPE DECIMAL(20,6);
