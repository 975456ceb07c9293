/// <reference types="node" />
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createClient, type HashwatchClient } from '@hashwatch/sdk';
import { gateway, nodeFetch } from './browser-fetch';
import { entryPoint, REPO_ROOT } from './server-tools';
import { stepNow, totp } from './totp';

export interface TestAccount {
  id: string;
  email: string;
  password: string;
  /** The first API key, printed by account:create. */
  apiKey: string;
  /** Set once 2FA is on: the base32 secret an authenticator app holds. */
  totpSecret?: string;
}

/** The built admin CLI against the run's database (what `npm run admin --` runs); its JSON answer. */
function admin(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [entryPoint('admin'), ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'warn' }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`admin ${args[0]} failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout) as Record<string, unknown>);
      },
    );
  });
}

/** An active account on `plan` with a dashboard password, as an operator makes one (account:create, account:password). */
export async function createAccount(plan: 'starter' | 'pro' | 'business'): Promise<TestAccount> {
  const email = `dash-${randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const created = await admin(['account:create', '--email', email, '--plan', plan]);
  const id = String(created.account_id);
  await admin(['account:password', '--account', id, '--password', password]);
  return { id, email, password, apiKey: String(created.api_key) };
}

/** The account's backend: the SDK with its API key, straight to the gateway. */
export function backendOf(apiKey: string): HashwatchClient {
  return createClient({ baseUrl: gateway('/').replace(/\/$/, ''), apiKey, fetch: nodeFetch, maxRateLimitWaitMs: 0 });
}

/** A session of its own (not the page's): signs in, and answers a client sending its cookie and CSRF token. */
async function sessionOf(account: TestAccount): Promise<HashwatchClient> {
  const signIn = await nodeFetch(gateway('/v1/session'), {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: account.email, password: account.password }),
  });
  const cookie = signIn.headers.getSetCookie().map((line) => line.split(';')[0] ?? '').find((pair) => pair.startsWith('hw_session='));
  if (!signIn.ok || !cookie) throw new Error(`sign-in of ${account.email} answered ${signIn.status}`);
  const withCookie: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    request.headers.set('cookie', cookie);
    return nodeFetch(request);
  };
  const session = await createClient({ baseUrl: gateway('/').replace(/\/$/, ''), fetch: withCookie }).get('/v1/session');
  return createClient({ baseUrl: gateway('/').replace(/\/$/, ''), fetch: withCookie, csrfToken: () => session.csrf_token });
}

/**
 * Turns 2FA on as the Security page does (a secret, then a code of it). The code confirming it is the current
 * step's, so the next code the gateway takes is the next step's: `nextCode` answers it.
 */
export async function enableTwoFactor(account: TestAccount): Promise<TestAccount & { totpSecret: string }> {
  const client = await sessionOf(account);
  const setup = await client.post('/v1/2fa/enable', { body: {} });
  if (!('secret' in setup)) throw new Error('2FA setup answered no secret');
  await client.post('/v1/2fa/enable', { body: { code: totp(setup.secret, stepNow()) } });
  await client.delete('/v1/session');
  return { ...account, totpSecret: setup.secret };
}

/** A code the gateway has not seen yet for this account: the next step's (±1 step of drift is accepted). */
export const nextCode = (secret: string): string => totp(secret, stepNow(1));
