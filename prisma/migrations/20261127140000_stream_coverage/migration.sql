-- The filtered stream (X_STREAM): which sources a stream rule covers, how far the stream's coverage reaches, and
-- the windows a disconnection left uncovered until a search back-fills them (docs/DECISIONS.md, "Filtered stream").
-- `streamed_since`: when the source's rule was first in place on a live connection; null while it is searched.
ALTER TABLE "source_cursors" ADD COLUMN "streamed_since" TIMESTAMPTZ(6);
-- When the source's current or latest scan was claimed: a completed scan (last_scan_at after it) that started a
-- margin after the source joined the stream read everything published before the stream matched it.
ALTER TABLE "source_cursors" ADD COLUMN "scan_started_at" TIMESTAMPTZ(6);

-- One row: every post X delivered before `covered_until` (a keep-alive or a post received once everything before it
-- was stored) is in the feed. Written by the replica holding the stream every few seconds; a stale value is how
-- every other replica learns the stream is down.
CREATE TABLE "stream_state" (
  "id" SMALLINT NOT NULL DEFAULT 1,
  "covered_until" TIMESTAMPTZ(6),
  "connected_at" TIMESTAMPTZ(6),
  -- How far around a disconnection the back-fill reaches, and how long a source's own search must come after it
  -- joined the stream; and how old a coverage means the stream is down. Set by the holder (its options).
  "margin_seconds" INTEGER NOT NULL DEFAULT 30,
  "stale_seconds" INTEGER NOT NULL DEFAULT 60,
  "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  CONSTRAINT "stream_state_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "stream_state_one_row" CHECK ("id" = 1)
);

-- A window the stream did not cover (from before the last coverage to after the reconnection), searched for
-- every streamed source with start_time/end_time by any replica's scan tick; `filled_at` once every page of
-- every pack was stored.
CREATE TABLE "stream_gaps" (
  "id" BIGSERIAL NOT NULL,
  "starts_at" TIMESTAMPTZ(6) NOT NULL,
  "ends_at" TIMESTAMPTZ(6) NOT NULL,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "filled_at" TIMESTAMPTZ(6),
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "last_error" TEXT,
  -- Sources whose posts of the window are stored: a back-fill that stops (rate limit, a crash) resumes after them.
  "done_keys" TEXT[] NOT NULL DEFAULT '{}',
  CONSTRAINT "stream_gaps_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "stream_gaps_unfilled_idx" ON "stream_gaps" ("starts_at") WHERE "filled_at" IS NULL;
