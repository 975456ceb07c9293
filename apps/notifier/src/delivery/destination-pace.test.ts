import type { ChannelConfig } from '@hashwatch/channels';
import { createRedisConnection } from '@hashwatch/queues';
import { useTestEnvironment } from '@hashwatch/testing';
import { DEFAULT_PACE } from '../notifier-options';
import { createDestinationPace, destinationOf } from './destination-pace';

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
