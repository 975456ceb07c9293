import type { Express } from 'express';
import speakeasy from 'speakeasy';
import request from 'supertest';
import winston from 'winston';
import { createAccount, setSubscription } from '@hashwatch/accounts';
import { createLogger } from '@hashwatch/logger';
import type { PlanId } from '@hashwatch/plans';
import { createCipher, generateSecretsKey } from '@hashwatch/secrets';
import { useTestQueues, type TestQueues } from '@hashwatch/queues/testing';
import { useTestEnvironment, type TestEnvironment } from '@hashwatch/testing';
import { createApp } from '../app';
import type { GatewayDeps } from '../deps';
import type { SelfServiceOptions } from '../routes/session/self-service-options';

/** A dashboard session as a browser holds it: the cookie, and the CSRF token for unsafe requests. */
export interface BrowserSession {
  accountId: string;
  cookie: string;
  csrf: string;
  /** Headers of an unsafe request of this session. */
  headers: { Cookie: string; 'X-CSRF-Token': string };
}

export interface GatewayHarness {
  readonly env: TestEnvironment;
  /** The file's queues, when the queue console is on (`useGateway({ queueConsole })`). */
  readonly queues: TestQueues | undefined;
  readonly app: Express;
  readonly deps: GatewayDeps;
  /** Log lines the gateway wrote, as parsed JSON. */
  readonly logs: Record<string, unknown>[];
  /** A fresh account with its API key. */
  account(plan?: PlanId): Promise<{ accountId: string; apiKey: string; auth: { Authorization: string } }>;
  /** Sets the clock the gateway reads; null returns to real time. */
  setNow(date: Date | null): void;
  /**
   * Turns 2FA on for the account (set-up, then confirmation) with the clock set to `t0`, 5 s into a TOTP step,
   * and answers the secret, `t0` and the recovery codes: a test moves on to `t0 + 30 s` for a code not yet used. With an
   * API key, only on an account without a dashboard password (`account()`'s).
   */
  enableTwoFactor(auth: { Authorization: string } | BrowserSession['headers']): Promise<{ secret: string; t0: Date; recoveryCodes: string[] }>;
  /** Checks out (manual billing) and, with `activate`, activates the subscription as an operator would. */
  checkout(input: { email: string; password: string; plan?: PlanId }, activate?: boolean): Promise<{ checkoutId: string; url: string; accountId: string }>;
  /** Forgets every rate-limit count of this file's queue prefix (every test here comes from one address). */
  resetLimits(): Promise<void>;
  /** Signs in (no 2FA) and reads the session: the cookie and CSRF token a browser would hold. */
  signIn(email: string, password: string): Promise<BrowserSession>;
}

/** The `hw_session` cookie a response set, as a Cookie header value. */
export function sessionCookieOf(res: { headers: Record<string, unknown> }): string {
  const setCookie = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  const cookie = setCookie.find((line) => line.startsWith('hw_session='));
  if (!cookie) throw new Error(`no hw_session cookie in ${JSON.stringify(setCookie)}`);
  return cookie.split(';')[0] as string;
}

/** The TOTP code of `secret` at `date`, as an authenticator app shows it. */
export const codeAt = (secret: string, date: Date): string => speakeasy.totp({ secret, encoding: 'base32', time: date.getTime() / 1000 });

/** Checks out (manual billing) and, with `activate`, activates the subscription as an operator would. */
async function checkoutThrough(app: Express, env: TestEnvironment, input: { email: string; password: string; plan?: PlanId }, activate: boolean) {
  const res = await request(app).post('/v1/api/checkout').send({ plan: 'starter', ...input }).expect(201);
  const { rows } = await env.database.db.pool.query<{ user_id: string }>('SELECT user_id FROM checkouts WHERE id = $1', [res.body.checkout_id]);
  const accountId = rows[0]?.user_id as string;
  if (activate) await setSubscription(env.database.db.prisma, accountId, { status: 'active', periodEnd: new Date(Date.now() + 30 * 86_400_000) });
  return { checkoutId: res.body.checkout_id as string, url: res.body.url as string, accountId };
}

/** Signs in (no 2FA) and reads the session, as a browser would. */
async function signInThrough(app: Express, email: string, password: string): Promise<BrowserSession> {
  const signedIn = await request(app).post('/v1/session').send({ email, password }).expect(200);
  const cookie = sessionCookieOf(signedIn);
  const session = await request(app).get('/v1/session').set('Cookie', cookie).expect(200);
  const csrf = session.body.csrf_token as string;
  return { accountId: session.body.account_id as string, cookie, csrf, headers: { Cookie: cookie, 'X-CSRF-Token': csrf } };
}

/** A gateway on the file's own database and queue prefix, with every response checked against its schema. */
export function useGateway(
  options: { selfService?: (env: TestEnvironment) => SelfServiceOptions; queueConsole?: { user: string; password: string } } = {},
): GatewayHarness {
  const env = useTestEnvironment();
  const testQueues = options.queueConsole ? useTestQueues(env) : undefined;
  const logs: Record<string, unknown>[] = [];
  let app: Express | undefined;
  let deps: GatewayDeps | undefined;
  let fixedNow: Date | null = null;
  let counter = 0;
  const requireApp = (): Express => {
    if (!app) throw new Error('the gateway exists only inside tests and hooks');
    return app;
  };

  beforeAll(() => {
    const transport = new winston.transports.Stream({
      stream: new (require('node:stream').Writable)({
        write(chunk: Buffer, _encoding: string, callback: () => void) {
          logs.push(JSON.parse(String(chunk)) as Record<string, unknown>);
          callback();
        },
      }),
    });
    const secretsKey = generateSecretsKey();
    deps = {
      db: env.database.db,
      redis: env.redis,
      logger: createLogger('gateway', { level: 'info', transports: [transport] }),
      cipher: createCipher(secretsKey),
      secretsKey,
      keyPrefix: env.queuePrefix,
      now: () => fixedNow ?? new Date(),
      validateResponses: true,
      ...(options.selfService ? { selfService: options.selfService(env) } : {}),
      ...(options.queueConsole && testQueues ? { queueConsole: { credentials: options.queueConsole, queues: testQueues.queues } } : {}),
    };
    app = createApp(deps);
  });

  return {
    env,
    queues: testQueues,
    logs,
    get app() {
      if (!app) throw new Error('the gateway exists only inside tests and hooks');
      return app;
    },
    get deps() {
      if (!deps) throw new Error('the gateway exists only inside tests and hooks');
      return deps;
    },
    async account(plan: PlanId = 'starter') {
      counter += 1;
      const created = await createAccount(env.database.db.prisma, { email: `user${counter}-${Date.now()}@example.com`, planId: plan });
      return { ...created, auth: { Authorization: `Bearer ${created.apiKey}` } };
    },
    setNow(date) {
      fixedNow = date;
    },
    async enableTwoFactor(auth) {
      if (!app) throw new Error('the gateway exists only inside tests and hooks');
      const t0 = new Date(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
      fixedNow = t0;
      const setup = await request(app).post('/v1/2fa/enable').set(auth).send({}).expect(200);
      const secret = setup.body.secret as string;
      const enabled = await request(app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(secret, t0) }).expect(200);
      return { secret, t0, recoveryCodes: enabled.body.recovery_codes as string[] };
    },
    checkout: (input, activate = false) => checkoutThrough(requireApp(), env, input, activate),
    async resetLimits() {
      const keys = await env.redis.keys(`${env.queuePrefix}:rl:*`);
      if (keys.length > 0) await env.redis.unlink(...keys);
    },
    signIn: (email, password) => signInThrough(requireApp(), email, password),
  };
}

export { request };
