-- Fair shares of X's search budget (issue 25): when the sources of served accounts together ask for more recent
-- searches than the budget (SCANNER_SEARCH_BUDGET per 15 minutes), each account asking for more than its
-- plan-weighted share scans at a whole power-of-two multiple of its plan's interval (`stretch`). Accounts within
-- their share have no row. Written by the scanner (apps/scanner/src/sources/fair-shares.ts), read by its source
-- sync; goes with the account.
CREATE TABLE "scan_shares" (
  "user_id" TEXT NOT NULL,
  "stretch" INTEGER NOT NULL,
  "demand_per_hour" DOUBLE PRECISION NOT NULL,
  "share_per_hour" DOUBLE PRECISION NOT NULL,
  "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  CONSTRAINT "scan_shares_pkey" PRIMARY KEY ("user_id"),
  CONSTRAINT "scan_shares_stretch_check" CHECK ("stretch" >= 2),
  CONSTRAINT "scan_shares_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
