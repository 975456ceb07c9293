import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { DEFAULT_HASHING_LIMITS, HashingGate, type HashingGateLimits } from './hashing-gate';

/**
 * scrypt cost: N = 2^15 (32 MiB of memory per hash), r = 8, p = 1 — measured at 50–150 ms of CPU per hash on the
 * machines docs/BENCHMARKS.md names (bench/session-auth.ts). The parameters are stored in each hash, so raising them
 * later re-hashes each password at its next sign-in (`needsRehash`).
 */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
// 128 * N * r bytes, plus headroom: Node refuses a scrypt whose memory exceeds maxmem (default 32 MiB).
const MAX_MEMORY = 256 * 1024 * 1024;
const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

let gate = new HashingGate(DEFAULT_HASHING_LIMITS);

/** Replaces the limits of the hashing gate (tests; a process that must hash faster). Hashes already admitted finish. */
export function setPasswordHashingLimits(limits: HashingGateLimits): void {
  gate = new HashingGate(limits);
}

/** The hashing gate's load: running, waiting, and the most ever run at once. */
export function passwordHashingLoad(): { running: number; waiting: number; peak: number } {
  return gate.load();
}

/**
 * Every hash goes through the gate: at most 2 at once on libuv's 4 threads, a bounded line behind them, and
 * PasswordHashingBusyError (503 Retry-After) past it.
 */
function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }, length: number): Promise<Buffer> {
  return gate.run(() => deriveNow(password, salt, cost, length));
}

function deriveNow(password: string, salt: Buffer, cost: { N: number; r: number; p: number }, length: number): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) => {
    // The asynchronous form runs on libuv's thread pool: a sign-in never blocks the event loop.
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url): all a later check needs, and nothing that reveals the password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST, KEY_BYTES);
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * True when `password` matches `stored`. A malformed or missing hash never matches, but still costs one full
 * hash, so a wrong password and an account without one take the same time.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = stored === null ? null : FORMAT.exec(stored);
  if (!parsed) {
    await derive(password, randomBytes(SALT_BYTES), COST, KEY_BYTES);
    return false;
  }
  const [, n, r, p, salt, hash] = parsed as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) }, expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** True when `stored` was made with other parameters than today's: hash the password again after a sign-in. */
export function needsRehash(stored: string): boolean {
  const parsed = FORMAT.exec(stored);
  return !parsed || Number(parsed[1]) !== COST.N || Number(parsed[2]) !== COST.r || Number(parsed[3]) !== COST.p;
}

/** Spends the time of one hash without a result: the answer to an unknown email takes as long as a wrong password. */
export async function burnPasswordCheck(password: string): Promise<void> {
  await verifyPassword(password, null);
}
