import { verifyWebhookSignature } from '@hashwatch/channels';
import { jsonReply, type Received, type Receiver, startReceiver, useTestEnvironment, waitFor } from '@hashwatch/testing';
import {
  addWebhook,
  deliveriesOf,
  newAccount,
  post,
  startTestNotifier,
  storeAndRelay,
  type DeliveryRow,
  type NotifierHandle,
} from '../test-support/notifier-fixture';
import { startDiscordReceiver, startJsonReceiver } from '../test-support/receiver';

/**
 * What a per-item json consumer checks of every message: exactly `{type, post, text}` for one feed
 * item, and a webhook-id that is that item's delivery id, never a digest's. Answers the post id it carries.
 */
function singleItem(request: Received, byMessageId: Map<string, DeliveryRow>): string {
  const body = request.json ?? {};
  expect(Object.keys(body).sort()).toEqual(['post', 'text', 'type']);
  expect(body.type).toBe('post');
  const postId = (body.post as { id: string }).id;
  const webhookId = String(request.headers['webhook-id']);
  expect(webhookId.startsWith('dig_')).toBe(false);
  expect(byMessageId.get(webhookId)?.feed_item_id).toBe(postId);
  return postId;
}

/** Messages per webhook-id, as a receiver that dedupes by it would count them. */
function countByWebhookId(requests: Received[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of requests) {
    const id = String(request.headers['webhook-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
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
  beforeAll(async () => {
    handle = await startTestNotifier(pool(), {
      redisTarget: env.redisTarget,
      prefix: env.queuePrefix,
      // The receivers run in this process: on a loaded machine a 1 s send timeout ran out now and then, and the
      // item went again (same webhook-id, as it should), which the "each once" counts below would take for a bug.
      notifier: { sendTimeoutMs: 5_000 },
    });
  });

  async function channel(options: { hold?: boolean; url?: string; maxPerSecond?: number } = {}) {
    let secret = '';
    const receiver = await startJsonReceiver(() => secret);
    receivers.push(receiver);
    if (options.hold) for (let i = 0; i < 1_000; i += 1) receiver.script('hold');
    const user = await newAccount(env.database);
    const created = await addWebhook(pool(), user, { url: options.url ?? `${receiver.origin}/hook`, ...(options.maxPerSecond ? { maxPerSecond: options.maxPerSecond } : {}) });
    secret = created.secret;
    return { receiver, user, channelId: created.id };
  }

  /** The channel's deliveries by message id, once every one is delivered. */
  async function allDelivered(channelId: string, count: number): Promise<Map<string, DeliveryRow>> {
    await waitFor(async () => (await deliveriesOf(pool(), channelId)).filter((d) => d.status === 'delivered').length === count, 45_000, `${count} delivered`);
    return new Map((await deliveriesOf(pool(), channelId)).map((d) => [d.message_id, d]));
  }

  it('sends a json channel with a max_per_second a burst of 100 alerts as 100 messages within it, one per item, each once', async () => {
    const pace = { limit: 10, windowMs: 1_000 };
    const { receiver, user, channelId } = await channel({ maxPerSecond: pace.limit });
    const stored: string[] = [];
    for (let batch = 0; batch < 10; batch += 1) {
      const items = await storeAndRelay(pool(), handle!.queues, Array.from({ length: 10 }, () => post(user)));
      stored.push(...items.map((item) => item.id));
    }

    const byMessageId = await allDelivered(channelId, 100);

    const seen = receiver.accepted.map((request) => singleItem(request, byMessageId));
    expect([...seen].sort()).toEqual([...stored].sort());
    expect([...countByWebhookId(receiver.accepted).values()].every((count) => count === 1)).toBe(true);
    const deliveries = [...byMessageId.values()];
    expect(deliveries.every((d) => d.digest_id === null && d.attempts === 1)).toBe(true);
    // At most 10 a second: the 100 take at least 9 windows, and no window holds a burst. The receiver stamps a
    // message when this process gets to it, which a loaded machine may delay by a few hundred ms and then stamp
    // several at once; so the check per window allows twice the limit, which an unpaced burst (all 100 within a
    // fraction of a second) still fails by far.
    const times = receiver.received.map((request) => request.at);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual((stored.length / pace.limit - 1) * pace.windowMs - 300);
    for (let i = 2 * pace.limit; i < times.length; i += 1) expect(times[i]! - times[i - 2 * pace.limit]!).toBeGreaterThanOrEqual(pace.windowMs);
  }, 90_000);

  it('delivers every item of a 60-item backlog built while a json target was down, one signed message per item, once it recovers', async () => {
    let secret = '';
    let down = true;
    // A Standard Webhooks consumer: refuses a bad signature with 401; answers 503 while it is down.
    const receiver = await startReceiver((request) => {
      if (!verifyWebhookSignature(secret, request.headers, request.body).valid) return jsonReply(401, { error: 'invalid_signature' });
      return down ? jsonReply(503, { error: 'maintenance' }) : { status: 204 };
    });
    receivers.push(receiver);
    const user = await newAccount(env.database);
    const created = await addWebhook(pool(), user, { url: `${receiver.origin}/hook` });
    secret = created.secret;

    const stored = (await storeAndRelay(pool(), handle!.queues, Array.from({ length: 60 }, () => post(user)))).map((item) => item.id);
    await waitFor(async () => (await deliveriesOf(pool(), created.id)).length === 60, 20_000, 'routing');
    // The outage lasts long enough for retries of several items to fall due, with the whole backlog waiting.
    await receiver.waitForReceived(8, 20_000);
    down = false;

    const byMessageId = await allDelivered(created.id, 60);

    expect(receiver.received.every((request) => request.json?.type === 'post')).toBe(true);
    const seen = receiver.accepted.map((request) => singleItem(request, byMessageId));
    expect([...seen].sort()).toEqual([...stored].sort());
    // Counted by webhook-id as a deduping receiver would: every item once, and a retry repeats the item's id.
    const accepted = countByWebhookId(receiver.accepted);
    expect([...accepted.keys()].sort()).toEqual([...byMessageId.keys()].sort());
    expect([...accepted.values()].every((count) => count === 1)).toBe(true);
    for (const request of receiver.received) singleItem(request, byMessageId);
    expect([...byMessageId.values()].some((d) => d.attempts > 1)).toBe(true);
    expect([...byMessageId.values()].every((d) => d.digest_id === null)).toBe(true);
  }, 90_000);

  it('still folds a burst into digests on a chat platform, where a person reads them', async () => {
    const discord = await startDiscordReceiver();
    receivers.push(discord);
    const user = await newAccount(env.database);
    const created = await addWebhook(pool(), user, { url: discord.webhookUrl, format: 'discord' });

    await storeAndRelay(pool(), handle!.queues, Array.from({ length: 60 }, () => post(user)));
    const byMessageId = await allDelivered(created.id, 60);

    const deliveries = [...byMessageId.values()];
    const digests = discord.accepted.filter((request) => /^\d+ new alerts$/.test(String((request.json?.embeds as { title?: string }[] | undefined)?.[0]?.title)));
    expect(digests.length).toBeGreaterThanOrEqual(5);
    expect(discord.accepted.length).toBeLessThan(15);
    expect(deliveries.filter((d) => d.digest_id?.startsWith('dig_')).length).toBeGreaterThanOrEqual(50);
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

  it('delivers another account alert within a second while a json channel works through 1,000 queued alerts', async () => {
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
