-- Scan scheduling state of each source (apps/scanner): its cadence, when it is next due, which live scan
-- cycle holds it (the id of a session advisory lock, so a claim dies with the process that held it), and
-- how many scans in a row failed (for backoff).
ALTER TABLE "source_cursors"
    ADD COLUMN "interval_seconds" INTEGER NOT NULL DEFAULT 60,
    ADD COLUMN "next_scan_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    ADD COLUMN "claimed_by" INTEGER,
    ADD COLUMN "failures" INTEGER NOT NULL DEFAULT 0;

-- Claiming reads the sources that are due, oldest first.
CREATE INDEX "source_cursors_next_scan_at_idx" ON "source_cursors"("next_scan_at");
