// Starts bench/posts-server.ts (the real gateway and the bare handlers) as a child process, for the benches
// that load the gateway over HTTP.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ServerReady } from './posts-server';

/** Forks the server with `env` (see posts-server.ts for the variables) and waits for its ports. */
export function startPostsServer(env: Record<string, string>, execArgv: string[] = []): Promise<{ child: ChildProcess; ready: ServerReady }> {
  const child = fork(path.join(__dirname, 'posts-server.ts'), [], {
    execArgv: ['--import', 'tsx', ...execArgv],
    env: { ...process.env, ...env, TSX_TSCONFIG_PATH: path.join(__dirname, 'tsconfig.json') },
    // Its log lines go to a pipe read as fast as they come, as a container's standard output is read.
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  child.stdout?.resume();
  return new Promise((resolve, reject) => {
    child.once('message', (ready) => resolve({ child, ready: ready as ServerReady }));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}
