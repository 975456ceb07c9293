import type { Logger } from '@hashwatch/logger';

export interface ShutdownOptions {
  logger: Logger;
  /** Bound on all steps together; past it the process exits with 1. Default 25 s (Kubernetes grants 30 s). */
  timeoutMs?: number;
  /** Called once with the exit code when shutdown ends. Defaults to process.exit; tests pass a spy. */
  exit?: (code: number) => void;
}

export interface Shutdown {
  /**
   * Registers a step. Steps run in reverse registration order (last started, first stopped), one at a
   * time; a step that throws is logged and the next one still runs.
   */
  onShutdown(name: string, step: () => unknown): void;
  /** Runs shutdown on SIGTERM and SIGINT. Attaches once however often it is called; returns a detach function. */
  listen(): () => void;
  /** Runs every step, then exits: 0 when all succeeded, 1 when one failed or time ran out. Idempotent. */
  shutdown(reason: string): Promise<void>;
  isShuttingDown(): boolean;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Graceful shutdown for one process: the composition root registers a step for everything it starts. */
export function createShutdown(options: ShutdownOptions): Shutdown {
  const { logger } = options;
  const timeoutMs = options.timeoutMs ?? 25_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const steps: { name: string; step: () => unknown }[] = [];
  let running: Promise<void> | undefined;
  let detach: (() => void) | undefined;

  const runSteps = async (state: { current?: string; abandoned: boolean; failed: boolean }) => {
    // pop(): reverse order, and a step registered while shutting down still runs (it started last).
    while (!state.abandoned) {
      const entry = steps.pop();
      if (!entry) break;
      state.current = entry.name;
      const started = Date.now();
      try {
        await entry.step();
        logger.info('shutdown step done', { step: entry.name, durationMs: Date.now() - started });
      } catch (error) {
        state.failed = true;
        logger.error('shutdown step failed', { step: entry.name, durationMs: Date.now() - started, error });
      }
    }
    state.current = undefined;
  };

  const run = async (reason: string): Promise<void> => {
    logger.info('shutting down', { reason, steps: steps.length, timeoutMs });
    const state: { current?: string; abandoned: boolean; failed: boolean } = { abandoned: false, failed: false };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([runSteps(state).then(() => 'done' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      state.abandoned = true;
      logger.error('shutdown timed out', { timeoutMs, step: state.current, skipped: steps.map((entry) => entry.name).reverse() });
      exit(1);
      return;
    }
    logger.info('shutdown complete', { failed: state.failed });
    exit(state.failed ? 1 : 0);
  };

  const shutdown = (reason: string): Promise<void> => {
    if (running) {
      logger.info('shutdown already in progress', { reason });
      return running;
    }
    running = run(reason);
    return running;
  };

  return {
    onShutdown(name, step) {
      steps.push({ name, step });
    },
    listen() {
      if (detach) return detach;
      // on, not once: a second Ctrl-C must reach us too, or Node's default handler kills the process mid-step.
      const handler = (signal: NodeJS.Signals) => void shutdown(signal);
      for (const signal of SIGNALS) process.on(signal, handler);
      const remove = () => {
        for (const signal of SIGNALS) process.off(signal, handler);
        if (detach === remove) detach = undefined;
      };
      detach = remove;
      return remove;
    },
    shutdown,
    isShuttingDown: () => running !== undefined,
  };
}
