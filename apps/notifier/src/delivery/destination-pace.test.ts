import type { ChannelConfig } from '@hashwatch/channels';
import { createRedisConnection } from '@hashwatch/queues';
import { useTestEnvironment } from '@hashwatch/testing';
import { DEFAULT_PACE } from '../notifier-options';
import { createDestinationPace, destinationOf } from './destination-pace';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const webhook = (kind: 'discord' | 'slack' | 'json', url: string): ChannelConfig =>
  kind === 'json' ? { kind, url, signingSecret: 'whsec_test', template: '' } : { kind, url, botName: 'Hashwatch', template: '' };
const telegram = (botToken: string, chatId: string): ChannelConfig => ({ kind: 'telegram', botToken, chatId, template: '' });
const rulesOf = (config: ChannelConfig) => destinationOf(config, DEFAULT_PACE, 'hw').buckets.map((bucket) => bucket.rule);

describe('destination pace', () => {
  const env = useTestEnvironment();
  let redis: ReturnType<typeof createRedisConnection>;
  beforeAll(async () => {
    redis = createRedisConnection(env.redisTarget, { role: 'producer' });
    if (redis.status !== 'ready') await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  });
  afterAll(() => redis.disconnect());

  it('applies the published limits of Discord, Slack and Telegram per destination', () => {
    expect(rulesOf(webhook('discord', 'https://discord.com/api/webhooks/1/a'))).toEqual([
      { limit: 5, windowMs: 2_000 },
      { limit: 30, windowMs: 60_000 },
    ]);
    expect(rulesOf(webhook('slack', 'https://hooks.slack.com/services/T/B/x'))).toEqual([{ limit: 1, windowMs: 1_000 }]);
    // A private chat: 1 per second, and the bot's 30 per second over all its chats.
    expect(rulesOf(telegram('1:token', '42'))).toEqual([
      { limit: 1, windowMs: 1_000 },
      { limit: 30, windowMs: 1_000 },
    ]);
    // A group (negative id) or a channel (@name): also 20 a minute.
    for (const chat of ['-1001234567890', '@news']) {
      expect(rulesOf(telegram('1:token', chat))).toEqual([
        { limit: 1, windowMs: 1_000 },
        { limit: 20, windowMs: 60_000 },
        { limit: 30, windowMs: 1_000 },
      ]);
    }
  });

  it('shares one budget between channels posting to the same destination, and keeps tokens out of key names', () => {
    const url = 'https://discord.com/api/webhooks/1/secret-webhook-token';
    const a = destinationOf(webhook('discord', url), DEFAULT_PACE, 'hw');
    expect(destinationOf(webhook('discord', url), DEFAULT_PACE, 'hw')).toEqual(a);
    expect(destinationOf(webhook('discord', `${url}2`), DEFAULT_PACE, 'hw').blockKey).not.toBe(a.blockKey);

    const chatA = destinationOf(telegram('7:secret-bot-token', '42'), DEFAULT_PACE, 'hw');
    const chatB = destinationOf(telegram('7:secret-bot-token', '43'), DEFAULT_PACE, 'hw');
    // Two chats of one bot: their own chat buckets, the bot's bucket shared.
    expect(chatA.buckets[0]!.key).not.toBe(chatB.buckets[0]!.key);
    expect(chatA.buckets.at(-1)!.key).toBe(chatB.buckets.at(-1)!.key);
    const keys = [a, chatA, chatB].flatMap((destination) => [destination.blockKey, ...destination.buckets.map((bucket) => bucket.key)]);
    expect(keys.every((key) => key.startsWith('hw:notifier:pace:') && !key.includes('secret'))).toBe(true);
  });

  it('allows a destination its limit per window, then answers how long to wait, and a block holds everything back', async () => {
    const pace = createDestinationPace(redis);
    const destination = destinationOf(webhook('json', 'https://example.com/hook'), { ...DEFAULT_PACE, json: [{ limit: 3, windowMs: 60_000 }] }, env.queuePrefix);

    expect([await pace.reserve(destination), await pace.reserve(destination), await pace.reserve(destination)]).toEqual([0, 0, 0]);
    const wait = await pace.reserve(destination);
    expect(wait).toBeGreaterThan(50_000);
    expect(wait).toBeLessThanOrEqual(60_000);
    // A refused reservation records nothing: the wait does not grow.
    expect(await pace.reserve(destination)).toBeLessThanOrEqual(wait);

    const other = destinationOf(webhook('json', 'https://example.com/other'), DEFAULT_PACE, env.queuePrefix);
    expect(await pace.reserve(other)).toBe(0);
    await pace.block(other, 30_000);
    expect(await pace.reserve(other)).toBeGreaterThan(25_000);
    // A shorter block never shortens a longer one (a 429's retry_after stays in force).
    await pace.block(other, 1_000);
    expect(await pace.reserve(other)).toBeGreaterThan(25_000);
  });

  it('gives a json receiver an adaptive window and no rate rule, and its own max_per_second as a ceiling', () => {
    const plain = destinationOf(webhook('json', 'https://example.com/hook'), DEFAULT_PACE, 'hw');
    expect(plain.buckets).toEqual([]);
    expect(plain.window).toEqual({ stateKey: expect.stringMatching(/^hw:notifier:pace:json:\{.+\}:window$/), flightKey: expect.stringMatching(/:flight$/), rule: DEFAULT_PACE.jsonWindow });
    const capped = destinationOf({ ...webhook('json', 'https://example.com/hook'), maxPerSecond: 40 } as ChannelConfig, DEFAULT_PACE, 'hw');
    expect(capped.buckets.map((bucket) => bucket.rule)).toEqual([{ limit: 40, windowMs: 1_000 }]);
    // One hash tag for every key of the receiver (one Redis Cluster slot for the scripts).
    const tag = /\{[^}]+\}/.exec(capped.blockKey)![0];
    expect([capped.window!.stateKey, capped.window!.flightKey, capped.buckets[0]!.key].every((key) => key.includes(tag))).toBe(true);
    // Chat platforms keep their published limits: no window.
    expect(destinationOf(webhook('discord', 'https://discord.com/api/webhooks/1/a'), DEFAULT_PACE, 'hw').window).toBeUndefined();
  });

  describe('the adaptive window of a json receiver', () => {
    const rule = { initial: 2, max: 8, slowFactor: 2, slowMarginMs: 50, idleMs: 60_000, baseLifetimeMs: 60_000 };
    let n = 0;
    const receiver = (maxPerSecond?: number) => {
      n += 1;
      const config = { ...webhook('json', `https://example.com/window-${n}`), ...(maxPerSecond ? { maxPerSecond } : {}) } as ChannelConfig;
      const destination = destinationOf(config, { ...DEFAULT_PACE, jsonWindow: rule }, env.queuePrefix);
      return destination as typeof destination & { window: NonNullable<typeof destination.window> };
    };
    async function settleAll(pace: ReturnType<typeof createDestinationPace>, destination: ReturnType<typeof receiver>, permits: string[]) {
      for (const permit of permits) await pace.settle(destination, permit, 'unused', 0);
    }

    /** Admits and settles `rounds` full windows of sends, each answered `signal` in `latencyMs`; answers the window after each round. */
    async function rounds(pace: ReturnType<typeof createDestinationPace>, destination: ReturnType<typeof receiver>, count: number, signal: 'ok' | 'backoff', latencyMs: number) {
      const sizes: number[] = [];
      for (let round = 0; round < count; round += 1) {
        const sentAt = Date.now();
        const { permits } = await pace.admit(destination, 100, 10_000);
        let size = 0;
        // A back-off answer is at least as late as the time since its round was sent, however slowly this machine
        // settles the round: every send of it started before the first answer's cut.
        for (const permit of permits) {
          size = await pace.settle(destination, permit, signal, signal === 'backoff' ? Math.max(latencyMs, Date.now() - sentAt + 5) : latencyMs);
        }
        sizes.push(Math.floor(size));
      }
      return sizes;
    }

    it('admits as many sends at once as the window holds, and one more for each that comes back', async () => {
      const pace = createDestinationPace(redis);
      const destination = receiver();
      const first = await pace.admit(destination, 5, 10_000);
      expect(first).toEqual({ permits: [expect.any(String), expect.any(String)], waitMs: 0, window: 2 });
      // Full: nothing more until a send comes back, and no wait to honour (the sends in flight free it).
      expect(await pace.admit(destination, 5, 10_000)).toEqual({ permits: [], waitMs: 0, window: 2 });
      await pace.settle(destination, first.permits[0]!, 'ok', 20);
      // The quick answer grew the window to 3: two free places now.
      expect((await pace.admit(destination, 5, 10_000)).permits).toHaveLength(2);
    });

    it('doubles the window each round trip while the receiver answers quickly, up to its largest', async () => {
      const pace = createDestinationPace(redis);
      expect(await rounds(pace, receiver(), 4, 'ok', 10)).toEqual([4, 8, 8, 8]);
    });

    it('halves the window on a 429, a 5xx or a time-out, once per round trip, and grows it slowly after', async () => {
      const pace = createDestinationPace(redis);
      const destination = receiver();
      await rounds(pace, destination, 2, 'ok', 10);
      // A whole window of eight answered 429 at once is one signal: 8 -> 4, not 8 -> 1. Each answer's latency is the
      // time since they were sent (and 5 ms more), however slowly this machine settles them: all started before the cut.
      const sentAt = Date.now();
      const { permits } = await pace.admit(destination, 100, 10_000);
      expect(permits).toHaveLength(8);
      const sizes: number[] = [];
      for (const permit of permits) sizes.push(await pace.settle(destination, permit, 'backoff', Date.now() - sentAt + 5));
      expect(sizes.map(Math.floor)).toEqual([4, 4, 4, 4, 4, 4, 4, 4]);
      // Past the cut, growth is additive: about one more per round trip (4 + 4 x 1/4.x, then 5.x).
      expect(await rounds(pace, destination, 2, 'ok', 10)).toEqual([4, 5]);
      // A failure of a send that started after the last cut cuts again, down to one at the least.
      const sizes2: number[] = [];
      for (let round = 0; round < 4; round += 1) {
        await sleep(40);
        sizes2.push(...(await rounds(pace, destination, 1, 'backoff', 10)));
      }
      expect(sizes2).toEqual([2, 1, 1, 1]);
    });

    it('cuts the window by a fifth when answers slow down past twice the quickest plus 50 ms', async () => {
      const pace = createDestinationPace(redis);
      const destination = receiver();
      await rounds(pace, destination, 2, 'ok', 10);
      // 60 ms is within 10 x 2 + 50: still quick.
      expect(await rounds(pace, destination, 1, 'ok', 60)).toEqual([8]);
      const { permits } = await pace.admit(destination, 100, 10_000);
      expect(Math.floor(await pace.settle(destination, permits[0]!, 'ok', 400))).toBe(6);
    });

    it('holds a receiver to its max_per_second over every sender, and answers how long until the next', async () => {
      const pace = createDestinationPace(redis);
      const destination = receiver(3);
      const admitted: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const { permits } = await pace.admit(destination, 100, 10_000);
        admitted.push(...permits);
        for (const permit of permits) await pace.settle(destination, permit, 'ok', 5);
      }
      expect(admitted).toHaveLength(3);
      const held = await pace.admit(destination, 1, 10_000);
      expect(held.permits).toEqual([]);
      expect(held.waitMs).toBeGreaterThan(0);
      expect(held.waitMs).toBeLessThanOrEqual(1_000);
    });

    it('lets the permits of a sender that died lapse, and a block holds every send back', async () => {
      const pace = createDestinationPace(redis);
      const destination = receiver();
      // A replica admitted two sends and was killed: its permits hold the window for their lifetime only.
      expect((await pace.admit(destination, 2, 300)).permits).toHaveLength(2);
      expect((await pace.admit(destination, 2, 300)).permits).toHaveLength(0);
      await sleep(350);
      const after = await pace.admit(destination, 2, 10_000);
      expect(after.permits).toHaveLength(2);
      // Permits renewed while their sends are in flight are held past their first lifetime; only those go on.
      const held = await pace.admit(destination, 1, 300);
      expect(held.permits).toHaveLength(0);
      await settleAll(pace, destination, after.permits.slice(1));
      const renewed = await pace.admit(destination, 1, 600);
      expect(renewed.permits).toHaveLength(1);
      await sleep(400);
      await pace.renew(destination, renewed.permits, 600);
      await sleep(400);
      expect((await pace.admit(destination, 2, 600)).permits).toHaveLength(0);
      await sleep(400);
      expect((await pace.admit(destination, 2, 600)).permits).toHaveLength(1);
      // A permit given back unused frees its place and changes nothing else.
      expect(await pace.settle(destination, after.permits[0]!, 'unused', 0)).toBe(2);
      await pace.block(destination, 5_000);
      const blocked = await pace.admit(destination, 1, 10_000);
      expect(blocked.permits).toEqual([]);
      expect(blocked.waitMs).toBeGreaterThan(4_000);
    });
  });

  it('runs every script in one tick on an auto-pipelining connection, destinations and their key counts mixed', async () => {
    // As the notifier's drains use Redis. On a Redis Cluster (the suite's second pass) a script whose first argument
    // was its key count was grouped into the wrong slot's pipeline, and the whole pipeline failed.
    const pipelining = createRedisConnection(env.redisTarget, { role: 'producer', autoPipelining: true });
    if (pipelining.status !== 'ready') await new Promise<void>((resolve) => pipelining.once('ready', () => resolve()));
    try {
      const pace = createDestinationPace(pipelining);
      const rules = { ...DEFAULT_PACE, jsonWindow: { initial: 2, max: 8, slowFactor: 2, slowMarginMs: 50, idleMs: 60_000, baseLifetimeMs: 60_000 } };
      const destinations = Array.from({ length: 12 }, (_, i) =>
        destinationOf({ ...webhook('json', `https://example.com/tick-${i}`), ...(i % 2 ? { maxPerSecond: 5 } : {}) } as ChannelConfig, rules, env.queuePrefix));
      const chats = Array.from({ length: 6 }, (_, i) => destinationOf(telegram(`${i}:token`, `-100${i}`), DEFAULT_PACE, env.queuePrefix));
      const admissions = await Promise.all(destinations.map((destination) => pace.admit(destination as never, 2, 10_000)));
      expect(admissions.every((admission) => admission.permits.length === 2)).toBe(true);
      expect(await Promise.all(chats.map((destination) => pace.reserve(destination)))).toEqual(chats.map(() => 0));
      await Promise.all([
        ...destinations.map((destination, i) => pace.settle(destination as never, admissions[i]!.permits[0]!, 'ok', 10)),
        ...destinations.map((destination, i) => pace.renew(destination as never, admissions[i]!.permits.slice(1), 10_000)),
        ...chats.map((destination) => pace.block(destination, 1_000)),
        ...chats.map((destination) => pace.timedOut(destination, { timeouts: 3, openMs: 1_000, maxOpenMs: 2_000 })),
      ]);
    } finally {
      pipelining.disconnect();
    }
  });

  it('opens the circuit of a destination after consecutive time-outs, longer each time, and an answer starts the count again', async () => {
    const pace = createDestinationPace(redis);
    const destination = destinationOf(webhook('json', 'https://example.com/tarpit'), DEFAULT_PACE, env.queuePrefix);
    const rule = { timeouts: 3, openMs: 10_000, maxOpenMs: 25_000 };

    expect([await pace.timedOut(destination, rule), await pace.timedOut(destination, rule)]).toEqual([0, 0]);
    expect(await pace.reserve(destination)).toBe(0);
    expect(await pace.timedOut(destination, rule)).toBe(10_000);
    expect(await pace.reserve(destination)).toBeGreaterThan(9_000);
    // The probe after the opening timed out too: open twice as long, up to the longest opening.
    expect(await pace.timedOut(destination, rule)).toBe(20_000);
    expect(await pace.timedOut(destination, rule)).toBe(25_000);

    await pace.answered(destination);
    expect(await pace.timedOut(destination, rule)).toBe(0);
  });
});
