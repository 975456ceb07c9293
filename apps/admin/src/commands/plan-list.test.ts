import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('plan:list', () => {
  const env = useTestEnvironment();
  const run = (...argv: string[]) => runCommand(argv, { prisma: env.database.db.prisma, now: () => new Date() });

  it('prints the seeded plans in snake_case, smallest first', async () => {
    expect(await run('plan:list')).toEqual({
      data: [
        {
          id: 'starter',
          name: 'Starter',
          hashtags_limit: 3,
          accounts_limit: 2,
          engagement_limit: 3,
          webhooks_limit: 1,
          alerts_limit: 1000,
          scan_interval_seconds: 60,
          engagement_refresh_seconds: 300,
          rate_limit_per_minute: 60,
          retention_days: 90,
        },
        expect.objectContaining({ id: 'pro', hashtags_limit: 15, scan_interval_seconds: 30, engagement_refresh_seconds: 180, rate_limit_per_minute: 180, retention_days: 90 }),
        expect.objectContaining({ id: 'business', hashtags_limit: 40, scan_interval_seconds: 10, engagement_refresh_seconds: 60, rate_limit_per_minute: 600, retention_days: 90 }),
      ],
    });
  });
});
