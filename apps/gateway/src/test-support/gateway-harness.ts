import type { Express } from 'express';
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
}

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
  };
}

export { request };
