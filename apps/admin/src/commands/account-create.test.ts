import { authenticateApiKey } from '@hashwatch/accounts';
import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('account:create', () => {
  const env = useTestEnvironment();
  const now = new Date('2026-11-01T12:00:00.000Z');
  const run = (...argv: string[]) => runCommand(argv, { prisma: env.database.db.prisma, now: () => now });

  it('creates an account on the plan with a 30-day active subscription and prints a working API key', async () => {
    const output = await run('account:create', '--email', 'Ann@Example.com', '--plan', 'pro');
    expect(Object.keys(output).sort()).toEqual(['account_id', 'api_key']);
    const accountId = output.account_id as string;
    expect(accountId).toMatch(/^usr_/);
    expect(await authenticateApiKey(env.database.db.prisma, output.api_key as string)).toMatchObject({ userId: accountId });
    const user = await env.database.db.prisma.user.findUniqueOrThrow({ where: { id: accountId } });
    expect(user).toMatchObject({ email: 'ann@example.com', planId: 'pro', hashtagsLimit: 15, subscriptionStatus: 'active' });
    expect(user.currentPeriodEnd.toISOString()).toBe('2026-12-01T12:00:00.000Z');
  });

  it('answers already_exists when the email is taken, whatever its case', async () => {
    await run('account:create', '--email', 'taken@example.com', '--plan', 'starter');
    await expect(run('account:create', '--email', 'TAKEN@example.com', '--plan', 'business')).rejects.toMatchObject({
      code: 'already_exists',
      message: 'an account with email taken@example.com already exists',
    });
  });
});
