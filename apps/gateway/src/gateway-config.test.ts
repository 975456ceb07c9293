import { randomBytes } from 'node:crypto';
import { loadConfig } from '@hashwatch/config';
import { gatewayConfigSchema } from './gateway-config';

const key = randomBytes(32).toString('base64');

describe('the gateway configuration', () => {
  it('defaults to manual billing without auto-activation, PUBLIC_URL on localhost and no trusted proxy', () => {
    expect(loadConfig(gatewayConfigSchema, { SECRETS_KEY: key })).toMatchObject({
      PUBLIC_URL: 'http://localhost:3000',
      TRUST_PROXY: 0,
      BILLING_PROVIDER: 'manual',
      BILLING_AUTO_ACTIVATE: false,
    });
  });

  it('names every Stripe variable that BILLING_PROVIDER=stripe needs and misses', () => {
    expect(() => loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, BILLING_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow(
      /^invalid environment: STRIPE_WEBHOOK_SECRET is required when BILLING_PROVIDER=stripe; STRIPE_PRICE_STARTER .*; STRIPE_PRICE_PRO .*; STRIPE_PRICE_BUSINESS .*$/,
    );
    const stripe = { STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_PRICE_STARTER: 'price_a', STRIPE_PRICE_PRO: 'price_b', STRIPE_PRICE_BUSINESS: 'price_c' };
    expect(loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, BILLING_PROVIDER: 'stripe', ...stripe })).toMatchObject({ BILLING_PROVIDER: 'stripe', ...stripe });
  });

  it('names a bad BILLING_PROVIDER, PUBLIC_URL, TRUST_PROXY or BILLING_AUTO_ACTIVATE', () => {
    expect(() => loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, BILLING_PROVIDER: 'paypal' })).toThrow(/BILLING_PROVIDER/);
    expect(() => loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, PUBLIC_URL: 'ftp://x' })).toThrow(/PUBLIC_URL must be an http\(s\) URL/);
    expect(() => loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, BILLING_AUTO_ACTIVATE: 'maybe' })).toThrow(/BILLING_AUTO_ACTIVATE/);
  });

  it('opens the queue console only with both ADMIN_USER and ADMIN_PASSWORD, an empty one counting as unset', () => {
    const unset = loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, ADMIN_USER: '', ADMIN_PASSWORD: '' });
    expect([unset.ADMIN_USER, unset.ADMIN_PASSWORD]).toEqual([undefined, undefined]);
    expect(loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, ADMIN_USER: 'ops', ADMIN_PASSWORD: 'a long operator secret' })).toMatchObject({
      ADMIN_USER: 'ops',
      ADMIN_PASSWORD: 'a long operator secret',
    });
    expect(() => loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, ADMIN_USER: 'ops' })).toThrow(/ADMIN_PASSWORD is required with ADMIN_USER/);
    expect(() => loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, ADMIN_PASSWORD: 'a long operator secret', ADMIN_USER: '' })).toThrow(/ADMIN_USER is required/);
    expect(() => loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, ADMIN_USER: 'ops:root', ADMIN_PASSWORD: 'a long operator secret' })).toThrow(/ADMIN_USER must be 1 to 100 characters without ":"/);
  });

  it('refuses an ADMIN_PASSWORD under 12 characters, naming it', () => {
    for (const short of ['secret', 'elevenchars']) {
      expect(() => loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, ADMIN_USER: 'ops', ADMIN_PASSWORD: short })).toThrow(/ADMIN_PASSWORD must be at least 12 characters/);
    }
    expect(loadConfig(gatewayConfigSchema, { SECRETS_KEY: key, ADMIN_USER: 'ops', ADMIN_PASSWORD: 'twelve chars' }).ADMIN_PASSWORD).toBe('twelve chars');
  });
});
