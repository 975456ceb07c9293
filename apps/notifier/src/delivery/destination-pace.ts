import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from '@hashwatch/queues';
import type { ChannelConfig } from '@hashwatch/channels';
import type { PaceRule, PaceRules, WindowRule } from '../notifier-options';

/** One bucket of a destination: a Redis key and the rule it enforces. */
export interface PaceBucket {
  key: string;
  rule: PaceRule;
}

/**
 * The adaptive window of a receiver that sets no limit of its own (json webhooks): how many requests may be in flight
 * to it at once, across replicas, grown while it answers quickly and cut on its signals (see ADMIT and SETTLE).
 */
export interface ReceiverWindow {
  /** A hash: `limit` (fractional), `ssthresh`, `base` (the receiver's quick answer time, ms), `cut` (ms). */
  stateKey: string;
  /** A sorted set of the permits in flight, each scored by when it lapses (a killed replica's permits lapse). */
  flightKey: string;
  rule: WindowRule;
}

/** Where a channel's messages land, as far as the platform's limits are concerned. */
export interface Destination {
  /** Set while the destination asked us to wait (429 retry_after), is failing, or its circuit is open. */
  blockKey: string;
  /** Consecutive time-outs of the destination, for its circuit (same hash tag as the block key). */
  timeoutsKey: string;
  /** Rate rules: a platform's published limits, or a json webhook's own `max_per_second` ceiling. */
  buckets: PaceBucket[];
  /** Json webhooks only: sends go out as many at once as the receiver's window allows (admit/settle). */
  window?: ReceiverWindow;
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
  const blockKey = `${destKey}:block`;
  const timeoutsKey = `${destKey}:timeouts`;
  if (channel.kind === 'json') {
    // The receiver's own ceiling, when it set one, on top of the rules every json receiver has (none by default).
    const ceiling = channel.maxPerSecond ? [{ limit: channel.maxPerSecond, windowMs: 1_000 }] : [];
    const buckets = [...rules.json, ...ceiling].map((rule, i) => ({ key: `${destKey}:${i}`, rule }));
    // The ceiling's bucket is named by its value: a changed ceiling starts a fresh count.
    if (ceiling.length > 0) buckets[buckets.length - 1]!.key = `${destKey}:max${channel.maxPerSecond}`;
    return { blockKey, timeoutsKey, buckets, window: { stateKey: `${destKey}:window`, flightKey: `${destKey}:flight`, rule: rules.jsonWindow } };
  }
  return { blockKey, timeoutsKey, buckets: rules[channel.kind].map((rule, i) => ({ key: `${destKey}:${i}`, rule })) };
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

// KEYS[1]: block key, KEYS[2]: window state, KEYS[3]: permits in flight, KEYS[4..]: rate buckets (as in RESERVE).
// ARGV: wanted, permit lifetime (ms), initial window, permit name prefix, then limit and window of each bucket.
// Admits up to `wanted` sends: as many as the block, every rate bucket and the window's free room allow. Answers
// {admitted, wait, window}: `wait` (ms) when the block or a bucket holds everything back; admitted 0 with no wait
// when the window is full (sends in flight free it as they settle). Admitted sends are counted in every bucket,
// and each holds a permit `<prefix>:<i>` in the window until SETTLE or its lifetime ends (the set itself lives as
// long as its longest permit).
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local wait = 0
local blocked = tonumber(redis.call('GET', KEYS[1]) or '0')
if blocked > now then wait = blocked - now end
for i = 4, #KEYS do
  local limit = tonumber(ARGV[(i - 4) * 2 + 5])
  local window = tonumber(ARGV[(i - 4) * 2 + 6])
  local stamps = redis.call('LRANGE', KEYS[i], 0, limit - 1)
  local used = 0
  for _, stamp in ipairs(stamps) do
    if tonumber(stamp) + window > now then used = used + 1 end
  end
  if used >= limit then
    local w = tonumber(stamps[limit]) + window - now
    if w > wait then wait = w end
  elseif limit - used < n then
    n = limit - used
  end
end
if wait > 0 then return {0, wait, 0} end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local limit = math.floor(tonumber(redis.call('HGET', KEYS[2], 'limit') or ARGV[3]))
local free = limit - redis.call('ZCARD', KEYS[3])
if free < n then n = free end
if n <= 0 then return {0, 0, limit} end
for i = 1, n do
  redis.call('ZADD', KEYS[3], now + ttl, ARGV[4] .. ':' .. i)
end
local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[3], tonumber(last[2]))
for i = 4, #KEYS do
  local limit = tonumber(ARGV[(i - 4) * 2 + 5])
  local window = tonumber(ARGV[(i - 4) * 2 + 6])
  for _ = 1, n do redis.call('LPUSH', KEYS[i], now) end
  redis.call('LTRIM', KEYS[i], 0, limit - 1)
  redis.call('PEXPIRE', KEYS[i], window)
end
return {n, 0, limit}`;

// KEYS[1]: window state, KEYS[2]: permits in flight. ARGV: the permit, the signal (ok, slow is judged here, or
// backoff: a 429, a 5xx, a time-out, a refused connection; unused only frees the permit), the send's latency (ms),
// then the rule: initial window, largest window, slow factor, slow margin (ms), idle lifetime (ms), base lifetime
// (ms). Frees the permit and adapts the window as TCP adapts its congestion window: +1 per quick answer while below
// ssthresh (the window doubles each round trip), +1/window above it; halved on backoff, cut by a fifth on a slow
// answer (latency over base x factor + margin), each at most once per round trip: a send that started before the
// last cut does not cut again. `base` is the quickest answer of the last base lifetime (then the next answer
// starts it again), so a receiver that became slower for good is judged by its new speed after a while. State
// unused for the idle lifetime is forgotten: the receiver starts over. Answers the window, times 1000.
const SETTLE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] == 'unused' then return math.floor(tonumber(redis.call('HGET', KEYS[1], 'limit') or ARGV[4]) * 1000) end
local latency = tonumber(ARGV[3])
local initial = tonumber(ARGV[4])
local largest = tonumber(ARGV[5])
local state = redis.call('HMGET', KEYS[1], 'limit', 'ssthresh', 'base', 'cut', 'baseAt')
local limit = tonumber(state[1] or initial)
local ssthresh = tonumber(state[2] or largest)
local base = tonumber(state[3] or latency)
local cut = tonumber(state[4] or '0')
local baseAt = tonumber(state[5] or now)
local signal = ARGV[2]
if signal == 'ok' then
  if latency <= base or now - baseAt > tonumber(ARGV[9]) then
    base = latency
    baseAt = now
  end
  if latency > base * tonumber(ARGV[6]) + tonumber(ARGV[7]) then signal = 'slow' end
end
if signal == 'ok' then
  if limit < ssthresh then limit = limit + 1 else limit = limit + 1 / limit end
  if limit > largest then limit = largest end
elseif now - latency > cut then
  if signal == 'slow' then limit = limit * 0.8 else limit = limit / 2 end
  if limit < 1 then limit = 1 end
  ssthresh = limit
  cut = now
end
redis.call('HSET', KEYS[1], 'limit', tostring(limit), 'ssthresh', tostring(ssthresh), 'base', tostring(base), 'cut', tostring(cut), 'baseAt', tostring(baseAt))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[8]))
return math.floor(limit * 1000)`;

// KEYS[1]: permits in flight. ARGV: permit lifetime (ms), then permits. Extends the permits still held (a permit that
// lapsed or was settled meanwhile stays gone) to now + lifetime. Answers how many it extended.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
local renewed = 0
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
    renewed = renewed + 1
  end
end
if renewed > 0 then
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', KEYS[1], tonumber(last[2]))
end
return renewed`;

/** When a destination's circuit opens: after `timeouts` consecutive time-outs, for `openMs` doubling up to `maxOpenMs`. */
export interface CircuitRule {
  timeouts: number;
  openMs: number;
  maxOpenMs: number;
}

interface PaceCommands {
  hwPaceSettle(stateKey: string, flightKey: string, ...args: (string | number)[]): Promise<number>;
  hwPaceRenew(flightKey: string, ...args: (string | number)[]): Promise<number>;
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
  /**
   * A destination with a window: admits up to `wanted` sends at once (see {@link Admission}). Each admitted send
   * holds its permit until {@link settle}, or `permitMs` when its replica died.
   */
  admit(destination: Destination & { window: ReceiverWindow }, wanted: number, permitMs: number): Promise<Admission>;
  /** Frees an admitted send's permit and adapts the window to how it went; answers the window (fractional). */
  settle(destination: Destination & { window: ReceiverWindow }, permit: string, signal: WindowSignal, latencyMs: number): Promise<number>;
  /** Keeps permits of sends still in flight for another `permitMs`, so only a dead sender's permits lapse. */
  renew(destination: Destination & { window: ReceiverWindow }, permits: string[], permitMs: number): Promise<void>;
}

/**
 * How a send to a windowed destination went: answered (judged quick or slow by its latency), a sign to back off,
 * or never sent (the permit is only freed).
 */
export type WindowSignal = 'ok' | 'backoff' | 'unused';

export interface Admission {
  /** The permits of the sends admitted now, one per send (possibly none). */
  permits: string[];
  /** When none was admitted: how long the block or a rate bucket holds the destination back; 0 when the window is full. */
  waitMs: number;
  /** The window's size when asked (sends allowed in flight at once). */
  window: number;
}

type ScriptCall = (...keysThenArgs: (string | number)[]) => Promise<unknown>;

// The most rate buckets one destination has (Telegram: chat, group, bot; json: its rules and its ceiling), with room.
const MAX_BUCKETS = 6;

/**
 * The scripts whose key count depends on the destination's buckets are defined once per count, with that count fixed
 * (`hwPaceReserve3`, …): ioredis's auto-pipelining on a Redis Cluster groups a command by its first argument, which
 * must then be its first key, not a key count (a pipeline of the wrong slot group fails as a whole). All are defined
 * up front: an auto-pipeline takes the scripts defined when it was created.
 */
function defineByKeyCount(redis: RedisClient, name: string, lua: string, fixedKeys: number): void {
  for (let buckets = 0; buckets <= MAX_BUCKETS; buckets += 1) redis.defineCommand(`${name}${fixedKeys + buckets}`, { numberOfKeys: fixedKeys + buckets, lua });
}

function byKeyCount(redis: RedisClient, name: string, keys: number): ScriptCall {
  const command = (redis as unknown as Record<string, ScriptCall | undefined>)[`${name}${keys}`];
  if (typeof command !== 'function') throw new Error(`${name}: a destination with ${keys} keys has more than ${MAX_BUCKETS} rate buckets`);
  return (...keysThenArgs) => command.apply(redis, keysThenArgs);
}

export function createDestinationPace(redis: RedisClient): DestinationPace {
  const commands = redis as unknown as RedisClient & PaceCommands;
  if (typeof commands.hwPaceBlock !== 'function') {
    defineByKeyCount(redis, 'hwPaceReserve', RESERVE, 1);
    defineByKeyCount(redis, 'hwPaceAdmit', ADMIT, 3);
    redis.defineCommand('hwPaceBlock', { numberOfKeys: 1, lua: BLOCK });
    redis.defineCommand('hwPaceTrip', { numberOfKeys: 2, lua: TRIP });
    redis.defineCommand('hwPaceSettle', { numberOfKeys: 2, lua: SETTLE });
    redis.defineCommand('hwPaceRenew', { numberOfKeys: 1, lua: RENEW });
  }
  return {
    async reserve(destination) {
      const keys = [destination.blockKey, ...destination.buckets.map((bucket) => bucket.key)];
      const args = destination.buckets.flatMap((bucket) => [bucket.rule.limit, bucket.rule.windowMs]);
      return Number(await byKeyCount(redis, 'hwPaceReserve', keys.length)(...keys, ...args));
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
    async admit(destination, wanted, permitMs) {
      const { window } = destination;
      const keys = [destination.blockKey, window.stateKey, window.flightKey, ...destination.buckets.map((bucket) => bucket.key)];
      const prefix = randomBytes(9).toString('base64url');
      const args = [wanted, Math.ceil(permitMs), window.rule.initial, prefix, ...destination.buckets.flatMap((bucket) => [bucket.rule.limit, bucket.rule.windowMs])];
      const [admitted, waitMs, size] = (await byKeyCount(redis, 'hwPaceAdmit', keys.length)(...keys, ...args)) as [number, number, number];
      return { permits: Array.from({ length: Number(admitted) }, (_, i) => `${prefix}:${i + 1}`), waitMs: Number(waitMs), window: Number(size) };
    },
    async settle(destination, permit, signal, latencyMs) {
      const { rule, stateKey, flightKey } = destination.window;
      const scaled = await commands.hwPaceSettle(stateKey, flightKey, permit, signal, Math.max(0, Math.round(latencyMs)), rule.initial, rule.max, rule.slowFactor, rule.slowMarginMs, rule.idleMs, rule.baseLifetimeMs);
      return Number(scaled) / 1000;
    },
    async renew(destination, permits, permitMs) {
      if (permits.length === 0) return;
      await commands.hwPaceRenew(destination.window.flightKey, Math.ceil(permitMs), ...permits);
    },
  };
}
