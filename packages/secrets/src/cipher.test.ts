import { createCipher, generateSecretsKey, SecretsError } from './cipher';
import { generateApiKey, hashApiKey } from './tokens';

describe('createCipher', () => {
  const cipher = createCipher(generateSecretsKey());

  it('round-trips a value and never repeats a ciphertext', () => {
    const a = cipher.encrypt('123456:bot-token');
    const b = cipher.encrypt('123456:bot-token');
    expect(a).not.toBe(b);
    expect(a).not.toContain('bot-token');
    expect(cipher.decrypt(a)).toBe('123456:bot-token');
  });

  it('refuses a tampered ciphertext', () => {
    const sealed = cipher.encrypt('secret');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] ?? '', 'base64url');
    body[0] = (body[0] ?? 0) ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'))).toThrow(SecretsError);
  });

  it('refuses a value sealed with another key', () => {
    const other = createCipher(generateSecretsKey());
    expect(() => other.decrypt(cipher.encrypt('secret'))).toThrow(/authentication/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => createCipher(Buffer.alloc(16).toString('base64'))).toThrow(SecretsError);
  });

  it('refuses garbage', () => {
    expect(() => cipher.decrypt('plaintext')).toThrow(SecretsError);
  });
});

describe('tokens', () => {
  it('hashes API keys with SHA-256', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^hw_live_[A-Za-z0-9_-]{43}$/);
    expect(hashApiKey(key)).toHaveLength(32);
    expect(hashApiKey(key)).toEqual(hashApiKey(key));
    expect(hashApiKey(key)).not.toEqual(hashApiKey(`${key}x`));
  });
});

describe('createCipher with a previous key', () => {
  const previousKey = generateSecretsKey();
  const currentKey = generateSecretsKey();
  const old = createCipher(previousKey);

  it('opens a value sealed with the previous key and seals new values with the current one', () => {
    const keyring = createCipher(currentKey, previousKey);
    expect(keyring.decrypt(old.encrypt('123456:bot-token'))).toBe('123456:bot-token');
    const sealed = keyring.encrypt('whsec_new');
    expect(createCipher(currentKey).decrypt(sealed)).toBe('whsec_new');
    expect(() => old.decrypt(sealed)).toThrow(SecretsError);
  });

  it('still opens values sealed with the current key first', () => {
    const keyring = createCipher(currentKey, previousKey);
    expect(keyring.decrypt(createCipher(currentKey).encrypt('secret'))).toBe('secret');
  });

  it('refuses a value that neither key opens', () => {
    const keyring = createCipher(currentKey, previousKey);
    expect(() => keyring.decrypt(createCipher(generateSecretsKey()).encrypt('secret'))).toThrow(/authentication/);
  });

  it('refuses a previous key that is not 32 bytes', () => {
    expect(() => createCipher(currentKey, Buffer.alloc(16).toString('base64'))).toThrow(/previous secrets key must be 32 bytes/);
  });
});
