// Child process of bench/notifier-delivery.ts: one notifier replica in its own process, as production runs it
// (a separate app with its own event loop, database pool and Redis connections, composed as src/main.ts does).
// Over IPC, a notifier started and stopped per phase in the one process:
//   -> {loaded: true}   <- {start: options}   -> {started: true}   <- {stop: true}   -> {stopped: true}   <- {exit: true}
// The parent times from {start} on: loading this file (tsx compiling the workspace) is not the notifier's work.
// Run with --cpu-prof (NOTIFIER_BENCH_PROFILE in the parent) to profile the notifier.
import { createDatabase } from '@hashwatch/db';
import { startTestNotifier, type NotifierHandle } from '../apps/notifier/src/test-support/notifier-fixture';
import type { NotifierOptions } from '../apps/notifier/src/notifier-options';
import { childEnv as env } from './child-env';

async function main(): Promise<void> {
  // The pool main.ts gives the notifier.
  const db = createDatabase(env('DATABASE_URL'), { max: 20, applicationName: 'hashwatch-notifier' });
  let handle: NotifierHandle | undefined;
  const stop = async () => {
    await handle?.stop();
    handle = undefined;
  };
  process.on('message', (message: { start?: Partial<NotifierOptions>; stop?: boolean; exit?: boolean }) => {
    if (message.start) {
      const options = message.start;
      void startTestNotifier(db.pool, { redisUrl: env('REDIS_URL'), prefix: env('QUEUE_PREFIX'), secretsKey: env('SECRETS_KEY'), notifier: options }).then((started) => {
        handle = started;
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
