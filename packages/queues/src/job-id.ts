import { createHash } from 'node:crypto';

/** A custom job or scheduler id BullMQ would refuse. */
export class JobIdError extends Error {
  constructor(readonly jobId: string) {
    super(`job id ${JSON.stringify(jobId)} must be non-empty, not only digits, and without ':'`);
    this.name = 'JobIdError';
  }
}

// Percent-encoding keeps ids injective: "a:b" and "a_b" stay different ids.
function encodePart(part: string | number): string {
  return String(part).replace(/%/g, '%25').replace(/:/g, '%3A');
}

/**
 * Throws {@link JobIdError} unless BullMQ accepts `id` as a custom job id: it treats ':' as its key
 * separator and refuses ids made only of digits.
 */
export function assertJobId(id: string): string {
  if (id === '' || id.includes(':') || /^\d+$/.test(id)) throw new JobIdError(id);
  return id;
}

/**
 * A deterministic job id (the idempotency key) from its parts, joined with '-'. Any ':' inside a part
 * is encoded, so the id is always one BullMQ accepts. Start with a verb so it is never only digits.
 */
export function jobId(first: string, ...rest: (string | number)[]): string {
  return assertJobId([first, ...rest].map(encodePart).join('-'));
}

/**
 * `routes-<first feedItemId>-<n>-<digest>`: the routing job of a batch of `n` feed items, the digest (128 bits of
 * SHA-256) over every item and user in order. It depends on the items alone, so adding the same batch again (a
 * relay retried after a crash, the backstop relaying a row the writer relays too) adds nothing.
 */
export function routeAlertsJobId(items: readonly { feedItemId: string; userId: string }[]): string {
  const first = items[0];
  if (!first) throw new RangeError('a route-alerts job carries at least one item');
  const digest = createHash('sha256')
    .update(items.map((item) => `${item.feedItemId} ${item.userId}`).join('\n'))
    .digest('hex')
    .slice(0, 32);
  return jobId('routes', first.feedItemId, items.length, digest);
}

/** `<jobName>-every-<n>s`: the scheduler of one cadence, so each distinct interval has exactly one. */
export function cadenceSchedulerId(jobName: string, intervalSeconds: number): string {
  return jobId(jobName, 'every', `${intervalSeconds}s`);
}
