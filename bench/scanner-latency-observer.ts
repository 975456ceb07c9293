// Child process of bench/scanner-latency.ts: watches from outside the scanner process, as clients do. It runs
// the `since` query of GET /v1/posts in a loop (across accounts, or OBSERVE_USER's feed only) and listens to alert-routing's events, and
// notes when each feed item became visible and when the alert job carrying it was added (a route-alerts job
// carries up to 500 items: each of them counts as enqueued when that job was). Over IPC:
//   -> {ready: true}   <- {stop: true}   -> {visible: [id, ms, x post id][], enqueued: [id, ms][]}
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, QueueEvents } from 'bullmq';
import { createDatabase } from '@hashwatch/db';
import { createRedisConnection, queueKeyPrefix, routeAlertItems } from '@hashwatch/queues';
import { childEnv as env } from './child-env';

// Every 5 ms: fine enough to time items to a few ms, without the observer itself loading the 2 CPUs (a
// client polling in a tight loop costs the database as much as the scanner does).
const POLL_MS = 5;

type Row = { id: string; x_post_id: string; detected_at: Date };

async function main(): Promise<void> {
  const observed = process.env.OBSERVE_USER;
  const db = createDatabase(env('DATABASE_URL'), { max: 2, applicationName: 'bench-observer' });
  const connection = createRedisConnection(env('REDIS_URL'), { role: 'worker' });
  const producer = createRedisConnection(env('REDIS_URL'), { role: 'producer' });
  const prefix = queueKeyPrefix(env('QUEUE_PREFIX'), 'alert-routing');
  const events = new QueueEvents('alert-routing', { connection, prefix });
  const queue = new Queue('alert-routing', { connection: producer, prefix });
  const visible = new Map<string, [number, string]>();
  const enqueued = new Map<string, number>();
  // The event carries the job id only: the items are read from the job afterwards, timed at the event.
  const reads: Promise<void>[] = [];
  events.on('waiting', ({ jobId }) => {
    const at = Date.now();
    reads.push(
      queue.getJob(jobId).then((job) => {
        for (const item of job ? routeAlertItems(job) : []) if (!enqueued.has(item.feedItemId)) enqueued.set(item.feedItemId, at);
      }),
    );
  });
  await events.waitUntilReady();
  let running = true;
  process.on('message', (message: { stop?: boolean }) => {
    if (message.stop) running = false;
  });
  process.send?.({ ready: true });
  let since = new Date(0);
  while (running) {
    // OBSERVE_USER: one account's feed, through its index, as GET /v1/posts?since reads it (the busy workload: a scan
    // of every account's items every 5 ms took a CPU of PostgreSQL from the scanner under test).
    const { rows } = observed
      ? await db.pool.query<Row>('SELECT id, x_post_id, detected_at FROM feed_items WHERE user_id = $2 AND detected_at > $1 ORDER BY detected_at, id', [since, observed])
      : await db.pool.query<Row>('SELECT id, x_post_id, detected_at FROM feed_items WHERE detected_at > $1 ORDER BY detected_at, id', [since]);
    const now = Date.now();
    for (const row of rows) if (!visible.has(row.id)) visible.set(row.id, [now, row.x_post_id]);
    const last = rows.at(-1);
    if (last) since = last.detected_at;
    await sleep(POLL_MS);
  }
  await Promise.all(reads);
  process.send?.({ visible: [...visible].map(([id, [at, postId]]) => [id, at, postId]), enqueued: [...enqueued] }, () => {
    void Promise.all([events.close(), queue.close()]).then(async () => {
      connection.disconnect();
      producer.disconnect();
      await db.close();
      process.exit(0);
    });
  });
}

void main();
