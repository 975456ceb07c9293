import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@hashwatch/testing';
import { Redis } from 'ioredis';

export interface PrivateRedis {
  url: string;
  /** Stops the server as an operator's restart does (SHUTDOWN writes the append-only file), then starts it again after `downMs`. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

async function untilAnswers(url: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      probe.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis at ${url} did not answer within ${timeoutMs} ms`);
}

/**
 * A redis-server of this test's own on a free loopback port, with the append-only file on as BullMQ's
 * production guide asks; the shared Redis is never touched.
 */
export async function startPrivateRedis(binary = process.env.REDIS_SERVER_BIN ?? 'redis-server'): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'hw-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction'], {
      stdio: 'ignore',
    });
    await untilAnswers(url);
  };
  const halt = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    const admin = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    await admin.shutdown().catch(() => undefined);
    admin.disconnect();
    await exited;
  };
  await launch();
  return {
    url,
    async restart(downMs) {
      await halt();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await launch();
    },
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
