import { AppError } from '@hashwatch/errors';
import { useTestEnvironment } from '@hashwatch/testing';
import { createAccount, findAccountByEmail } from './accounts';
import { eraseAccount } from './erasure';
import { authenticateApiKey, issueApiKey } from './api-keys';
import { setSubscription, subscriptionProblem } from './subscriptions';

describe('accounts', () => {
  const env = useTestEnvironment();
  const prisma = () => env.database.db.prisma;

  it('creates an account with the plan snapshot, a 30-day active subscription and a hashed key', async () => {
    const now = new Date('2026-11-01T00:00:00Z');
    const { accountId, apiKey } = await createAccount(prisma(), { email: 'Ann@Example.com', planId: 'pro', now });
    expect(accountId).toMatch(/^usr_/);
    const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId }, include: { apiKeys: true } });
    expect(user).toMatchObject({ email: 'ann@example.com', planId: 'pro', hashtagsLimit: 15, subscriptionStatus: 'active' });
    expect(user.currentPeriodEnd.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(user.apiKeys).toHaveLength(1);
    expect(Buffer.from(user.apiKeys[0]!.keyHash).toString('utf8')).not.toContain(apiKey);
    expect(await authenticateApiKey(prisma(), apiKey)).toMatchObject({ userId: accountId });
    expect(await findAccountByEmail(prisma(), 'ANN@example.com')).toBe(accountId);
  });

  it('answers already_exists for a second account with the same email', async () => {
    await createAccount(prisma(), { email: 'dup@example.com', planId: 'starter' });
    await expect(createAccount(prisma(), { email: 'DUP@example.com', planId: 'starter' })).rejects.toMatchObject({ code: 'already_exists' });
  });

  it('refuses an unknown plan', async () => {
    await expect(createAccount(prisma(), { email: 'x@example.com', planId: 'gold' as never })).rejects.toBeInstanceOf(AppError);
  });

  it('revokes the old key when a new one is issued', async () => {
    const { accountId, apiKey } = await createAccount(prisma(), { email: 'keys@example.com', planId: 'starter' });
    const fresh = await issueApiKey(prisma(), accountId);
    expect(await authenticateApiKey(prisma(), apiKey)).toBeNull();
    expect(await authenticateApiKey(prisma(), fresh)).toMatchObject({ userId: accountId });
    expect(await authenticateApiKey(prisma(), 'hw_live_unknown')).toBeNull();
  });

  it('deletes the account and its keys', async () => {
    const { accountId, apiKey } = await createAccount(prisma(), { email: 'gone@example.com', planId: 'starter' });
    expect(await eraseAccount(env.database.db.pool, accountId)).toMatchObject({ accountId, email: 'gone@example.com' });
    expect(await authenticateApiKey(prisma(), apiKey)).toBeNull();
    expect(await eraseAccount(env.database.db.pool, accountId)).toBeNull();
  });
});

describe('subscriptions', () => {
  const env = useTestEnvironment();

  it('says why an account is inactive', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    const future = new Date('2026-12-01T00:00:00Z');
    expect(subscriptionProblem({ subscriptionStatus: 'active', currentPeriodEnd: future }, now)).toBeNull();
    expect(subscriptionProblem({ subscriptionStatus: 'canceled', currentPeriodEnd: future }, now)).toMatch(/canceled/);
    expect(subscriptionProblem({ subscriptionStatus: 'past_due', currentPeriodEnd: future }, now)).toMatch(/past due/);
    expect(subscriptionProblem({ subscriptionStatus: 'active', currentPeriodEnd: new Date('2026-11-01T00:00:00Z') }, now)).toBe(
      'the subscription expired on 2026-11-01T00:00:00.000Z',
    );
  });

  it('sets status and period end, and reports a missing account', async () => {
    const { accountId } = await createAccount(env.database.db.prisma, { email: 'sub@example.com', planId: 'starter' });
    const end = new Date('2030-01-01T00:00:00Z');
    expect(await setSubscription(env.database.db.prisma, accountId, { status: 'past_due', periodEnd: end })).toBe(true);
    const user = await env.database.db.prisma.user.findUniqueOrThrow({ where: { id: accountId } });
    expect(user).toMatchObject({ subscriptionStatus: 'past_due', currentPeriodEnd: end });
    expect(await setSubscription(env.database.db.prisma, 'usr_missing', { status: 'active' })).toBe(false);
  });

  it('activates a pending checkout without a period end for 30 days from now, and completes its checkout', async () => {
    const created = new Date('2026-11-01T00:00:00Z');
    const { accountId } = await createAccount(env.database.db.prisma, { email: 'pending@example.com', planId: 'starter', now: created });
    await env.database.db.pool.query(`UPDATE users SET subscription_status = 'pending', current_period_end = current_period_start WHERE id = $1`, [accountId]);
    await env.database.db.prisma.checkout.create({ data: { id: 'chk_1', userId: accountId, planId: 'starter', provider: 'manual', url: 'http://localhost:3000/checkout/chk_1' } });
    const now = new Date('2026-11-26T12:00:00Z');
    await setSubscription(env.database.db.prisma, accountId, { status: 'active', now });
    expect(await env.database.db.prisma.user.findUniqueOrThrow({ where: { id: accountId } })).toMatchObject({
      subscriptionStatus: 'active',
      currentPeriodStart: now,
      currentPeriodEnd: new Date('2026-12-26T12:00:00Z'),
    });
    expect((await env.database.db.prisma.checkout.findUniqueOrThrow({ where: { id: 'chk_1' } })).completedAt).toEqual(now);
    // A running period is kept when only the status changes.
    await setSubscription(env.database.db.prisma, accountId, { status: 'past_due', now });
    await setSubscription(env.database.db.prisma, accountId, { status: 'active', now: new Date('2026-12-01T00:00:00Z') });
    expect((await env.database.db.prisma.user.findUniqueOrThrow({ where: { id: accountId } })).currentPeriodEnd).toEqual(new Date('2026-12-26T12:00:00Z'));
  });
});
