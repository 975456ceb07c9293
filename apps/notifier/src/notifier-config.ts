import { z } from 'zod';
import { configSchema, requiredSecretsKey } from '@hashwatch/config';

/** The shared variables, with SECRETS_KEY required (it unseals signing secrets and bot tokens), and the notifier's tuning. */
export const notifierConfig = configSchema.extend({
  SECRETS_KEY: requiredSecretsKey,
  NOTIFIER_SEND_TIMEOUT_MS: z
    .coerce.number()
    .int()
    .min(100)
    .max(60_000)
    .default(10_000)
    .describe("Deadline of one outgoing alert request, connect to last byte."),
  // At most NOTIFIER_SEND_TIMEOUT_MS: the sender takes the smaller of the two.
  NOTIFIER_SEND_FIRST_BYTE_TIMEOUT_MS: z
    .coerce.number()
    .int()
    .min(100)
    .max(60_000)
    .default(5_000)
    .describe("Deadline for an outgoing alert request's status line and headers (at most `NOTIFIER_SEND_TIMEOUT_MS`), so a target that takes the connection and never answers holds a send only this long."),
  NOTIFIER_CONCURRENCY: z
    .coerce.number()
    .int()
    .min(1)
    .max(1_000)
    .default(50)
    .describe("Jobs one replica runs at once per queue (routing, drains), and channels it drains right after routing."),
  NOTIFIER_MAX_SENDS_PER_ACCOUNT: z
    .coerce.number()
    .int()
    .min(1)
    .max(1_000)
    .default(20)
    .describe("Sends one account may have in flight at once in one replica (one json receiver takes up to 20 at once); its further channels wait 1 s and try again, so one account's slow webhooks never hold the replica's other slots."),
  // CONTRACT 8: a channel failing with transient errors for 1 h raises channel_failing; a webhook failing for 24 h is
  // switched off with channel_disabled. Shorter spans are for tests and staging.
  NOTIFIER_CHANNEL_FAILING_AFTER_SECONDS: z
    .coerce.number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(3_600)
    .describe("A channel whose sends have all failed this long and are still being retried (5xx, time-outs, refused connections) gets a `channel_failing` notice; a platform refusing it for good (401, 403, 404) gets one at once."),
  NOTIFIER_CHANNEL_DISABLE_AFTER_SECONDS: z
    .coerce.number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .default(86_400)
    .describe("A webhook channel whose sends have all failed this long is switched off (`enabled: false`, `disabled_reason`) with a `channel_disabled` notice."),
});
