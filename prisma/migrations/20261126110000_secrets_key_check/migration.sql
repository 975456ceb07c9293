-- The key check value (packages/secrets, verifySecretsKey): a constant sealed with SECRETS_KEY by the first app
-- that starts. Every app that opens secrets opens it at start-up and stops, naming SECRETS_KEY, when its keys do
-- not: a lost or replaced key is found at once instead of as one failing request or delivery after another.
-- One row only.
CREATE TABLE "secrets_key_checks" (
    "id" SMALLINT NOT NULL,
    "sealed" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),

    CONSTRAINT "secrets_key_checks_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "secrets_key_checks_one_row" CHECK ("id" = 1)
);
