import { Prisma } from '@hashwatch/db';
import { useTestEnvironment } from '@hashwatch/testing';
import { runCommand } from '../run-command';

describe('usage:report', () => {
  const env = useTestEnvironment();
  const prisma = () => env.database.db.prisma;
  const run = (...argv: string[]) => runCommand(argv, { prisma: prisma(), now: () => new Date() });
  const account = async (email: string) => String((await run('account:create', '--email', email, '--plan', 'pro')).account_id);
  const share = (userId: string, periodStart: Date, source: string, reads: string, requests: string) => ({
    userId, periodStart, source, reads: new Prisma.Decimal(reads), requests: new Prisma.Decimal(requests),
  });

  const none = { detect_p50_ms: null, detect_p95_ms: null, deliver_p50_ms: null, deliver_p95_ms: null };

  /** Feed items of the account detected at `detectedAt` (1 ms apart), each posted `delays[n]` ms before, delivered `deliveredAfter[n]` ms after. */
  async function items(userId: string, tag: string, detectedAt: Date, delays: number[], deliveredAfter: (number | null)[] = []): Promise<void> {
    const channelId = `wh_${tag}${userId.slice(-8)}`;
    await prisma().notificationChannel.create({ data: { id: channelId, userId, kind: 'webhook', url: 'https://example.com/hook' } });
    for (const [n, delay] of delays.entries()) {
      const id = `post_${tag}${n}${userId.slice(-8)}`;
      const detected = new Date(detectedAt.getTime() + n);
      await prisma().feedItem.create({
        data: {
          id, userId, dedupeKey: `${tag}-${n}`, type: 'hashtag', xPostId: `7${n}`, author: '@alice', authorName: 'Alice', text: 'gm',
          url: 'https://x.com/alice/status/1', sources: ['#btc'], detectedAt: detected, postedAt: new Date(detected.getTime() - delay),
        },
      });
      const after = deliveredAfter[n];
      if (after !== undefined && after !== null) {
        await prisma().delivery.create({
          data: { id: `dlv_${tag}${n}${userId.slice(-8)}`, userId, channelId, feedItemId: id, messageId: `msg_${tag}${n}`, status: 'delivered', deliveredAt: new Date(detected.getTime() + after), createdAt: detected },
        });
      }
    }
  }

  it('prints every account\'s latency and upstream cost for its current period, or for the periods starting at --period-start', async () => {
    const ids = [await account('ann@example.com'), await account('bob@example.com'), await account('cy@example.com')];
    const [ann, bob, cy] = ids as [string, string, string];
    const users = await prisma().user.findMany({ where: { id: { in: ids } } });
    const current = (id: string) => users.find((user) => user.id === id) as (typeof users)[number];
    const previousStart = new Date('2026-09-01T00:00:00.000Z');
    await prisma().usagePeriod.createMany({
      data: [
        { userId: ann, periodStart: current(ann).currentPeriodStart, periodEnd: current(ann).currentPeriodEnd, upstreamPostsRead: new Prisma.Decimal('5.5') },
        { userId: ann, periodStart: previousStart, periodEnd: current(ann).currentPeriodStart, upstreamPostsRead: new Prisma.Decimal('40') },
        { userId: cy, periodStart: current(cy).currentPeriodStart, periodEnd: current(cy).currentPeriodEnd, upstreamPostsRead: new Prisma.Decimal('0.333333') },
      ],
    });
    await prisma().upstreamUsageBySource.createMany({
      data: [
        share(ann, current(ann).currentPeriodStart, '#btc', '1.5', '0.25'),
        share(ann, current(ann).currentPeriodStart, '@alice', '4', '0.5'),
        share(ann, previousStart, '#btc', '40', '3'),
        share(cy, current(cy).currentPeriodStart, '#eth', '0.333333', '0.333334'),
      ],
    });

    // Ann's current period: detected 1 s … 4 s after posting, two delivered 100 ms and 300 ms after; her previous
    // period: one item 60 s late. Bob has none. Cy's only item is outside his period.
    await items(ann, 'now', new Date(current(ann).currentPeriodStart.getTime() + 60_000), [1_000, 2_000, 3_000, 4_000], [100, 300]);
    await items(ann, 'then', new Date(previousStart.getTime() + 60_000), [60_000], [500]);
    await items(cy, 'old', new Date(current(cy).currentPeriodStart.getTime() - 60_000), [9_000]);

    const period = (id: string) => ({ period_start: current(id).currentPeriodStart.toISOString(), period_end: current(id).currentPeriodEnd.toISOString() });
    const expected = [
      { account_id: ann, email: 'ann@example.com', ...period(ann), latency: { detect_p50_ms: 2_500, detect_p95_ms: 3_850, deliver_p50_ms: 200, deliver_p95_ms: 290 }, upstream: { reads: 5.5, requests: 0.75, by_source: [{ source: '@alice', reads: 4, requests: 0.5 }, { source: '#btc', reads: 1.5, requests: 0.25 }] } },
      { account_id: bob, email: 'bob@example.com', ...period(bob), latency: none, upstream: { reads: 0, requests: 0, by_source: [] } },
      { account_id: cy, email: 'cy@example.com', ...period(cy), latency: none, upstream: { reads: 0.333333, requests: 0.333334, by_source: [{ source: '#eth', reads: 0.333333, requests: 0.333334 }] } },
    ].sort((a, b) => (a.account_id < b.account_id ? -1 : 1));
    expect(await run('usage:report')).toEqual({ data: expected });

    expect(await run('usage:report', '--period-start', '2026-09-01T00:00:01Z')).toEqual({ data: [] });
    expect(await run('usage:report', '--period-start', '2026-09-01T02:00:00+02:00')).toEqual({
      data: [
        {
          account_id: ann, email: 'ann@example.com', period_start: '2026-09-01T00:00:00.000Z', period_end: current(ann).currentPeriodStart.toISOString(),
          latency: { detect_p50_ms: 60_000, detect_p95_ms: 60_000, deliver_p50_ms: 500, deliver_p95_ms: 500 },
          upstream: { reads: 40, requests: 3, by_source: [{ source: '#btc', reads: 40, requests: 3 }] },
        },
      ],
    });
  });

  it('answers invalid_request for a --period-start without a zone and for an unknown flag', async () => {
    await expect(run('usage:report', '--period-start', '2026-09-01')).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^--period-start must be an ISO 8601 date-time with a zone/),
    });
    await expect(run('usage:report', '--period', '2026-09-01T00:00:00Z')).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
