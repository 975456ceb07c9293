import type { RedisClient } from '@hashwatch/queues';
import type { ErasedAccount } from '@hashwatch/accounts';
import { emailLimitKey } from '../session/sign-in.service';

// The per-account limits of the gateway (tightLimit names: api-keys, two-factor and notifications routers).
const ACCOUNT_LIMITS = ['apikey-regenerate', 'two-factor', 'notifications-test', '2fa-login', 'password-change'] as const;

/**
 * The Redis keys that hold an erased account's data, under QUEUE_PREFIX `prefix`. Each is named as its writer names
 * it: the per-account request counters (middleware/authenticate.ts, one per per-minute cap), the per-account limits
 * (middleware/tight-limit.ts, routes/session/sign-in.service.ts), the notifier's lease, wake flag, digest and retrying flag of each channel
 * (apps/notifier/src/delivery/drain-lease.ts) and the engagement poller's reply cursor of each erased post
 * (apps/engagement-poller/src/samples/reply-cursors.ts).
 */
export function erasedAccountKeys(prefix: string, erased: ErasedAccount): string[] {
  return [
    ...erased.rateLimits.map((points) => `${prefix}:rl:account:${points}:${erased.accountId}`),
    ...ACCOUNT_LIMITS.map((name) => `${prefix}:rl:${name}:${erased.accountId}`),
    // Failed sign-ins count under a hash of the email (routes/session/sign-in.service.ts).
    `${prefix}:rl:signin-email:${emailLimitKey(erased.email)}`,
    `${prefix}:rl:reset-email:${emailLimitKey(erased.email)}`,
    ...erased.channelIds.flatMap((channelId) => ['lease', 'woken', 'digest', 'retrying'].map((part) => `${prefix}:notifier:${part}:{${channelId}}`)),
    ...erased.postIds.map((postId) => `${prefix}:engagement:reply-cursor:${postId}`),
  ];
}

// Keys unlinked at once: on a Redis Cluster one UNLINK may only name keys of one slot, so each key gets its own
// (sent together, they cost one round trip per batch on an auto-pipelining connection).
const UNLINK_BATCH = 500;

/**
 * Removes what Redis holds of an erased account: the keys above, and its field of the engagement poller's
 * account fingerprints (apps/engagement-poller/src/discovery/mark-changed-accounts.ts), which nothing else
 * would ever remove.
 */
export async function eraseAccountKeys(redis: RedisClient, prefix: string, erased: ErasedAccount): Promise<void> {
  const keys = erasedAccountKeys(prefix, erased);
  for (let start = 0; start < keys.length; start += UNLINK_BATCH) {
    await Promise.all(keys.slice(start, start + UNLINK_BATCH).map((key) => redis.unlink(key)));
  }
  await redis.hdel(`${prefix}:engagement:account-fingerprints`, erased.accountId);
}
