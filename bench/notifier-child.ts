// The notifier bench's child process (bench/notifier-process.ts) as the parent drives it over IPC, and the sink it
// delivers to: a receiver in the parent that notes when each post id arrived.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { NotifierOptions } from '@hashwatch/notifier';
import { SECRETS_KEY } from './notifier-support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Sink {
  url: string;
  count: number;
  /** post id -> arrival time (ms) */
  arrivals: Map<string, number>;
  onArrival?: (postId: string, at: number) => void;
  close(): Promise<void>;
}

/** A receiver answering 204 to everything; it notes when each post id arrived. */
export async function startSink(): Promise<Sink> {
  const sink: Sink = { url: '', count: 0, arrivals: new Map(), close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      sink.count += 1;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; post?: { id: string }; posts?: { id: string }[] };
        const ids = body.type === 'digest' ? (body.posts ?? []).map((p) => p.id) : body.post ? [body.post.id] : [];
        for (const id of ids) {
          if (!sink.arrivals.has(id)) sink.arrivals.set(id, at);
          sink.onArrival?.(id, at);
        }
      } catch {
        // not an alert
      }
      res.writeHead(204);
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sink.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return sink;
}

/** The notifier child process: loaded once, its notifier started and stopped per phase. */
export interface NotifierChild {
  process: ChildProcess;
  /** Starts a notifier with these options; resolves once it runs (connections open, workers started). */
  start(options: Partial<NotifierOptions>): Promise<void>;
  /** Stops the running notifier, if any (running sends finish); the process stays. */
  stop(): Promise<void>;
  /** Stops the notifier and waits for the process to exit (a CPU profile is written then). */
  exit(): Promise<void>;
}

/** The child's next message carrying `key`; rejects if the child exits first. Leaves no listener behind. */
function message(child: ChildProcess, key: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (received: Record<string, unknown>) => {
      if (!received[key]) return;
      done();
      resolve();
    };
    const onExit = () => {
      done();
      reject(new Error(`notifier child exited before ${key}`));
    };
    const done = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Forks bench/notifier-process.ts and waits until it has loaded (tsx compiles the workspace before the clock starts). */
export async function loadNotifier(env: { databaseUrl: string; redisUrl: string; prefix: string }): Promise<NotifierChild> {
  const profileDir = process.env.NOTIFIER_BENCH_PROFILE;
  const child = fork(path.join(__dirname, 'notifier-process.ts'), [], {
    execArgv: ['--import', 'tsx', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
    env: { ...process.env, DATABASE_URL: env.databaseUrl, REDIS_URL: env.redisUrl, QUEUE_PREFIX: env.prefix, SECRETS_KEY, TSX_TSCONFIG_PATH: path.join(__dirname, 'tsconfig.json') },
  });
  await message(child, 'loaded');
  let running = false;
  return {
    process: child,
    async start(options) {
      child.send({ start: options });
      await message(child, 'started');
      running = true;
    },
    async stop() {
      if (!running || child.exitCode !== null) return;
      child.send({ stop: true });
      await message(child, 'stopped');
      running = false;
    },
    async exit() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.send({ exit: true });
      await exited;
    },
  };
}

/**
 * Waits until every id arrived at the sink. Each check looks only at ids not seen yet, in the order they were
 * stored, up to the first missing one: checking all 10,000 every 20 ms took a good part of a core from the machine
 * the notifier runs on.
 */
export async function untilArrived(sink: Sink, ids: string[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(ids);
  while (Date.now() < deadline) {
    for (const id of pending) {
      if (!sink.arrivals.has(id)) break;
      pending.delete(id);
    }
    if (pending.size === 0) return true;
    await sleep(20);
  }
  return false;
}

