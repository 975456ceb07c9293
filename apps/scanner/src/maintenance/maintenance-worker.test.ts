import { createAccount } from '@hashwatch/accounts';
import { createRedisConnection, listSchedulers } from '@hashwatch/queues';
import { useTestQueues } from '@hashwatch/queues/testing';
import { captureLogger, useTestEnvironment, waitFor } from '@hashwatch/testing';
import { seedItem } from '../test-support/retention-seed';
import { ensureSweepScheduler, startMaintenanceWorker, SWEEP_SCHEDULER_ID } from './maintenance-worker';

describe('maintenance worker', () => {
  const env = useTestEnvironment();
  const testQueues = useTestQueues(env);

  it('keeps one sweep scheduler whatever the number of replicas starting, runs it and logs its counts as JSON', async () => {
    const pool = env.database.db.pool;
    const { accountId } = await createAccount(env.database.db.prisma, { email: 'sweep@example.com', planId: 'starter' });
    const expired = await seedItem(pool, new Date(), { userId: accountId, postId: '901', ageDays: 100 });
    const kept = await seedItem(pool, new Date(), { userId: accountId, postId: '902', ageDays: 1 });

    // Three replicas start at once, then one restarts.
    await Promise.all([1, 2, 3].map(() => ensureSweepScheduler(testQueues.queues)));
    await ensureSweepScheduler(testQueues.queues);
    const schedulers = await listSchedulers(testQueues.queues, 'maintenance');
    expect(schedulers.map((scheduler) => [scheduler.id, scheduler.jobName, scheduler.everyMs])).toEqual([[SWEEP_SCHEDULER_ID, 'sweep-retention', 600_000]]);

    const connection = createRedisConnection(env.redisTarget, { role: 'worker' });
    const { logger, lines } = captureLogger('scanner');
    const worker = startMaintenanceWorker({ pool, connection, prefix: env.queuePrefix, logger, limits: { pauseMs: 0 } });
    try {
      // The scheduler's first run is due at once.
      await waitFor(() => lines.some((line) => line.message === 'retention swept'), 20_000, 'the first sweep');
      expect(lines.find((line) => line.message === 'retention swept')).toMatchObject({ queue: 'maintenance', items: 1, posts: 1, pendingAccounts: 0 });
      const { rows } = await pool.query<{ id: string }>('SELECT id FROM feed_items ORDER BY id');
      expect(rows.map((row) => row.id)).toEqual([kept]);
      expect(rows.some((row) => row.id === expired)).toBe(false);
    } finally {
      await worker.close();
      connection.disconnect();
      await testQueues.queues.byName.maintenance.removeJobScheduler(SWEEP_SCHEDULER_ID);
    }
  });
});
