import { setSubscription } from '@hashwatch/accounts';
import { switchPlan, updatePlan } from '@hashwatch/plans';
import { codeAt, request, useGateway } from '../../test-support/gateway-harness';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('/me', () => {
  const gw = useGateway();
  const prisma = () => gw.env.database.db.prisma;
  afterEach(() => gw.setNow(null));

  it('answers the account, its subscription and every limit of its plan snapshot', async () => {
    const { accountId, auth } = await gw.account('pro');
    const res = await request(gw.app).get('/v1/me').set(auth);
    expect(res.status).toBe(200);
    const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId } });
    const plan = await prisma().plan.findUniqueOrThrow({ where: { id: 'pro' } });
    expect(res.body).toEqual({
      id: accountId,
      email: user.email,
      plan: 'pro',
      subscription: {
        status: 'active',
        current_period_start: user.currentPeriodStart.toISOString(),
        current_period_end: user.currentPeriodEnd.toISOString(),
      },
      hashtags_limit: plan.hashtagsLimit,
      accounts_limit: plan.accountsLimit,
      engagement_limit: plan.engagementLimit,
      webhooks_limit: plan.webhooksLimit,
      alerts_limit: plan.alertsLimit,
      scan_interval_seconds: plan.scanIntervalSeconds,
      engagement_refresh_seconds: plan.engagementRefreshSeconds,
      rate_limit_per_minute: plan.rateLimitPerMinute,
      two_factor_enabled: false,
      created_at: user.createdAt.toISOString(),
    });
    expect(res.body.hashtags_limit).toBe(15);
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(res.body.subscription.current_period_end).toMatch(ISO_MS);
    expect(res.headers['x-ratelimit-limit']).toBe(String(plan.rateLimitPerMinute));
  });

  it('keeps the snapshot when the plan config changes, and takes the new values on POST /me/resync-limits', async () => {
    const { auth } = await gw.account('business');
    const original = await prisma().plan.findUniqueOrThrow({ where: { id: 'business' } });
    try {
      await updatePlan(prisma(), 'business', { hashtagsLimit: 50, alertsLimit: 100_000, rateLimitPerMinute: 700, scanIntervalSeconds: 5 });
      const before = await request(gw.app).get('/v1/me').set(auth).expect(200);
      expect(before.body).toMatchObject({ hashtags_limit: original.hashtagsLimit, alerts_limit: original.alertsLimit, rate_limit_per_minute: 600 });

      const resynced = await request(gw.app).post('/v1/me/resync-limits').set(auth);
      expect(resynced.status).toBe(200);
      expect(resynced.body).toMatchObject({ plan: 'business', hashtags_limit: 50, alerts_limit: 100_000, rate_limit_per_minute: 700, scan_interval_seconds: 5 });
      const after = await request(gw.app).get('/v1/me').set(auth).expect(200);
      expect(after.body).toEqual(resynced.body);
      expect(after.headers['x-ratelimit-limit']).toBe('700');
    } finally {
      await prisma().plan.update({ where: { id: 'business' }, data: original });
    }
  });

  it('shows a plan change at once, and resync after an account:plan-style plan_id change takes that plan’s limits', async () => {
    const { accountId, auth } = await gw.account('starter');
    await switchPlan(prisma(), accountId, 'pro');
    const switched = await request(gw.app).get('/v1/me').set(auth).expect(200);
    expect(switched.body).toMatchObject({ plan: 'pro', hashtags_limit: 15, accounts_limit: 10, webhooks_limit: 5 });

    await prisma().user.update({ where: { id: accountId }, data: { planId: 'business' } });
    const resynced = await request(gw.app).post('/v1/me/resync-limits').set(auth).expect(200);
    expect(resynced.body).toMatchObject({ plan: 'business', hashtags_limit: 40, accounts_limit: 25, engagement_limit: 25, webhooks_limit: 10, alerts_limit: 75_000 });
  });

  it('answers 400 invalid_request to POST /me/resync-limits with a body', async () => {
    const { auth } = await gw.account();
    const res = await request(gw.app).post('/v1/me/resync-limits').set(auth).send({ plan: 'business' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it.each([
    ['canceled', 'the subscription is canceled'],
    ['past_due', 'the subscription is past due'],
  ] as const)('answers 402 subscription_inactive on GET /me when the subscription is %s, with rate-limit headers', async (status, why) => {
    const { accountId, auth } = await gw.account();
    await setSubscription(prisma(), accountId, { status });
    const res = await request(gw.app).get('/v1/me').set(auth);
    expect(res.status).toBe(402);
    expect(res.body.error).toEqual({ code: 'subscription_inactive', message: expect.stringContaining(why) });
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    expect(res.headers['x-ratelimit-remaining']).toBeDefined();
    expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    const resync = await request(gw.app).post('/v1/me/resync-limits').set(auth);
    expect(resync.status).toBe(402);
  });

  it('answers 402 subscription_inactive naming the date when the period has ended', async () => {
    const { accountId, auth } = await gw.account();
    const ended = new Date('2026-01-31T00:00:00.000Z');
    await prisma().user.update({ where: { id: accountId }, data: { currentPeriodStart: new Date('2026-01-01T00:00:00Z'), currentPeriodEnd: ended } });
    const res = await request(gw.app).get('/v1/me').set(auth);
    expect(res.status).toBe(402);
    expect(res.body.error).toEqual({ code: 'subscription_inactive', message: `the subscription expired on ${ended.toISOString()}` });
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    const usage = await request(gw.app).get('/v1/usage').set(auth);
    expect(usage.status).toBe(402);
  });

  it('answers 401 without a key', async () => {
    const res = await request(gw.app).get('/v1/me');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  describe('DELETE /me', () => {
    /** One row in every table an account owns, plus a delivery linking a channel and a feed item. */
    async function populate(accountId: string, auth: { Authorization: string }) {
      await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc', track_engagement: true }).expect(201);
      await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'alice' }).expect(201);
      const now = new Date();
      const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId } });
      const item = await prisma().feedItem.create({
        data: {
          id: `post_${accountId}`,
          userId: accountId,
          dedupeKey: 'x:1',
          type: 'hashtag',
          hashtag: 'btc',
          sources: ['#btc'],
          xPostId: '1',
          author: '@bob',
          authorName: 'Bob',
          text: '#btc up',
          url: 'https://x.com/bob/status/1',
          detectedAt: now,
        },
      });
      const channel = await prisma().notificationChannel.create({
        data: { id: `wh_${accountId}`, userId: accountId, kind: 'webhook', url: 'https://example.com/hook' },
      });
      await prisma().delivery.create({ data: { id: `dlv_${accountId}`, userId: accountId, channelId: channel.id, feedItemId: item.id, messageId: `msg_${accountId}` } });
      await prisma().usagePeriod.create({ data: { userId: accountId, periodStart: user.currentPeriodStart, periodEnd: user.currentPeriodEnd, alertsUsed: 1 } });
    }

    async function ownedRows(accountId: string) {
      const where = { userId: accountId };
      return {
        users: await prisma().user.count({ where: { id: accountId } }),
        tracks: await prisma().track.count({ where }),
        account_tracks: await prisma().accountTrack.count({ where }),
        api_keys: await prisma().apiKey.count({ where }),
        feed_items: await prisma().feedItem.count({ where }),
        usage_periods: await prisma().usagePeriod.count({ where }),
        notification_channels: await prisma().notificationChannel.count({ where }),
        deliveries: await prisma().delivery.count({ where }),
      };
    }

    it('erases the account and every row it owns, leaves another account intact, and the key then answers 401', async () => {
      const doomed = await gw.account();
      const other = await gw.account();
      await populate(doomed.accountId, doomed.auth);
      await populate(other.accountId, other.auth);
      const full = { users: 1, tracks: 1, account_tracks: 1, api_keys: 1, feed_items: 1, usage_periods: 1, notification_channels: 1, deliveries: 1 };
      expect(await ownedRows(doomed.accountId)).toEqual(full);

      const res = await request(gw.app).delete('/v1/me').set(doomed.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true });
      expect(await ownedRows(doomed.accountId)).toEqual({
        users: 0, tracks: 0, account_tracks: 0, api_keys: 0, feed_items: 0, usage_periods: 0, notification_channels: 0, deliveries: 0,
      });
      expect(await ownedRows(other.accountId)).toEqual(full);
      const after = await request(gw.app).get('/v1/me').set(doomed.auth);
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('unauthorized');
      await request(gw.app).get('/v1/tracks').set(other.auth).expect(200);
    });

    it('needs X-TOTP-Code while 2FA is on: missing 403, malformed 400, wrong 403, right deletes', async () => {
      const { accountId, auth } = await gw.account();
      const { secret, t0 } = await gw.enableTwoFactor(auth);

      const t1 = new Date(t0.getTime() + 30_000);
      gw.setNow(t1);
      const missing = await request(gw.app).delete('/v1/me').set(auth);
      expect(missing.status).toBe(403);
      expect(missing.body.error.code).toBe('two_factor_required');
      const malformed = await request(gw.app).delete('/v1/me').set(auth).set('X-TOTP-Code', '12ab');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toEqual({ code: 'invalid_request', message: 'X-TOTP-Code: must be the 6-digit code or a recovery code (abcd-efgh-ijkl-mnop)' });
      const right = codeAt(secret, t1);
      const wrong = right === '000000' ? '000001' : '000000';
      const refused = await request(gw.app).delete('/v1/me').set(auth).set('X-TOTP-Code', wrong);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('invalid_two_factor_code');
      expect(await prisma().user.count({ where: { id: accountId } })).toBe(1);

      await request(gw.app).delete('/v1/me').set(auth).set('X-TOTP-Code', right).expect(200, { deleted: true });
      expect(await prisma().user.count({ where: { id: accountId } })).toBe(0);
      await request(gw.app).get('/v1/me').set(auth).expect(401);
    });

    it('documents X-TOTP-Code and the 2FA errors in the OpenAPI document', async () => {
      const res = await request(gw.app).get('/v1/openapi.json').expect(200);
      const op = res.body.paths['/v1/me'].delete;
      expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'X-TOTP-Code' })]));
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '402', '403', '429']));
      expect(op.responses['403'].description).toContain('two_factor_required');
      expect(res.body.paths['/v1/me'].get.responses['200']).toBeDefined();
      expect(res.body.paths['/v1/me/resync-limits'].post.responses['200']).toBeDefined();
    });
  });
});
