import { burnPasswordCheck, hashPassword, needsRehash, verifyPassword } from './passwords';

describe('passwords', () => {
  it('hashes with scrypt and a random salt, and verifies only the same password', async () => {
    const first = await hashPassword('correct horse battery staple');
    const second = await hashPassword('correct horse battery staple');
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    expect(first).not.toContain('horse');
    await expect(verifyPassword('correct horse battery staple', first)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapler', first)).resolves.toBe(false);
    await expect(verifyPassword('', first)).resolves.toBe(false);
  });

  it('treats canonically equal Unicode spellings as one password', async () => {
    const composed = await hashPassword('caf\u00e9 au lait 12345');
    await expect(verifyPassword('cafe\u0301 au lait 12345', composed)).resolves.toBe(true);
  });

  it('never matches a missing or malformed hash, and still spends a full hash on it', async () => {
    const stored = await hashPassword('some long password');
    // CPU time of the process (scrypt runs on libuv's threads, which it counts), not wall time: a loaded machine
    // stretches wall time unevenly, the work done stays the same.
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    const started = process.cpuUsage();
    await expect(verifyPassword('some long password', null)).resolves.toBe(false);
    const missingMs = cpuMs(started);
    await expect(verifyPassword('some long password', 'scrypt$1$1$1$x')).resolves.toBe(false);
    await expect(verifyPassword('some long password', stored.replace(/\$[^$]+$/, '$AAAA'))).resolves.toBe(false);
    const timed = process.cpuUsage();
    await burnPasswordCheck('some long password');
    await verifyPassword('some long password', stored);
    const realMs = cpuMs(timed) / 2;
    // Same work either way: within a factor of 3, and a skipped hash (~0 ms) fails.
    expect(missingMs).toBeGreaterThan(realMs / 3);
  });

  it('asks for a new hash when the stored one used other parameters', async () => {
    expect(needsRehash(await hashPassword('some long password'))).toBe(false);
    expect(needsRehash('scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaA')).toBe(true);
    expect(needsRehash('bcrypt$whatever')).toBe(true);
  });
});
