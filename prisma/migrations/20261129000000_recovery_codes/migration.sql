-- Two-factor recovery codes (CONTRACT 4): shown once when 2FA is turned on, each may stand in for a TOTP code once.
-- Only the SHA-256 of a code is stored (a code carries 80 random bits, so a slow hash would add nothing); a used code's row
-- is deleted under the account's row lock, so two requests cannot spend one code. Turning 2FA off (by code, by an
-- operator's `admin account:2fa-reset`) deletes the rest; the rows go with the account.
CREATE TABLE "recovery_codes" (
  "user_id" TEXT NOT NULL,
  "code_hash" BYTEA NOT NULL,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  CONSTRAINT "recovery_codes_pkey" PRIMARY KEY ("user_id", "code_hash"),
  CONSTRAINT "recovery_codes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
