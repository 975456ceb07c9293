import { latencyDelivery, latencyItems } from '@hashwatch/feed/testing';
import { request, useGateway } from '../../test-support/gateway-harness';

describe('GET /usage latency', () => {
  const gw = useGateway();
  const prisma = () => gw.env.database.db.prisma;
  const pool = () => gw.env.database.db.pool;

  const items = (userId: string, tag: string, detectedAt: Date, delays: (number | null)[]) => latencyItems(prisma(), userId, tag, detectedAt, delays);
  const deliver = (userId: string, channelId: string, feedItemId: string, status: string, afterMs: number | null) =>
    latencyDelivery(pool(), userId, channelId, feedItemId, status, afterMs);

  it('answers p50 and p95 of post → detected and detected → delivered over the period, per channel, interpolated', async () => {
    const { accountId, auth } = await gw.account('pro');
    const other = await gw.account('pro');
    const start = new Date(Date.now() - 3 * 86_400_000);
    await prisma().user.update({ where: { id: accountId }, data: { currentPeriodStart: start } });
    await prisma().notificationChannel.createMany({
      data: [
        { id: `wh_lat1${accountId.slice(-6)}`, userId: accountId, kind: 'webhook', url: 'https://example.com/1' },
        { id: `wh_lat2${accountId.slice(-6)}`, userId: accountId, kind: 'webhook', url: 'https://discord.com/api/webhooks/1/a', position: 1 },
        { id: `wh_lat3${other.accountId.slice(-6)}`, userId: other.accountId, kind: 'webhook', url: 'https://example.com/3' },
      ],
    });
    const [wh1, wh2, wh3] = [`wh_lat1${accountId.slice(-6)}`, `wh_lat2${accountId.slice(-6)}`, `wh_lat3${other.accountId.slice(-6)}`];

    // 20 items detected 1 s, 2 s, … 20 s after they were posted, and a like (no posted_at: no detection sample).
    const inPeriod = await items(accountId, 'in', new Date(start.getTime() + 3_600_000), [...Array.from({ length: 20 }, (_, n) => (n + 1) * 1000), null]);
    // Outside the period, or another account's: no sample of this one, however slow.
    const before = await items(accountId, 'before', new Date(start.getTime() - 60_000), [900_000]);
    const others = await items(other.accountId, 'other', new Date(start.getTime() + 3_600_000), [800_000]);
    // Ten items delivered to both channels: 100 ms … 1000 ms on one, 1100 ms … 2000 ms on the other (20 samples).
    for (let n = 0; n < 10; n += 1) {
      await deliver(accountId, wh1, inPeriod[n]!, 'delivered', (n + 1) * 100);
      await deliver(accountId, wh2, inPeriod[n]!, 'delivered', (n + 11) * 100);
    }
    // Not delivered (no delivered_at), or not this period's or this account's: no delivery sample.
    await deliver(accountId, wh1, inPeriod[10]!, 'pending', null);
    await deliver(accountId, wh1, inPeriod[11]!, 'failed', null);
    await deliver(accountId, wh2, inPeriod[12]!, 'skipped', null);
    await deliver(accountId, wh1, before[0]!, 'delivered', 600_000);
    await deliver(other.accountId, wh3, others[0]!, 'delivered', 700_000);

    const res = await request(gw.app).get('/v1/usage').set(auth).expect(200);
    // percentile_cont over 1000 … 20000: p50 halfway between the 10th and 11th, p95 at 18.05 of 19 steps.
    expect(res.body.latency).toEqual({ detect_p50_ms: 10_500, detect_p95_ms: 19_050, deliver_p50_ms: 1_050, deliver_p95_ms: 1_905 });
  });

  it('answers null for a figure without a sample: items without posted_at and nothing delivered', async () => {
    const { accountId, auth } = await gw.account();
    const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId } });
    await items(accountId, 'likes', new Date(user.currentPeriodStart.getTime() + 1000), [null, null]);
    const res = await request(gw.app).get('/v1/usage').set(auth).expect(200);
    expect(res.body.latency).toEqual({ detect_p50_ms: null, detect_p95_ms: null, deliver_p50_ms: null, deliver_p95_ms: null });
  });

  it('documents latency in the OpenAPI document: four integer-or-null figures, required in Usage', async () => {
    const doc = (await request(gw.app).get('/v1/openapi.json').expect(200)).body;
    expect(doc.components.schemas.Usage.required).toContain('latency');
    const latency = doc.components.schemas.UsageLatency;
    expect(Object.keys(latency.properties).sort()).toEqual(['deliver_p50_ms', 'deliver_p95_ms', 'detect_p50_ms', 'detect_p95_ms']);
    expect(latency.required.sort()).toEqual(Object.keys(latency.properties).sort());
    for (const figure of Object.values(latency.properties)) expect(figure).toMatchObject({ type: ['integer', 'null'] });
  });

  it('answers a single sample as both p50 and p95', async () => {
    const { accountId, auth } = await gw.account();
    const user = await prisma().user.findUniqueOrThrow({ where: { id: accountId } });
    await items(accountId, 'one', new Date(user.currentPeriodStart.getTime() + 1000), [2_345]);
    const res = await request(gw.app).get('/v1/usage').set(auth).expect(200);
    expect(res.body.latency).toEqual({ detect_p50_ms: 2_345, detect_p95_ms: 2_345, deliver_p50_ms: null, deliver_p95_ms: null });
  });
});
