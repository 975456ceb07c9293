// Child process of bench/notifier-delivery.ts: one notifier replica in its own process, as production runs it
// (a separate app with its own event loop, database pool and Redis connections, composed as src/main.ts does).
// Over IPC, a notifier started and stopped per phase in the one process:
//   -> {loaded: true}   <- {start: options}   -> {started: true}   <- {stop: true}   -> {stopped: true}   <- {exit: true}
// The parent times from {start} on: loading this file (tsx compiling the workspace) is not the notifier's work.
// Run with --cpu-prof (NOTIFIER_BENCH_PROFILE in the parent) to profile the notifier.
import { once } from 'node:events';
import type pg from 'pg';
import { createSender } from '@hashwatch/channels';
import { createDatabase } from '@hashwatch/db';
import { createLogger } from '@hashwatch/logger';
import { startNotifier, type NotifierOptions } from '@hashwatch/notifier';
import { createQueues, createRedisConnection } from '@hashwatch/queues';
import { createCipher } from '@hashwatch/secrets';
import { childEnv as env } from './child-env';

/** A notifier replica with connections of its own, as src/main.ts composes one; `stop` closes all it opened. */
async function startReplica(pool: pg.Pool, options: Partial<NotifierOptions>): Promise<{ stop(): Promise<void> }> {
  const workerConnection = createRedisConnection(env('REDIS_URL'), { role: 'worker' });
  const redis = createRedisConnection(env('REDIS_URL'), { role: 'producer' });
  if (redis.status !== 'ready') await once(redis, 'ready');
  const queues = createQueues({ connection: redis, prefix: env('QUEUE_PREFIX') });
  // The sink is on loopback; no Telegram channel is stored, so the Bot API address is never called.
  const sender = createSender({ allowPrivateNetworks: true, timeoutMs: options.sendTimeoutMs ?? 10_000 });
  const notifier = await startNotifier({
    pool,
    workerConnection,
    redis,
    queues,
    cipher: createCipher(env('SECRETS_KEY')),
    sender,
    logger: createLogger('notifier-bench', { level: process.env.LOG_LEVEL ?? 'error' }),
    telegramBaseUrl: 'http://127.0.0.1:9',
    options,
  });
  return {
    async stop() {
      await notifier.close();
      await queues.close();
      sender.close();
      workerConnection.disconnect();
      redis.disconnect();
    },
  };
}

async function main(): Promise<void> {
  // The pool main.ts gives the notifier.
  const db = createDatabase(env('DATABASE_URL'), { max: 20, applicationName: 'hashwatch-notifier' });
  let replica: { stop(): Promise<void> } | undefined;
  const stop = async () => {
    await replica?.stop();
    replica = undefined;
  };
  process.on('message', (message: { start?: Partial<NotifierOptions>; stop?: boolean; exit?: boolean }) => {
    if (message.start) {
      void startReplica(db.pool, message.start).then((started) => {
        replica = started;
        process.send?.({ started: true });
      });
    }
    if (message.stop) void stop().then(() => process.send?.({ stopped: true }));
    if (message.exit) {
      void (async () => {
        await stop();
        await db.close();
        process.exit(0);
      })();
    }
  });
  process.send?.({ loaded: true });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
