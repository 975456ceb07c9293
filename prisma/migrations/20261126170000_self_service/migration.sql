-- Self-service accounts: a checkout creates a `pending` account that may sign in but reaches no other endpoint
-- until its subscription is active; dashboard sessions, the 2FA sign-in step and password resets keep only a
-- SHA-256 of the token they hand out; billing events are recorded by id so each is handled once.
ALTER TYPE "subscription_status" ADD VALUE IF NOT EXISTS 'pending';

-- scrypt hash (`scrypt$<N>$<r>$<p>$<salt>$<hash>`); null for an account an operator created without one.
ALTER TABLE "users" ADD COLUMN "password_hash" TEXT,
                    ADD COLUMN "billing_customer_id" TEXT,
                    ADD COLUMN "billing_subscription_id" TEXT;
CREATE UNIQUE INDEX "users_billing_customer_id_key" ON "users"("billing_customer_id");
CREATE UNIQUE INDEX "users_billing_subscription_id_key" ON "users"("billing_subscription_id");

CREATE TABLE "checkouts" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "plan_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "provider_session_id" TEXT,
    "url" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "completed_at" TIMESTAMPTZ(6),

    CONSTRAINT "checkouts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "checkouts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "checkouts_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE INDEX "checkouts_user_id_idx" ON "checkouts"("user_id");
CREATE UNIQUE INDEX "checkouts_provider_session_id_key" ON "checkouts"("provider_session_id");

CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "token_hash" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "last_seen_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "sessions_token_hash_key" ON "sessions"("token_hash");
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- The second step of a sign-in with 2FA on: spent by the sign-in it completes.
CREATE TABLE "login_challenges" (
    "token_hash" BYTEA NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "login_challenges_pkey" PRIMARY KEY ("token_hash"),
    CONSTRAINT "login_challenges_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "login_challenges_user_id_idx" ON "login_challenges"("user_id");

CREATE TABLE "password_resets" (
    "token_hash" BYTEA NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "password_resets_pkey" PRIMARY KEY ("token_hash"),
    CONSTRAINT "password_resets_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "password_resets_user_id_idx" ON "password_resets"("user_id");

-- Provider events already handled, written in the transaction that applies the event. No account column: the
-- record outlives an erased account and holds none of its data.
CREATE TABLE "billing_events" (
    "provider" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "processed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),

    CONSTRAINT "billing_events_pkey" PRIMARY KEY ("provider", "event_id")
);
