import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

/** An app's `src/main.ts` running as its own OS process, as users run it. */
export interface MainProcess {
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Its exit code (null when a signal ended it). */
  readonly exit: Promise<number | null>;
  /** Sends a signal to its process group, so it reaches whatever the process started too. */
  signal(name: NodeJS.Signals): void;
  /** The first output line containing `text`; rejects, with the output, if the process exits first. */
  line(text: string): Promise<string>;
}

export interface StartOptions {
  /** Variables on top of PATH and HOME (and of this process's environment when `inherit` is set). */
  env: Record<string, string>;
  /** Also pass this test process's environment. Default false: nothing of the runner's leaks in. */
  inherit?: boolean;
}

/**
 * Hooks for a test file that starts an app's `src/main.ts` as a process (compiled on the fly by tsx, which reads
 * the workspace's tsconfig paths, so no build is needed); whatever a test leaves running is killed after the file.
 */
export function useMainProcesses(mainFile: string): { start(options: StartOptions): MainProcess } {
  const running = new Set<MainProcess>();
  afterAll(() => {
    for (const started of running) started.signal('SIGKILL');
  });
  return {
    start(options) {
      const base = options.inherit ? { ...process.env } : { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
      // Its own process group, so a signal reaches the process and anything it started.
      const child = spawn(process.execPath, ['--import', 'tsx', mainFile], { cwd: path.resolve(path.dirname(mainFile), '..'), detached: true, env: { ...base, ...options.env } });
      let text = '';
      const waiting: { text: string; resolve: (line: string) => void }[] = [];
      const read = (chunk: Buffer) => {
        text += String(chunk);
        for (const wanted of [...waiting]) {
          const found = text.split('\n').find((candidate) => candidate.includes(wanted.text));
          if (found !== undefined) {
            waiting.splice(waiting.indexOf(wanted), 1);
            wanted.resolve(found);
          }
        }
      };
      child.stdout?.on('data', read);
      child.stderr?.on('data', read);
      const exit = once(child, 'exit').then(([code]) => {
        running.delete(started);
        return code as number | null;
      });
      const started: MainProcess = {
        child,
        output: () => text,
        exit,
        signal(name) {
          try {
            if (child.pid) process.kill(-child.pid, name);
          } catch {
            // The group is already gone.
          }
        },
        line(wanted) {
          const seen = new Promise<string>((resolve) => {
            waiting.push({ text: wanted, resolve });
            read(Buffer.alloc(0));
          });
          return Promise.race([seen, exit.then(() => Promise.reject(new Error(`exited before writing "${wanted}":\n${text}`)))]);
        },
      };
      running.add(started);
      return started;
    },
  };
}
