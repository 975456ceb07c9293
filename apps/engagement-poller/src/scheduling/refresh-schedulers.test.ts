import { createAccount } from '@hashwatch/accounts';
import { listSchedulers, upsertScheduler, type Queues } from '@hashwatch/queues';
import { useTestQueues } from '@hashwatch/queues/testing';
import { useTestEnvironment } from '@hashwatch/testing';
import { reconcileRefreshSchedulers } from './refresh-schedulers';

describe('reconcileRefreshSchedulers', () => {
  const env = useTestEnvironment();
  let queues: Queues;

  const testQueues = useTestQueues(env);
  beforeAll(() => {
    ({ queues } = testQueues);
  });

  const ids = async () => (await listSchedulers(queues, 'engagement-refreshes')).map((s) => `${s.id} ${s.everyMs}`).sort();

  it('keeps one scheduler per cadence of the plans and accounts, and removes the ones no longer used', async () => {
    const { accountId } = await createAccount(env.database.db.prisma, { email: 'fast@example.com', planId: 'business' });
    await env.database.db.pool.query('UPDATE users SET engagement_refresh_seconds = 5 WHERE id = $1', [accountId]);
    await upsertScheduler(queues, 'engagement-refreshes', 'refresh-engagement', { intervalSeconds: 7 }, { schedulerId: 'refresh-engagement-every-7s', everyMs: 7000 });

    expect(await reconcileRefreshSchedulers(env.database.db.pool, queues)).toEqual({ added: [5, 60, 180, 300], removed: [7] });
    expect(await ids()).toEqual([
      'refresh-engagement-every-180s 180000',
      'refresh-engagement-every-300s 300000',
      'refresh-engagement-every-5s 5000',
      'refresh-engagement-every-60s 60000',
    ]);
    expect(await reconcileRefreshSchedulers(env.database.db.pool, queues)).toEqual({ added: [], removed: [] });
  });
});
