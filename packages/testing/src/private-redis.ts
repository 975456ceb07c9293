import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { childRegistry } from './child-registry';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

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

export interface PrivateRedisOptions {
  /** Where its append-only file and its log go; when none is given, a temporary directory that `remove` deletes. */
  dir?: string;
  /** The `redis-server` to run; REDIS_SERVER_BIN, else the one on PATH. */
  binary?: string;
}

/**
 * A Redis of the test's own (never the shared one, so it may be stopped and restarted): `redis-server` on a free
 * loopback port, append-only on and RDB snapshots off, `noeviction` as BullMQ's production guide asks. `stop` then
 * `start` restarts it on the same port with the same append-only file.
 */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private port = 0;
  /** Where its append-only file (`redis/`) and its log (`redis.log`) are. */
  readonly dir: string;
  private readonly ownsDir: boolean;
  private readonly binary: string;

  constructor({ dir, binary }: PrivateRedisOptions = {}) {
    this.ownsDir = dir === undefined;
    this.dir = dir ?? mkdtempSync(path.join(tmpdir(), 'hw-redis-'));
    this.binary = binary ?? process.env.REDIS_SERVER_BIN ?? 'redis-server';
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    const dataDir = path.join(this.dir, 'redis');
    mkdirSync(dataDir, { recursive: true });
    const out = openSync(path.join(this.dir, 'redis.log'), 'a');
    const child = spawn(
      this.binary,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--appendonly', 'yes', '--save', '', '--dir', dataDir, '--daemonize', 'no', '--maxmemory-policy', 'noeviction'],
      { stdio: ['ignore', out, out] },
    );
    closeSync(out);
    childRegistry.add(child);
    this.child = child;
    await waitFor(() => answersPing(this.url), 15_000, `the private Redis on port ${this.port}`);
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

  /** Stops it as an operator's restart does (its data written), then starts it again after `downMs`. */
  async restart(downMs: number): Promise<void> {
    await this.stop();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    await this.start();
  }

  /** Stops it and deletes the temporary directory it made; a directory the caller gave is left. */
  async remove(): Promise<void> {
    await this.stop();
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A started PrivateRedis in a temporary directory of its own; `remove()` when done. */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const redis = new PrivateRedis(options);
  await redis.start();
  return redis;
}
