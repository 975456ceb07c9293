-- A drain claims deliveries for one attempt and writes its run's token (the token of its Redis lease) on
-- them. Giving a claim back and writing an outcome (delivered, retry, failed) only touch rows that still carry
-- the run's token, so a run that lost its lease cannot undo or overwrite a claim a newer run has made.
-- Nullable with no default: adding it rewrites no row, and rows claimed before it simply have no token.
ALTER TABLE "deliveries" ADD COLUMN "claim_token" TEXT;
