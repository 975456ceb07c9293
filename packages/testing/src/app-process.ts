import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { childRegistry } from './child-registry';

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AppProcess<App extends string = string> {
  readonly app: App;
  readonly label: string;
  readonly pid: number;
  /** The port its ready path answers on. */
  readonly port: number;
  readonly logFile: string;
  readonly exited: Promise<ExitStatus>;
  isRunning(): boolean;
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL when it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<ExitStatus>;
  logTail(lines?: number): string;
}

export interface StartAppOptions<App extends string = string> {
  /** Which app it is, e.g. `notifier`. */
  app: App;
  /** The built entry it runs, e.g. `apps/notifier/dist/main.js`. */
  entry: string;
  /** Its working directory, e.g. the repository root. */
  cwd: string;
  /** Distinguishes replicas in logs and reports, e.g. `notifier-2`; names its log file. */
  label: string;
  env: Record<string, string>;
  port: number;
  /** Path answering 200 once the app is ready. */
  readyPath: string;
  logDir: string;
  readyTimeoutMs?: number;
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
 * Starts a built app (`node <entry>`, what `npm run start -w @hashwatch/<app>` runs) as its own OS process with
 * only the given environment (plus PATH and HOME), its output in `<logDir>/<label>.log`, and resolves once the
 * app's ready path answers 200. Rejects, with the log's tail, when the process exits or times out first (then it
 * is stopped). `childRegistry` kills it when the test run ends.
 */
export async function startAppProcess<App extends string>(options: StartAppOptions<App>): Promise<AppProcess<App>> {
  if (!existsSync(options.entry)) throw new Error(`${options.entry} is missing: build the apps first (npx turbo run build --filter='./apps/*')`);
  const logFile = path.join(options.logDir, `${options.label}.log`);
  const out = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [options.entry], {
    cwd: options.cwd,
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

  const handle: AppProcess<App> = {
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
  const spawnedAt = Date.now();
  const deadline = spawnedAt + (options.readyTimeoutMs ?? 30_000);
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
  // Another process that took the port in the moment between freePort and this app's bind answers the ready path
  // too; the app then exits on EADDRINUSE. Still running a while after it started, it holds the port itself.
  const settled = spawnedAt + SETTLE_MS - Date.now();
  if (settled > 0) await new Promise((resolve) => setTimeout(resolve, settled));
  if (!running) {
    const status = await exited;
    throw new PortTakenError(`${options.label} exited (code ${status.code}, signal ${status.signal}) though ${readyUrl} answered: another process holds the port; log:\n${handle.logTail()}`);
  }
  return handle;
}

/** How long after its start an app that seemed ready must still be running to count as the one that answered. */
const SETTLE_MS = 1_500;

/** The ready path answered, but not from this app: start it again on another port. */
export class PortTakenError extends Error {}
