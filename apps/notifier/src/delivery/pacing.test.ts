import { useTestEnvironment, waitFor } from '@hashwatch/testing';
import {
  addWebhook,
  deliveriesOf,
  newAccount,
  post,
  startTestNotifier,
  storeAndRelay,
  type NotifierHandle,
} from '../test-support/notifier-fixture';
import { startJsonReceiver, type Received, type Receiver } from '../test-support/receiver';

/** Post ids a json message carries: one for an alert, up to ten for a digest. */
function postIds(request: Received): string[] {
  const body = request.json as { type: string; post?: { id: string }; posts?: { id: string }[] };
  return body.type === 'digest' ? (body.posts ?? []).map((p) => p.id) : [body.post!.id];
}

describe('pacing, digests and isolation', () => {
  let handle: NotifierHandle | undefined;
  const receivers: Receiver[] = [];
  afterAll(async () => {
    await handle?.stop();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });
  const env = useTestEnvironment();
  const pool = () => env.database.db.pool;
  const pace = { limit: 5, windowMs: 500 };

  beforeAll(async () => {
    handle = await startTestNotifier(pool(), {
      redisUrl: env.redisUrl,
      prefix: env.queuePrefix,
      notifier: { pace: { json: [pace] } as never, sendTimeoutMs: 1_000 },
    });
  });

  async function channel(options: { hold?: boolean; url?: string } = {}) {
    let secret = '';
    const receiver = await startJsonReceiver(() => secret);
    receivers.push(receiver);
    if (options.hold) for (let i = 0; i < 1_000; i += 1) receiver.script('hold');
    const user = await newAccount(env.database);
    const created = await addWebhook(pool(), user, { url: options.url ?? `${receiver.origin}/hook` });
    secret = created.secret;
    return { receiver, user, channelId: created.id };
  }

  it('turns a burst of 200 alerts into paced digests and delivers every alert exactly once', async () => {
    const { receiver, user, channelId } = await channel();
    const stored: string[] = [];
    for (let batch = 0; batch < 20; batch += 1) {
      const items = await storeAndRelay(pool(), handle!.queues, Array.from({ length: 10 }, () => post(user)));
      stored.push(...items.map((item) => item.id));
    }

    await waitFor(async () => (await deliveriesOf(pool(), channelId)).filter((d) => d.status === 'delivered').length === 200, 30_000, '200 delivered');

    const seen = receiver.accepted.flatMap(postIds);
    expect(seen.sort()).toEqual([...stored].sort());
    const digests = receiver.accepted.filter((request) => request.json?.type === 'digest');
    expect(digests.length).toBeGreaterThanOrEqual(15);
    expect(receiver.accepted.length).toBeLessThan(40);
    expect(digests.every((request) => postIds(request).length <= 10)).toBe(true);
    // Every digested delivery carries the digest's id, which is the webhook-id of the message that carried it.
    const deliveries = await deliveriesOf(pool(), channelId);
    const digestIds = new Set(digests.map((request) => request.headers['webhook-id']));
    const digested = deliveries.filter((d) => d.digest_id !== null);
    expect(digested.length).toBeGreaterThanOrEqual(150);
    expect(digested.every((d) => digestIds.has(d.digest_id!))).toBe(true);
    expect(deliveries.every((d) => d.attempts === 1)).toBe(true);
    // Each digest lists its alerts in detection order (the order the deliveries table keeps them in).
    const rank = new Map(deliveries.map((d, index) => [d.feed_item_id, index]));
    for (const digest of digests) {
      const ranks = postIds(digest).map((id) => rank.get(id)!);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    }
    // No more than 5 messages in any 500 ms (a little slack for the time between reserving and arriving).
    const times = receiver.received.map((request) => request.at);
    for (let i = pace.limit; i < times.length; i += 1) expect(times[i]! - times[i - pace.limit]!).toBeGreaterThanOrEqual(pace.windowMs - 150);
  }, 60_000);

  async function latencyOfAnotherAccount(): Promise<number> {
    const { receiver, user } = await channel();
    const started = Date.now();
    await storeAndRelay(pool(), handle!.queues, [post(user)]);
    await receiver.waitForAccepted(1, 5_000);
    return receiver.accepted[0]!.at - started;
  }

  it('delivers another account alert within a second while a channel answers nothing and holds every request', async () => {
    const slow = await channel({ hold: true });
    await storeAndRelay(pool(), handle!.queues, Array.from({ length: 30 }, () => post(slow.user)));
    await slow.receiver.waitForReceived(1);

    expect(await latencyOfAnotherAccount()).toBeLessThan(1_000);
  });

  it('delivers another account alert within a second while a channel is down', async () => {
    // Nothing listens on port 9 of the loopback: every send is refused at once.
    const down = await channel({ url: 'http://127.0.0.1:9/hook' });
    await storeAndRelay(pool(), handle!.queues, Array.from({ length: 30 }, () => post(down.user)));
    await waitFor(async () => (await deliveriesOf(pool(), down.channelId)).some((d) => d.attempts > 0), 20_000, 'a delivery attempt');

    expect(await latencyOfAnotherAccount()).toBeLessThan(1_000);
  });

  it('delivers another account alert within a second while a paced channel has 1,000 alerts queued', async () => {
    const busy = await channel();
    for (let batch = 0; batch < 10; batch += 1) {
      await storeAndRelay(pool(), handle!.queues, Array.from({ length: 100 }, () => post(busy.user)));
    }
    // Routed: the deliveries table now holds the channel's queue.
    await waitFor(async () => (await deliveriesOf(pool(), busy.channelId)).length === 1_000, 20_000, 'routing');
    await busy.receiver.waitForAccepted(3);

    expect(await latencyOfAnotherAccount()).toBeLessThan(1_000);
  }, 30_000);
});
