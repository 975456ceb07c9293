import { subscriptionProblem } from '@hashwatch/accounts';
import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('account:subscription', () => {
  const env = useTestEnvironment();
  const now = new Date('2026-11-22T00:00:00.000Z');
  const run = (...argv: string[]) => runCommand(argv, { prisma: env.database.db.prisma, now: () => now });
  const account = async (email: string) => String((await run('account:create', '--email', email, '--plan', 'pro')).account_id);

  it('sets the status and keeps the period end when --period-end is absent', async () => {
    const accountId = await account('due@example.com');
    expect(await run('account:subscription', '--account', accountId, '--status', 'past_due')).toEqual({
      account_id: accountId,
      status: 'past_due',
      current_period_end: '2026-12-22T00:00:00.000Z',
    });
    const user = await env.database.db.prisma.user.findUniqueOrThrow({ where: { id: accountId } });
    expect(subscriptionProblem(user, now)).toMatch(/past due/);
  });

  it('sets the period end from any ISO 8601 date-time with a zone, printed in UTC', async () => {
    const accountId = await account('renew@example.com');
    const output = await run('account:subscription', '--account', accountId, '--status', 'active', '--period-end', '2027-01-01T02:00:00+02:00');
    expect(output).toEqual({ account_id: accountId, status: 'active', current_period_end: '2027-01-01T00:00:00.000Z' });
  });

  it('accepts a period end in the past, which makes the subscription expired', async () => {
    const accountId = await account('expired@example.com');
    await run('account:subscription', '--account', accountId, '--status', 'active', '--period-end', '2026-11-01T00:00:00Z');
    const user = await env.database.db.prisma.user.findUniqueOrThrow({ where: { id: accountId } });
    expect(subscriptionProblem(user, now)).toBe('the subscription expired on 2026-11-01T00:00:00.000Z');
  });

  it('answers invalid_request for a period end without a zone or an unknown status', async () => {
    const accountId = await account('bad@example.com');
    await expect(run('account:subscription', '--account', accountId, '--status', 'active', '--period-end', '2027-01-01T00:00:00')).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^--period-end must be an ISO 8601 date-time with a zone/),
    });
    await expect(run('account:subscription', '--account', accountId, '--status', 'paused')).rejects.toMatchObject({
      code: 'invalid_request',
      message: '--status must be one of active, past_due, canceled',
    });
  });

  it('answers not_found for an unknown account', async () => {
    await expect(run('account:subscription', '--account', 'usr_missing', '--status', 'canceled')).rejects.toMatchObject({
      code: 'not_found',
      message: 'account usr_missing not found',
    });
  });
});
