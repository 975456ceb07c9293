// Child process of bench/posts-feed.ts: the servers under load, kept out of the process that generates the
// load so autocannon never shares an event loop with them. Configured only through the environment:
// DATABASE_URL, REDIS_URL, SECRETS_KEY, QUEUE_PREFIX, BARE_BODY, and optionally LOG_LEVEL (default warn; info
// logs a JSON line per request, as the gateway does by default) and POSTS_BENCH_POOL (the gateway's PostgreSQL pool,
// default 10 as in main.ts). Its standard output is a pipe the parent drains, as a container runtime's is.
//   :gatewayPort  the real gateway (createApp), wired as apps/gateway/src/main.ts wires it
//   :barePort     /bare        a bare Express JSON handler answering a static body the size of a feed page
//                 /bare-empty  the same answering {}
//                 /auth-only   the /v1 chain's real authentication (Authenticator: key lookup, rate limit,
//                              subscription), then {}: the cost of authentication and rate limiting alone
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import express from 'express';
import { Redis } from 'ioredis';
import { createDatabase } from '@hashwatch/db';
import { createLogger } from '@hashwatch/logger';
import { createCipher } from '@hashwatch/secrets';
import { Authenticator, createApp, errorHandler, type GatewayDeps } from '@hashwatch/gateway';
import { childEnv as env } from './child-env';

export interface ServerReady {
  gatewayPort: number;
  barePort: number;
}

/** The server's event-loop delay over one measurement, in ms: `{loop: 'reset'}` starts one, `{loop: 'read'}` answers this. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** Answers the parent's `{loop: 'reset' | 'read'}`: how late the event loop ran its timers while under load (1 ms resolution). */
function reportLoopDelay(): void {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  process.on('message', (message: { loop?: 'reset' | 'read' }) => {
    if (message.loop === 'reset') delay.reset();
    if (message.loop === 'read') {
      const loop: LoopDelay = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
      process.send?.({ loop });
    }
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function main(): Promise<void> {
  const logger = createLogger('gateway', { level: process.env.LOG_LEVEL ?? 'warn' });
  const db = createDatabase(env('DATABASE_URL'), { max: Number(process.env.POSTS_BENCH_POOL ?? 10), applicationName: 'hashwatch-gateway' });
  const redis = new Redis(env('REDIS_URL'), { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableAutoPipelining: true });
  const secretsKey = env('SECRETS_KEY');
  const deps: GatewayDeps = {
    db,
    redis,
    logger,
    cipher: createCipher(secretsKey),
    secretsKey,
    keyPrefix: env('QUEUE_PREFIX'),
    now: () => new Date(),
  };
  const bareBody: unknown = JSON.parse(env('BARE_BODY'));

  const gateway = createServer(createApp(deps));
  gateway.keepAliveTimeout = 65_000;

  const bare = express();
  bare.disable('x-powered-by');
  bare.set('etag', false);
  bare.get('/bare', (_req, res) => {
    res.json(bareBody);
  });
  bare.get('/bare-empty', (_req, res) => {
    res.json({});
  });
  bare.get('/auth-only', new Authenticator(deps).middleware(), (_req, res) => {
    res.json({});
  });
  bare.use(errorHandler(logger));
  const bareServer = createServer(bare);
  bareServer.keepAliveTimeout = 65_000;

  reportLoopDelay();
  const ready: ServerReady = { gatewayPort: await listen(gateway), barePort: await listen(bareServer) };
  process.send?.(ready);
  // The parent is done: exit at once (requests still in flight die with their sockets; a CPU profile is written).
  process.on('disconnect', () => process.exit(0));
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
