-- What the scanner has learned of each source's pace, for the `source_silent` notice (issue 16): the newest
-- post it saw, a decayed histogram of its gaps between posts (weighted by their length: apps/scanner/src/silence/
-- silence-detector.ts), and since when the detector finds the source silent. Written by the transaction that
-- completes a scan of the source, so only successful scans teach it or judge it. Goes with the source's cursor:
-- a source no served account tracks any more forgets its pace.
CREATE TABLE "source_activity" (
  "source_key" TEXT NOT NULL,
  "last_post_at" TIMESTAMPTZ(6),
  "gap_histogram" DOUBLE PRECISION[] NOT NULL,
  "samples" INTEGER NOT NULL DEFAULT 0,
  "long_gaps" INTEGER NOT NULL DEFAULT 0,
  "silent_since" TIMESTAMPTZ(6),
  "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  CONSTRAINT "source_activity_pkey" PRIMARY KEY ("source_key"),
  CONSTRAINT "source_activity_source_key_fkey" FOREIGN KEY ("source_key") REFERENCES "source_cursors"("source_key") ON DELETE CASCADE ON UPDATE CASCADE
);
