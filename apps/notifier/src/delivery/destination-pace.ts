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
  /** Set while the destination asked us to wait (429 retry_after) or is failing. */
  blockKey: string;
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
    return { blockKey: `${chatKey}:block`, buckets };
  }
  const destKey = `${base}:${channel.kind}:{${hash(channel.url)}}`;
  return { blockKey: `${destKey}:block`, buckets: rules[channel.kind].map((rule, i) => ({ key: `${destKey}:${i}`, rule })) };
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

interface PaceCommands {
  hwPaceReserve(numKeys: number, ...args: (string | number)[]): Promise<number>;
  hwPaceBlock(key: string, ms: number): Promise<number>;
}

/** Per-destination pacing shared by every replica through Redis (a sliding window per rule). */
export interface DestinationPace {
  /** 0 when a message may be sent now (and it is counted), else how many milliseconds to wait. */
  reserve(destination: Destination): Promise<number>;
  /** Nothing is sent to the destination for `ms` (a 429's retry_after, a failure pause). */
  block(destination: Destination, ms: number): Promise<void>;
}

export function createDestinationPace(redis: RedisClient): DestinationPace {
  const commands = redis as unknown as RedisClient & PaceCommands;
  if (typeof commands.hwPaceReserve !== 'function') {
    redis.defineCommand('hwPaceReserve', { lua: RESERVE });
    redis.defineCommand('hwPaceBlock', { numberOfKeys: 1, lua: BLOCK });
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
  };
}
