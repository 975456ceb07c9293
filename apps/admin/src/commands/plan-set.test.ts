import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('plan:set', () => {
  const env = useTestEnvironment();
  const run = (...argv: string[]) => runCommand(argv, { prisma: env.database.db.prisma, now: () => new Date() });

  it('changes only the values given and prints the whole plan', async () => {
    const output = await run(
      'plan:set', '--plan', 'starter',
      '--hashtags', '5', '--accounts', '4', '--engagement', '6', '--webhooks', '2', '--alerts', '0',
      '--scan-interval', '1', '--engagement-interval', '2', '--rate-limit', '120', '--retention-days', '400',
    );
    expect(output).toEqual({
      plan: {
        id: 'starter',
        name: 'Starter',
        hashtags_limit: 5,
        accounts_limit: 4,
        engagement_limit: 6,
        webhooks_limit: 2,
        alerts_limit: 0,
        scan_interval_seconds: 1,
        engagement_refresh_seconds: 2,
        rate_limit_per_minute: 120,
        retention_days: 400,
      },
    });
    const again = await run('plan:set', '--plan', 'starter', '--hashtags', '7');
    expect(again.plan).toMatchObject({ hashtags_limit: 7, accounts_limit: 4, scan_interval_seconds: 1 });
    expect((await run('plan:list')).data).toContainEqual(again.plan);
  });

  it("leaves existing accounts' limits alone", async () => {
    const { account_id } = await run('account:create', '--email', 'kept@example.com', '--plan', 'business');
    await run('plan:set', '--plan', 'business', '--hashtags', '99');
    const user = await env.database.db.prisma.user.findUniqueOrThrow({ where: { id: String(account_id) } });
    expect(user.hashtagsLimit).toBe(40);
  });

  it.each([
    [['--hashtags', 'ten'], '--hashtags must be a non-negative integer'],
    [['--hashtags=-1'], '--hashtags must be a non-negative integer'],
    [['--alerts', '2.5'], '--alerts must be a non-negative integer'],
    [['--scan-interval', '0'], '--scan-interval must be at least 1'],
    [['--engagement-interval', '0'], '--engagement-interval must be at least 1'],
    [['--rate-limit', '0'], '--rate-limit must be at least 1'],
    [['--webhooks', '99999999999'], '--webhooks must be at most 1000000000'],
    [['--retention-days', '30'], '--retention-days must be at least 31'],
    [['--retention-days', '3651'], '--retention-days must be at most 3650'],
    [['--retention-days', 'forever'], '--retention-days must be a non-negative integer'],
    [['--hashtags', '20', '--retention-days', '7'], '--retention-days must be at least 31'],
  ])('answers invalid_request naming the flag for %j', async (flags, message) => {
    await expect(run('plan:set', '--plan', 'pro', ...flags)).rejects.toMatchObject({ code: 'invalid_request', message });
    expect((await run('plan:list')).data).toContainEqual(expect.objectContaining({ id: 'pro', hashtags_limit: 15, alerts_limit: 25000, retention_days: 90 }));
  });

  it('answers invalid_request when no value to change is given', async () => {
    await expect(run('plan:set', '--plan', 'pro')).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^plan:set needs at least one of --hashtags, --accounts/),
    });
  });
});
