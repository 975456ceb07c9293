import { z } from 'zod';

/** Every queue in Hashwatch. A name here without a catalog entry, or an entry without a name, fails to compile. */
export const queueNames = [
  'source-scans',
  'alert-routing',
  'alert-deliveries',
  'engagement-refreshes',
  'outbox-relay',
  'maintenance',
] as const;

export type QueueName = (typeof queueNames)[number];

/** One job: its payload schema and its retry policy. */
export interface JobDefinition {
  readonly payload: z.ZodType;
  /** Tries before the job fails for good. */
  readonly attempts: number;
  /** First retry delay; BullMQ doubles it on every further retry. */
  readonly backoffMs: number;
}

// Ids are matched by shape only, and never allow ':' (BullMQ's key separator).
const prefixedId = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,64}$`), `must be a ${prefix}_ id`);
const anyId = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'must be an id of letters, digits, - or _');
const intervalSeconds = z.int().min(1).max(86_400);
const routeAlertItem = z.strictObject({ feedItemId: prefixedId('post'), userId: prefixedId('usr') });

/** Feed items one route-alerts job carries at most: the notifier routes them all in one statement pair. */
export const ROUTE_ALERTS_MAX_ITEMS = 500;

/**
 * The one declaration of every queue (a noun) and its jobs (verbs). Producers and consumers infer payload
 * types from it. Payloads are strict objects of ids, so a row or a secret cannot ride along by accident.
 */
export const queueCatalog = {
  'source-scans': {
    // One scheduler per distinct scan interval; a run scans every source whose account has that cadence.
    // A failed tick is not retried: the next tick is at most one interval away.
    'scan-sources': { payload: z.strictObject({ intervalSeconds }), attempts: 1, backoffMs: 1_000 },
    // Written to the outbox with a cadence change (plan:set, a plan switch, a resync): brings the schedulers in
    // line at once instead of after the next tick of a cadence that may be much slower than the new one.
    'reconcile-schedulers': { payload: z.strictObject({}), attempts: 3, backoffMs: 1_000 },
  },
  'alert-routing': {
    // What feed writers emit: the items one transaction stored, in jobs of up to 500 items, each job's id derived
    // from its items (routeAlertsJobId). One job, not one per item: BullMQ's per-add script costs about the same
    // either way. The outbox still weighs a job by its items when it caps a relay run (payload size, routing work).
    'route-alerts': {
      payload: z.strictObject({ items: z.array(routeAlertItem).min(1).max(ROUTE_ALERTS_MAX_ITEMS) }),
      attempts: 8,
      backoffMs: 2_000,
    },
  },
  'alert-deliveries': {
    // Written by the gateway's POST /notifications/deliveries/{id}/retry (job id deliver-<id>-retry-<outbox row>):
    // the notifier wakes that delivery's channel, whose drain sends it. The retry policy dates from when this job
    // sent the delivery itself (10 s doubling 14 times: ~45 h, past the 24 h delivery retry window).
    'deliver-alert': { payload: z.strictObject({ deliveryId: anyId }), attempts: 15, backoffMs: 10_000 },
    // The notifier's per-channel drain: sends the channel's due deliveries in detection order, paced. Retries
    // and backoff of deliveries live in the deliveries table; this job only needs a few tries for a DB hiccup.
    'drain-channel': { payload: z.strictObject({ channelId: anyId }), attempts: 3, backoffMs: 1_000 },
    // Written by @hashwatch/notices with a notice's opening or resolution (job id notice-<id>-<state>): the
    // notifier sends that message to each of the account's channels that takes notices, never to the channel the
    // notice is about. Retried like a wake-up: the sends themselves keep their own state per channel.
    'deliver-notice': {
      payload: z.strictObject({ noticeId: prefixedId('ntc'), state: z.enum(['open', 'resolved']) }),
      attempts: 8,
      backoffMs: 2_000,
    },
  },
  'engagement-refreshes': {
    // One scheduler per engagement cadence (60 s, 180 s, 300 s by default).
    'refresh-engagement': { payload: z.strictObject({ intervalSeconds }), attempts: 1, backoffMs: 1_000 },
    'sample-engagement': { payload: z.strictObject({ xPostId: anyId }), attempts: 3, backoffMs: 5_000 },
    // As on source-scans: the cadence-change signal (CADENCE_CHANGE_JOB).
    'reconcile-schedulers': { payload: z.strictObject({}), attempts: 3, backoffMs: 1_000 },
  },
  'outbox-relay': {
    // A scheduler that moves outbox_jobs rows into their queues; the next tick picks up what one missed.
    'relay-outbox': { payload: z.strictObject({}), attempts: 1, backoffMs: 1_000 },
  },
  maintenance: {
    // One scheduler (id `sweep-retention`, every 10 minutes, first run at once) consumed by the scanner: deletes
    // expired feed items, orphan posts and unpaid checkouts in bounded runs. Not retried: the next run resumes.
    'sweep-retention': { payload: z.strictObject({}), attempts: 1, backoffMs: 1_000 },
    // One scheduler (id `check-compliance`, every 15 minutes) consumed by the scanner: one step of X's batch
    // compliance (upload a job's ids, apply its results, or open the next job). Not retried: the next run resumes.
    'check-compliance': { payload: z.strictObject({}), attempts: 1, backoffMs: 1_000 },
  },
} satisfies { readonly [Q in QueueName]: Readonly<Record<string, JobDefinition>> };

type Catalog = typeof queueCatalog;

/** The job names of one queue. */
export type JobName<Q extends QueueName> = keyof Catalog[Q] & string;

/** What a producer passes for one job (zod input type). */
export type JobPayload<Q extends QueueName, J extends JobName<Q>> =
  Catalog[Q][J] extends { payload: infer S extends z.ZodType } ? z.input<S> : never;

/** What a handler receives for one job, after parsing (zod output type). */
export type ParsedJobPayload<Q extends QueueName, J extends JobName<Q>> =
  Catalog[Q][J] extends { payload: infer S extends z.ZodType } ? z.output<S> : never;

/** Any payload of one queue: the data type of its BullMQ Queue and Worker. */
export type QueueJobData<Q extends QueueName> = { [J in JobName<Q>]: JobPayload<Q, J> }[JobName<Q>];

export function isQueueName(value: string): value is QueueName {
  return (queueNames as readonly string[]).includes(value);
}

/** The definition of `jobName` on `queueName`, or undefined when the catalog has no such job. */
export function findJobDefinition(queueName: string, jobName: string): JobDefinition | undefined {
  if (!isQueueName(queueName)) return undefined;
  const jobs: Readonly<Record<string, JobDefinition>> = queueCatalog[queueName];
  // hasOwn: a job named "constructor" or "toString" must not find Object.prototype members.
  return Object.hasOwn(jobs, jobName) ? jobs[jobName] : undefined;
}
