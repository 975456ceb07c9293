import { lookup } from 'node:dns/promises';
import { DEFAULT_HASHING_LIMITS, isPasswordHashingBusy, PasswordHashingBusyError } from './hashing-gate';
import { hashPassword, passwordHashingLoad, setPasswordHashingLimits, verifyPassword } from './passwords';

const settle = <T>(work: Promise<T>) => work.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));

describe('the password hashing gate', () => {
  afterEach(() => setPasswordHashingLimits(DEFAULT_HASHING_LIMITS));

  it('runs at most 2 hashes at once, below libuv’s 4 threads, whatever the burst', async () => {
    setPasswordHashingLimits(DEFAULT_HASHING_LIMITS);
    expect(DEFAULT_HASHING_LIMITS.concurrency).toBeLessThan(Number(process.env.UV_THREADPOOL_SIZE ?? 4));
    const stored = await hashPassword('a password of some length');
    const checks = Array.from({ length: 12 }, (_, n) => verifyPassword(n % 2 ? 'a password of some length' : `wrong ${n}`, stored));
    expect(passwordHashingLoad()).toMatchObject({ running: 2, waiting: 10 });
    const results = await Promise.all(checks);
    expect(results.filter(Boolean)).toHaveLength(6);
    expect(passwordHashingLoad()).toEqual({ running: 0, waiting: 0, peak: 2 });
  });

  it('leaves libuv threads for DNS: a lookup answers promptly while a burst of sign-ins is hashing', async () => {
    setPasswordHashingLimits(DEFAULT_HASHING_LIMITS);
    const started = Date.now();
    await hashPassword('one hash, to know what one costs here');
    const oneHashMs = Date.now() - started;
    const burst = Array.from({ length: 16 }, (_, n) => hashPassword(`burst ${n}`));
    // Let the burst reach the thread pool before the lookup asks for a thread.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const asked = Date.now();
    await lookup('localhost');
    const lookupMs = Date.now() - asked;
    await Promise.all(burst);
    // Without the gate, four hashes hold all four threads and the lookup waits about one hash; with it, it waits none.
    expect(lookupMs).toBeLessThan(Math.max(20, oneHashMs / 3));
  });

  it('refuses at once, with a retry delay, when the waiting line is full', async () => {
    setPasswordHashingLimits({ concurrency: 1, waiting: 2, retryAfterSeconds: 3 });
    const outcomes = await Promise.all(Array.from({ length: 5 }, (_, n) => settle(hashPassword(`line ${n}`))));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(3);
    const refused = outcomes.filter((outcome) => !outcome.ok).map((outcome) => (outcome as { error: unknown }).error);
    expect(refused).toHaveLength(2);
    for (const error of refused) {
      expect(isPasswordHashingBusy(error)).toBe(true);
      expect((error as PasswordHashingBusyError).retryAfterSeconds).toBe(3);
    }
    // The line drains: a hash asked for afterwards runs.
    await expect(hashPassword('after the burst')).resolves.toMatch(/^scrypt\$/);
  });
});
