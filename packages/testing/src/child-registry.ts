import type { ChildProcess } from 'node:child_process';

const children = new Set<ChildProcess>();
let hooked = false;

/** SIGKILLs every child still running; synchronous, so it also works from an 'exit' handler. */
function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  children.clear();
}

/**
 * Remembers a process this test run started, so that it dies with the run even when a test fails before its
 * afterAll, or jest is interrupted: an exit or signal handler SIGKILLs whatever is left.
 */
export const childRegistry = {
  add(child: ChildProcess): void {
    children.add(child);
    child.once('exit', () => children.delete(child));
    if (hooked) return;
    hooked = true;
    process.once('exit', killAll);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        killAll();
        process.exit(1);
      });
    }
  },
  killAll,
};
