import type { Express } from 'express';
import speakeasy from 'speakeasy';
import request from 'supertest';
import winston from 'winston';
import { createAccount } from '@hashwatch/accounts';
import { createLogger } from '@hashwatch/logger';
import type { PlanId } from '@hashwatch/plans';
import { createCipher, generateSecretsKey } from '@hashwatch/secrets';
import { useTestEnvironment, type TestEnvironment } from '@hashwatch/testing';
import { createApp } from '../app';
import type { GatewayDeps } from '../deps';

export interface GatewayHarness {
  readonly env: TestEnvironment;
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
   * and answers the secret and `t0`: a test moves on to `t0 + 30 s` for a code not yet used.
   */
  enableTwoFactor(auth: { Authorization: string }): Promise<{ secret: string; t0: Date }>;
}

/** The TOTP code of `secret` at `date`, as an authenticator app shows it. */
export const codeAt = (secret: string, date: Date): string => speakeasy.totp({ secret, encoding: 'base32', time: date.getTime() / 1000 });

/** A gateway on the file's own database and queue prefix, with every response checked against its schema. */
export function useGateway(): GatewayHarness {
  const env = useTestEnvironment();
  const logs: Record<string, unknown>[] = [];
  let app: Express | undefined;
  let deps: GatewayDeps | undefined;
  let fixedNow: Date | null = null;
  let counter = 0;

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
    };
    app = createApp(deps);
  });

  return {
    env,
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
      await request(app).post('/v1/2fa/enable').set(auth).send({ code: codeAt(secret, t0) }).expect(200);
      return { secret, t0 };
    },
  };
}

export { request };
