import { Prisma } from '@hashwatch/db';
import { request, useGateway } from '../../test-support/gateway-harness';

/** Every UTC day from `from`'s to `to`'s, as YYYY-MM-DD. */
function utcDays(from: Date, to: Date): string[] {
  const days: string[] = [];
  for (let at = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()); at <= to.getTime(); at += 86_400_000) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

describe('GET /usage', () => {
  const gw = useGateway();
  const prisma = () => gw.env.database.db.prisma;

  it('answers zero usage and the whole quota for a new account, over its current period', async () => {
    const { accountId, auth } = await gw.account();
    const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId } });
    const res = await request(gw.app).get('/v1/usage').set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      period_start: user.currentPeriodStart.toISOString(),
      period_end: user.currentPeriodEnd.toISOString(),
      alerts_used: 0,
      alerts_limit: 1000,
      alerts_remaining: 1000,
      hashtags_used: 0,
      hashtags_limit: 3,
      accounts_used: 0,
      accounts_limit: 2,
      engagement_used: 0,
      engagement_limit: 3,
      webhooks_used: 0,
      webhooks_limit: 1,
      upstream_posts_read: 0,
      alerts_per_day: utcDays(user.currentPeriodStart, new Date()).map((date) => ({ date, alerts: 0 })),
      upstream: { reads: 0, requests: 0, by_source: [] },
      latency: { detect_p50_ms: null, detect_p95_ms: null, deliver_p50_ms: null, deliver_p95_ms: null },
    });
  });

  it('counts the feed items stored per UTC day of the period, days without any as 0, other accounts and periods apart', async () => {
    const { accountId, auth } = await gw.account();
    const other = await gw.account();
    const today = new Date();
    const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 3, 5));
    await prisma().user.update({ where: { id: accountId }, data: { currentPeriodStart: start } });
    const dayAfterStart = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate() + 1, 23, 59, 59));
    const items = [
      { userId: accountId, at: new Date(start.getTime() + 1000) },
      { userId: accountId, at: new Date(start.getTime() + 2000) },
      { userId: accountId, at: dayAfterStart },
      { userId: accountId, at: new Date(start.getTime() - 1000) },
      { userId: other.accountId, at: new Date(start.getTime() + 1000) },
    ];
    await prisma().feedItem.createMany({
      data: items.map((item, n) => ({
        id: `post_day${n}${accountId.slice(-6)}`, userId: item.userId, dedupeKey: `day-${n}`, type: 'hashtag', xPostId: `99${n}`, author: '@alice',
        authorName: 'Alice', text: 'gm', url: 'https://x.com/alice/status/1', sources: ['#btc'], detectedAt: item.at,
      })),
    });
    const res = await request(gw.app).get('/v1/usage').set(auth).expect(200);
    const days = utcDays(start, new Date());
    const expected = days.map((date, index) => ({ date, alerts: index === 0 ? 2 : date === days[1] ? 1 : 0 }));
    expect(res.body.alerts_per_day).toEqual(expected);
  });

  it('counts tracks, accounts, engagement-tracked sources, webhook channels and the current period’s alerts and reads', async () => {
    const { accountId, auth } = await gw.account('pro');
    const other = await gw.account('pro');
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc', track_engagement: true }).expect(201);
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'eth' }).expect(201);
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'sol' }).expect(201);
    await request(gw.app).post('/v1/accounts').set(auth).send({ username: 'alice', track_engagement: true }).expect(201);
    await request(gw.app).post('/v1/tracks').set(other.auth).send({ hashtag: 'btc', track_engagement: true }).expect(201);
    await prisma().notificationChannel.createMany({
      data: [
        { id: 'wh_usage1', userId: accountId, kind: 'webhook', url: 'https://example.com/1' },
        { id: 'wh_usage2', userId: accountId, kind: 'webhook', url: 'https://example.com/2', enabled: false, position: 1 },
        { id: 'bot_usage', userId: accountId, kind: 'bot', chatId: '-100123' },
        { id: 'wh_usage3', userId: other.accountId, kind: 'webhook', url: 'https://example.com/3' },
      ],
    });
    const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId } });
    const previousStart = new Date(user.currentPeriodStart.getTime() - 30 * 86_400_000);
    await prisma().usagePeriod.createMany({
      data: [
        { userId: accountId, periodStart: user.currentPeriodStart, periodEnd: user.currentPeriodEnd, alertsUsed: 42, upstreamPostsRead: new Prisma.Decimal('12.3333') },
        { userId: accountId, periodStart: previousStart, periodEnd: user.currentPeriodStart, alertsUsed: 900, upstreamPostsRead: new Prisma.Decimal(500) },
      ],
    });

    const res = await request(gw.app).get('/v1/usage').set(auth).expect(200);
    expect(res.body).toEqual({
      period_start: user.currentPeriodStart.toISOString(),
      period_end: user.currentPeriodEnd.toISOString(),
      alerts_used: 42,
      alerts_limit: 25_000,
      alerts_remaining: 24_958,
      hashtags_used: 3,
      hashtags_limit: 15,
      accounts_used: 1,
      accounts_limit: 10,
      engagement_used: 2,
      engagement_limit: 15,
      webhooks_used: 2,
      webhooks_limit: 5,
      upstream_posts_read: 12.3333,
      alerts_per_day: utcDays(user.currentPeriodStart, new Date()).map((date) => ({ date, alerts: 0 })),
      upstream: { reads: 12.3333, requests: 0, by_source: [] },
      latency: { detect_p50_ms: null, detect_p95_ms: null, deliver_p50_ms: null, deliver_p95_ms: null },
    });
  });

  it('shows the period\'s upstream cost per source, most read first, sources no longer tracked included, other periods and accounts apart', async () => {
    const { accountId, auth } = await gw.account('pro');
    const other = await gw.account('pro');
    await request(gw.app).post('/v1/tracks').set(auth).send({ hashtag: 'btc' }).expect(201);
    const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId } });
    const previousStart = new Date(user.currentPeriodStart.getTime() - 30 * 86_400_000);
    const otherUser = await prisma().user.findUniqueOrThrow({ where: { id: other.accountId } });
    await prisma().usagePeriod.createMany({
      data: [
        { userId: accountId, periodStart: user.currentPeriodStart, periodEnd: user.currentPeriodEnd, upstreamPostsRead: new Prisma.Decimal('10.500001') },
        { userId: accountId, periodStart: previousStart, periodEnd: user.currentPeriodStart, upstreamPostsRead: new Prisma.Decimal(99) },
        { userId: other.accountId, periodStart: otherUser.currentPeriodStart, periodEnd: otherUser.currentPeriodEnd, upstreamPostsRead: new Prisma.Decimal(7) },
      ],
    });
    const row = (userId: string, periodStart: Date, source: string, reads: string, requests: string) => ({
      userId, periodStart, source, reads: new Prisma.Decimal(reads), requests: new Prisma.Decimal(requests),
    });
    await prisma().upstreamUsageBySource.createMany({
      data: [
        row(accountId, user.currentPeriodStart, '#btc', '4.25', '0.333333'),
        // No longer tracked: still part of the period's cost.
        row(accountId, user.currentPeriodStart, '@alice', '6.250001', '1.5'),
        row(accountId, user.currentPeriodStart, '#eth', '0', '0.166667'),
        row(accountId, user.currentPeriodStart, '#aaa', '0', '1'),
        row(accountId, previousStart, '#btc', '99', '9'),
        row(other.accountId, otherUser.currentPeriodStart, '#btc', '7', '1'),
      ],
    });
    const res = await request(gw.app).get('/v1/usage').set(auth).expect(200);
    expect(res.body.upstream_posts_read).toBe(10.500001);
    expect(res.body.upstream).toEqual({
      reads: 10.500001,
      requests: 3,
      by_source: [
        { source: '@alice', reads: 6.250001, requests: 1.5 },
        { source: '#btc', reads: 4.25, requests: 0.333333 },
        { source: '#aaa', reads: 0, requests: 1 },
        { source: '#eth', reads: 0, requests: 0.166667 },
      ],
    });
  });

  it('never answers a negative alerts_remaining when the quota is overrun', async () => {
    const { accountId, auth } = await gw.account();
    const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId } });
    await prisma().usagePeriod.create({ data: { userId: accountId, periodStart: user.currentPeriodStart, periodEnd: user.currentPeriodEnd, alertsUsed: 1003 } });
    const res = await request(gw.app).get('/v1/usage').set(auth).expect(200);
    expect(res.body).toMatchObject({ alerts_used: 1003, alerts_limit: 1000, alerts_remaining: 0 });
  });

  it('documents upstream_posts_read in the OpenAPI document', async () => {
    const res = await request(gw.app).get('/v1/openapi.json').expect(200);
    expect(JSON.stringify(res.body.paths['/v1/usage'].get)).toContain('shared reads split across accounts');
    const usage = res.body.components.schemas.Usage;
    expect(usage.required).toContain('upstream');
    expect(usage.properties.upstream.properties.by_source.description).toContain('Sources you no longer track stay listed');
  });
});
