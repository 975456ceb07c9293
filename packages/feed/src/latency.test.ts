import { createAccount } from '@hashwatch/accounts';
import { useTestEnvironment } from '@hashwatch/testing';
import { latencyFrom, latencyOf, latencyStatement } from './latency';
import { latencyDelivery, latencyItems } from './test-support/latency-rows';

describe('latencyOf', () => {
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  const prisma = () => env.database.db.prisma;
  const start = new Date('2026-11-01T00:00:00.000Z');
  const period = { start, end: new Date('2026-12-01T00:00:00.000Z') };

  const items = (userId: string, tag: string, detectedAt: Date, delays: (number | null)[]) => latencyItems(prisma(), userId, tag, detectedAt, delays);
  const deliver = (userId: string, channelId: string, feedItemId: string, status: string, afterMs: number | null) =>
    latencyDelivery(pool(), userId, channelId, feedItemId, status, afterMs);

  const account = async (email: string) => (await createAccount(prisma(), { email, planId: 'pro' })).accountId;

  it("takes p50 and p95 over the period's own items and delivered deliveries of this account, interpolated", async () => {
    const [userId, other] = [await account('latency@example.com'), await account('latency-other@example.com')];
    const channel = `wh_lat${userId.slice(-6)}`;
    await prisma().notificationChannel.create({ data: { id: channel, userId, kind: 'webhook', url: 'https://example.com/1' } });
    const inPeriod = await items(userId, 'in', new Date(start.getTime() + 3_600_000), [1_000, 2_000, 3_000, 4_000, null]);
    const before = await items(userId, 'before', new Date(start.getTime() - 60_000), [900_000]);
    await items(other, 'other', new Date(start.getTime() + 3_600_000), [800_000]);
    await deliver(userId, channel, inPeriod[0]!, 'delivered', 100);
    await deliver(userId, channel, inPeriod[1]!, 'delivered', 300);
    await deliver(userId, channel, inPeriod[2]!, 'failed', null);
    await deliver(userId, channel, before[0]!, 'delivered', 600_000);

    const expected = { detect_p50_ms: 2_500, detect_p95_ms: 3_850, deliver_p50_ms: 200, deliver_p95_ms: 290 };
    expect(await latencyOf(pool(), userId, period)).toEqual(expected);
    // The same statement run by another client (the admin CLI's Prisma) reads the same figures.
    const { text, values } = latencyStatement(userId, period);
    const rows = await prisma().$queryRawUnsafe<{ detect: number[] | null; deliver: number[] | null }[]>(text, ...values);
    expect(latencyFrom(rows[0])).toEqual(expected);
  });

  it('answers null for a figure without a sample', async () => {
    const userId = await account('latency-empty@example.com');
    const none = { detect_p50_ms: null, detect_p95_ms: null, deliver_p50_ms: null, deliver_p95_ms: null };
    expect(await latencyOf(pool(), userId, period)).toEqual(none);
    await items(userId, 'likes', new Date(start.getTime() + 1000), [null, null]);
    expect(await latencyOf(pool(), userId, period)).toEqual(none);
  });

  it("takes the figures over the period's most recent items when it holds more than the sample", async () => {
    const userId = await account('latency-sample@example.com');
    // Detected in order: the three most recent were posted 1 s, 2 s and 3 s before, the older ones a minute.
    await items(userId, 'sample', new Date(start.getTime() + 1000), [60_000, 60_000, 60_000, 1_000, 2_000, 3_000]);
    expect(await latencyOf(pool(), userId, period, 3)).toMatchObject({ detect_p50_ms: 2_000, detect_p95_ms: 2_900 });
    expect((await latencyOf(pool(), userId, period)).detect_p50_ms).toBe(31_500);
  });
});
