import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('account:plan', () => {
  const env = useTestEnvironment();
  const run = (...argv: string[]) => runCommand(argv, { prisma: env.database.db.prisma, now: () => new Date() });

  it("switches the plan and prints the account's new limits, which apply at once", async () => {
    const { account_id } = await run('account:create', '--email', 'up@example.com', '--plan', 'starter');
    const output = await run('account:plan', '--account', String(account_id), '--plan', 'business');
    expect(output).toEqual({
      account_id,
      plan: 'business',
      hashtags_limit: 40,
      accounts_limit: 25,
      engagement_limit: 25,
      webhooks_limit: 10,
      alerts_limit: 75000,
      scan_interval_seconds: 10,
      engagement_refresh_seconds: 60,
      rate_limit_per_minute: 600,
    });
    const user = await env.database.db.prisma.user.findUniqueOrThrow({ where: { id: String(account_id) } });
    expect(user).toMatchObject({ planId: 'business', hashtagsLimit: 40, rateLimitPerMinute: 600, scanIntervalSeconds: 10 });
  });

  it("takes the plan's current config, including values changed by plan:set", async () => {
    const { account_id } = await run('account:create', '--email', 'custom@example.com', '--plan', 'starter');
    await run('plan:set', '--plan', 'pro', '--hashtags', '50', '--scan-interval', '5');
    const output = await run('account:plan', '--account', String(account_id), '--plan', 'pro');
    expect(output).toMatchObject({ plan: 'pro', hashtags_limit: 50, scan_interval_seconds: 5 });
  });

  it('answers not_found for an unknown account and changes nothing', async () => {
    await expect(run('account:plan', '--account', 'usr_missing', '--plan', 'pro')).rejects.toMatchObject({
      code: 'not_found',
      message: 'account usr_missing not found',
    });
  });
});
