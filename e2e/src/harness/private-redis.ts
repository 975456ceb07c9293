import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '@hashwatch/testing';
import { Redis } from 'ioredis';
import { childRegistry } from './child-registry';
import { waitUntil } from './wait-until';

async function answersPing(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * A Redis of this run's own (never the shared one, so it may be stopped and restarted): `redis-server` from
 * PATH on a free loopback port, append-only on and RDB snapshots off, its data in `dir`. `stop` then `start`
 * restarts it on the same port with the same append-only file.
 */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private port = 0;

  constructor(private readonly dir: string) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    const dataDir = path.join(this.dir, 'redis');
    mkdirSync(dataDir, { recursive: true });
    const out = openSync(path.join(this.dir, 'redis.log'), 'a');
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--appendonly', 'yes', '--save', '', '--dir', dataDir, '--daemonize', 'no', '--maxmemory-policy', 'noeviction'],
      { stdio: ['ignore', out, out] },
    );
    closeSync(out);
    childRegistry.add(child);
    this.child = child;
    await waitUntil(() => answersPing(this.url), 15_000, `the private Redis on port ${this.port}`);
  }

  /** SIGTERM (Redis writes its append-only file and exits) or SIGKILL (a crash); resolves once it is gone. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }
}
