-- The three default plans: resource limits, alerts per month, scan and engagement refresh intervals (seconds) and
-- requests per minute. Existing rows are left alone, so a plan an operator changed with `plan:set` keeps its
-- values across re-runs of `npm run db:migrate`.
INSERT INTO "plans" ("id", "name", "hashtags_limit", "accounts_limit", "engagement_limit", "webhooks_limit",
                     "alerts_limit", "scan_interval_seconds", "engagement_refresh_seconds", "rate_limit_per_minute")
VALUES
  ('starter',  'Starter',   3,  2,  3,  1,  1000, 60, 300,  60),
  ('pro',      'Pro',      15, 10, 15,  5, 25000, 30, 180, 180),
  ('business', 'Business', 40, 25, 25, 10, 75000, 10,  60, 600)
ON CONFLICT ("id") DO NOTHING;
