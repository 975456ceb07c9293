import { createHash } from 'node:crypto';
import type { RedisClient } from '@hashwatch/queues';
import type { ChannelConfig } from '@hashwatch/channels';
import type { PaceRule, PaceRules } from '../notifier-options';

/** One bucket of a destination: a Redis key and the rule it enforces. */
export interface PaceBucket {
  key: string;
  rule: PaceRule;
}

/** Where a channel's messages land, as far as the platform's limits are concerned. */
export interface Destination {
  /** Set while the destination asked us to wait (429 retry_after), is failing, or its circuit is open. */
  blockKey: string;
  /** Consecutive time-outs of the destination, for its circuit (same hash tag as the block key). */
  timeoutsKey: string;
  buckets: PaceBucket[];
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/**
 * The pace buckets of a channel. Keys hash the destination, never the channel id: two channels (or two
 * accounts) posting to the same webhook or chat share its budget, as the platform counts it. The hashes keep
 * webhook tokens and bot tokens out of Redis key names. One reserve script reads every key of a destination,
 * so they share a hash tag (one slot on a Redis Cluster): the URL's hash, or for Telegram the bot token's,
 * since a chat's buckets and its bot's are read together.
 */
export function destinationOf(channel: ChannelConfig, rules: PaceRules, prefix: string): Destination {
  const base = `${prefix}:notifier:pace`;
  if (channel.kind === 'telegram') {
    const token = channel.botToken;
    const chat = channel.chatId;
    const bot = `{${hash(token)}}`;
    const chatKey = `${base}:telegram:${bot}:${hash(`${token}\n${chat}`)}`;
    // Groups and supergroups have negative ids; @username chats are channels, paced like groups to be safe.
    const group = chat.startsWith('-') || chat.startsWith('@');
    const buckets = [
      ...rules.telegramChat.map((rule, i) => ({ key: `${chatKey}:c${i}`, rule })),
      ...(group ? rules.telegramGroup.map((rule, i) => ({ key: `${chatKey}:g${i}`, rule })) : []),
      ...rules.telegramBot.map((rule, i) => ({ key: `${base}:telegram-bot:${bot}:b${i}`, rule })),
    ];
    return { blockKey: `${chatKey}:block`, timeoutsKey: `${chatKey}:timeouts`, buckets };
  }
  const destKey = `${base}:${channel.kind}:{${hash(channel.url)}}`;
  return { blockKey: `${destKey}:block`, timeoutsKey: `${destKey}:timeouts`, buckets: rules[channel.kind].map((rule, i) => ({ key: `${destKey}:${i}`, rule })) };
}

// KEYS[1]: block key; KEYS[2..]: one list per rule holding the send times of the last `limit` messages,
// newest first. ARGV: limit and window of each rule. Answers 0 and records a send when every rule allows
// one now, else the milliseconds to wait (and records nothing). Redis's clock is the one all replicas share.
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = 0
local blocked = tonumber(redis.call('GET', KEYS[1]) or '0')
if blocked > now then wait = blocked - now end
for i = 2, #KEYS do
  local limit = tonumber(ARGV[(i - 2) * 2 + 1])
  local window = tonumber(ARGV[(i - 2) * 2 + 2])
  local stamp = redis.call('LINDEX', KEYS[i], limit - 1)
  if stamp then
    local w = tonumber(stamp) + window - now
    if w > wait then wait = w end
  end
end
if wait > 0 then return wait end
for i = 2, #KEYS do
  local limit = tonumber(ARGV[(i - 2) * 2 + 1])
  local window = tonumber(ARGV[(i - 2) * 2 + 2])
  redis.call('LPUSH', KEYS[i], now)
  redis.call('LTRIM', KEYS[i], 0, limit - 1)
  redis.call('PEXPIRE', KEYS[i], window)
end
return 0`;

// KEYS[1]: block key. ARGV[1]: milliseconds. Extends the block, never shortens it.
const BLOCK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > current then redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1])) end
return untilMs`;

// KEYS[1]: block key, KEYS[2]: the destination's consecutive time-outs. ARGV: threshold, first open time, longest
// open time. Counts one more time-out; from the threshold on, opens the circuit (extends the block, never shortens
// it) for the first open time doubled per time-out past the threshold, capped. The count lives as long as the
// longest opening twice over, so the probe that times out after an opening counts on from where it was.
// Answers how long the circuit opened, or 0.
const TRIP = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local threshold = tonumber(ARGV[1])
local openMs = tonumber(ARGV[2])
local maxMs = tonumber(ARGV[3])
local count = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], maxMs * 2)
if count < threshold then return 0 end
local open = math.min(maxMs, openMs * 2 ^ math.min(count - threshold, 30))
local untilMs = now + open
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > current then redis.call('SET', KEYS[1], untilMs, 'PX', open) end
return open`;

/** When a destination's circuit opens: after `timeouts` consecutive time-outs, for `openMs` doubling up to `maxOpenMs`. */
export interface CircuitRule {
  timeouts: number;
  openMs: number;
  maxOpenMs: number;
}

interface PaceCommands {
  hwPaceReserve(numKeys: number, ...args: (string | number)[]): Promise<number>;
  hwPaceBlock(key: string, ms: number): Promise<number>;
  hwPaceTrip(blockKey: string, timeoutsKey: string, threshold: number, openMs: number, maxOpenMs: number): Promise<number>;
}

/** Per-destination pacing shared by every replica through Redis (a sliding window per rule). */
export interface DestinationPace {
  /** 0 when a message may be sent now (and it is counted), else how many milliseconds to wait. */
  reserve(destination: Destination): Promise<number>;
  /** Nothing is sent to the destination for `ms` (a 429's retry_after, a failure pause). */
  block(destination: Destination, ms: number): Promise<void>;
  /**
   * Counts a send to the destination that timed out. After `rule.timeouts` in a row its circuit opens: nothing is
   * sent to it (on any replica: the block is in Redis) for the answered milliseconds, then one send probes it.
   * Answers 0 while the circuit stays closed.
   */
  timedOut(destination: Destination, rule: CircuitRule): Promise<number>;
  /** The destination answered: its time-outs start again from none. */
  answered(destination: Destination): Promise<void>;
}

export function createDestinationPace(redis: RedisClient): DestinationPace {
  const commands = redis as unknown as RedisClient & PaceCommands;
  if (typeof commands.hwPaceReserve !== 'function') {
    redis.defineCommand('hwPaceReserve', { lua: RESERVE });
    redis.defineCommand('hwPaceBlock', { numberOfKeys: 1, lua: BLOCK });
    redis.defineCommand('hwPaceTrip', { numberOfKeys: 2, lua: TRIP });
  }
  return {
    async reserve(destination) {
      const keys = [destination.blockKey, ...destination.buckets.map((bucket) => bucket.key)];
      const args = destination.buckets.flatMap((bucket) => [bucket.rule.limit, bucket.rule.windowMs]);
      return Number(await commands.hwPaceReserve(keys.length, ...keys, ...args));
    },
    async block(destination, ms) {
      if (ms <= 0) return;
      await commands.hwPaceBlock(destination.blockKey, Math.ceil(ms));
    },
    async timedOut(destination, rule) {
      return Number(await commands.hwPaceTrip(destination.blockKey, destination.timeoutsKey, rule.timeouts, rule.openMs, rule.maxOpenMs));
    },
    async answered(destination) {
      await redis.del(destination.timeoutsKey);
    },
  };
}
