import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { childRegistry } from '@hashwatch/testing';

/** The repository root: apps are started from their builds under apps/<app>/dist. */
export const REPO_ROOT = path.resolve(__dirname, '../../..');

export type AppName = 'gateway' | 'scanner' | 'engagement-poller' | 'notifier' | 'x-sim' | 'alert-inbox';

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AppProcess {
  readonly app: AppName;
  readonly label: string;
  readonly pid: number;
  /** The port its /readyz answers on: PORT for the gateway, X_SIM_PORT for x-sim, HEALTH_PORT otherwise. */
  readonly port: number;
  readonly logFile: string;
  readonly exited: Promise<ExitStatus>;
  isRunning(): boolean;
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL when it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<ExitStatus>;
  logTail(lines?: number): string;
}

export interface StartAppOptions {
  app: AppName;
  /** Distinguishes replicas in logs and reports, e.g. `notifier-2`. */
  label: string;
  env: Record<string, string>;
  port: number;
  /** Path answering 200 once the app is ready. */
  readyPath: string;
  logDir: string;
  readyTimeoutMs?: number;
}

/** Each app's package.json, found by package name like any other dependency of this workspace. */
const MANIFESTS: Record<AppName | 'admin', string> = {
  gateway: require.resolve('@hashwatch/gateway/package.json'),
  scanner: require.resolve('@hashwatch/scanner/package.json'),
  'engagement-poller': require.resolve('@hashwatch/engagement-poller/package.json'),
  notifier: require.resolve('@hashwatch/notifier/package.json'),
  'x-sim': require.resolve('@hashwatch/x-sim/package.json'),
  'alert-inbox': require.resolve('@hashwatch/alert-inbox/package.json'),
  admin: require.resolve('@hashwatch/admin/package.json'),
};

/** The built entry of an app: what `npm run start -w @hashwatch/<app>` runs. */
export function entryPoint(app: AppName | 'admin'): string {
  const file = path.join(path.dirname(MANIFESTS[app]), 'dist', 'main.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: build the apps first (npx turbo run build --filter='./apps/*')`);
  return file;
}

async function answersOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

function tailOf(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts `node apps/<app>/dist/main.js` (what `npm run start -w @hashwatch/<app>` runs) as its own OS process
 * with only the given environment (plus PATH and HOME), its output in a log file, and resolves once the app's
 * ready path answers 200. Rejects, with the log's tail, when the process exits or times out first.
 */
export async function startAppProcess(options: StartAppOptions): Promise<AppProcess> {
  const logFile = path.join(options.logDir, `${options.label}.log`);
  const out = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [entryPoint(options.app)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  childRegistry.add(child);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.label} did not start`);
  let running = true;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    });
  });

  const handle: AppProcess = {
    app: options.app,
    label: options.label,
    pid,
    port: options.port,
    logFile,
    exited,
    isRunning: () => running,
    signal(signal) {
      if (running) child.kill(signal);
    },
    async stop(graceMs = 10_000) {
      if (!running) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const status = await exited;
      clearTimeout(timer);
      return status;
    },
    logTail: (lines = 30) => tailOf(logFile, lines),
  };

  const readyUrl = `http://127.0.0.1:${options.port}${options.readyPath}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  while (!(await answersOk(readyUrl))) {
    if (!running) {
      const status = await exited;
      throw new Error(`${options.label} exited (code ${status.code}, signal ${status.signal}) before ${readyUrl} answered; log:\n${handle.logTail()}`);
    }
    if (Date.now() > deadline) {
      await handle.stop(2_000);
      throw new Error(`${options.label} was not ready at ${readyUrl} in time; log:\n${handle.logTail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return handle;
}
