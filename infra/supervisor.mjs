// The one owner of what a run starts: its child processes, the cleanups that stop them and the services,
// and what the signals it received asked for.
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { DevError, Interrupted } from './errors.mjs';
import { say, warn } from './output.mjs';
import { ROOT } from './workspaces.mjs';

// `npm start` forwards the terminal's Ctrl-C to us, so one keypress can arrive twice within
// milliseconds: signals this close to the previous one count once.
const REPEAT_WINDOW_MS = 2000;
const STOP_GRACE_MS = 10_000;

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Every child runs detached, in its own process group, so the terminal's Ctrl-C reaches it only through
 * the supervisor: once, and in order (apps before the services they use).
 */
// How long a finished command's piped output may take to drain before its exit code is taken anyway.
const PIPE_DRAIN_MS = 5_000;

export class Supervisor {
  /** Live children; `foreground` ones (one-shot tasks) get the first signal passed on at once. */
  #children = new Set();
  /** Async functions run in reverse order on the way out: stop apps, then the services they use. */
  #cleanups = [];
  /** The first signal received, once there was one. */
  #interrupted;
  #signals = 0;
  #lastSignalAt = 0;
  #wake = () => undefined;

  /** Takes over the signals, a vanished parent and a closed terminal for this process. */
  attach() {
    // A closed terminal must not crash the shutdown.
    process.stdout.on('error', () => undefined);
    process.stderr.on('error', () => undefined);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => this.#onSignal(signal));
    // npm exits on SIGTERM without passing it on: when `npm start` is killed that way, our parent just
    // disappears. Treat that as a hang-up so nothing we started outlives it.
    const parentPid = process.ppid;
    const parentWatch = setInterval(() => {
      if (process.ppid === parentPid) return;
      clearInterval(parentWatch);
      this.#onSignal('SIGHUP');
    }, 1000);
    parentWatch.unref();
  }

  /**
   * First signal: stop everything in order. Second: SIGKILL the children, still stop the databases.
   * Third: leave at once.
   */
  #onSignal(signal) {
    const now = Date.now();
    if (this.#interrupted && now - this.#lastSignalAt < REPEAT_WINDOW_MS) return;
    this.#lastSignalAt = now;
    this.#signals += 1;
    if (this.#signals === 1) {
      this.#interrupted = signal;
      say(`${signal}: stopping (Ctrl-C again to kill)`);
      for (const child of this.#children) if (child.foreground) killGroup(child, signal);
      this.#wake();
    } else if (this.#signals === 2) {
      warn(`${signal} again: killing the children, then stopping the databases (Ctrl-C again to leave them)`);
      for (const child of this.#children) killGroup(child, 'SIGKILL');
    } else {
      process.exit(130);
    }
  }

  checkInterrupted() {
    if (this.#interrupted) throw new Interrupted(this.#interrupted);
  }

  /** Waits for the first signal (none when one came already), then throws Interrupted. */
  async untilInterrupted() {
    await new Promise((resolve) => {
      this.#wake = resolve;
      if (this.#interrupted) resolve();
    });
    throw new Interrupted(this.#interrupted);
  }

  /** Registers an async stop to run on the way out, before those registered earlier. */
  onCleanup(fn) {
    this.#cleanups.push(fn);
  }

  async runCleanups() {
    while (this.#cleanups.length > 0) {
      const fn = this.#cleanups.pop();
      try {
        await fn();
      } catch (error) {
        warn(`cleanup failed: ${error.message}`);
      }
    }
  }

  /** Runs a one-shot command with inherited (or, given a prefix, prefixed) output; resolves with its exit code. */
  runForeground(command, args, { cwd = ROOT, env = process.env, prefix } = {}) {
    this.checkInterrupted();
    return new Promise((resolve, reject) => {
      // With a prefix (tasks running side by side), each output line is written whole, the prefix before it.
      const stdio = prefix === undefined ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'];
      const child = spawn(command, args, { cwd, env, stdio, detached: true });
      if (prefix !== undefined) {
        const pipe = (stream, out) => readline.createInterface({ input: stream }).on('line', (line) => out.write(`${prefix}${line}\n`));
        pipe(child.stdout, process.stdout);
        pipe(child.stderr, process.stderr);
      }
      child.foreground = true;
      this.#children.add(child);
      child.once('error', (error) => {
        this.#children.delete(child);
        reject(new DevError(`cannot run ${command}: ${error.message}`));
      });
      const finish = (code, signal) => {
        this.#children.delete(child);
        if (this.#interrupted) reject(new Interrupted(this.#interrupted));
        else resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15));
      };
      // Piped output is whole once the pipes close ('close'); a grandchild still holding them gets 5 s.
      child.once('close', finish);
      child.once('exit', (code, signal) => setTimeout(() => finish(code, signal), PIPE_DRAIN_MS).unref());
    });
  }

  /** SIGTERM to every one-shot command still running: a step that runs beside a failed one is not waited for. */
  stopForeground() {
    for (const child of this.#children) if (child.foreground) killGroup(child, 'SIGTERM');
  }

  /**
   * Starts a long-running process whose output lines go to `onLine(line, out)`, `out` being our stdout or
   * stderr as the line came. Returns its handle: `{name, child, exited}`, `exited` resolving once it is gone.
   */
  launch({ name, command, args, cwd, env, onLine }) {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#children.add(child);
    const pipe = (stream, out) => readline.createInterface({ input: stream }).on('line', (line) => onLine(line, out));
    pipe(child.stdout, process.stdout);
    pipe(child.stderr, process.stderr);
    const exited = new Promise((resolve) => {
      child.once('error', (error) => {
        warn(`${name} could not start: ${error.message}`);
        this.#children.delete(child);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.#children.delete(child);
        if (!this.#interrupted) warn(`${name} exited (${signal ?? `code ${code}`})`);
        resolve();
      });
    });
    return { name, child, exited };
  }

  isRunning(handle) {
    return this.#children.has(handle.child);
  }

  /** SIGTERM to each running handle's group, SIGKILL to those still there after 10 s. */
  async stop(handles) {
    const running = handles.filter((handle) => this.isRunning(handle));
    for (const handle of running) killGroup(handle.child, 'SIGTERM');
    await Promise.all(
      running.map(async (handle) => {
        const timer = setTimeout(() => {
          warn(`${handle.name} did not stop within ${STOP_GRACE_MS / 1000} s; killing it`);
          killGroup(handle.child, 'SIGKILL');
        }, STOP_GRACE_MS);
        await handle.exited;
        clearTimeout(timer);
      }),
    );
  }

  /** Polls `check` until it holds (true), the time is up or `handle` exits (false), or a signal comes (throws). */
  async waitUntil(check, { timeoutMs, handle }) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      this.checkInterrupted();
      if (handle && !this.isRunning(handle)) return false;
      if (await check()) return true;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return false;
  }
}
