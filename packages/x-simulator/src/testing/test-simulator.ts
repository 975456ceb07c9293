import type { XEndpoint } from '../endpoints';
import { serveSimulator } from '../serve-simulator';
import { createSimulator, type Simulator } from '../simulator';
import type { SimulatorOptions } from '../simulator-options';

/** A simulator serving X on a free loopback port, as a test sees it. */
export interface TestSimulator {
  /** The simulated world and its instruments: inject posts and faults, read the request log. */
  readonly sim: Simulator;
  /** Base address to give an X client, e.g. http://127.0.0.1:41234 (the client appends /2/...). */
  readonly url: string;
  /** Requests the simulator received on one endpoint so far. */
  requests(endpoint: XEndpoint): number;
}

export interface StartedTestSimulator extends TestSimulator {
  /** Stops the generator and the server, closing open connections. */
  close(): Promise<void>;
}

/** Starts a simulator (options as `createSimulator`'s) on a free loopback port; the caller closes it. */
export async function startTestSimulator(options: SimulatorOptions = {}): Promise<StartedTestSimulator> {
  const sim = createSimulator(options);
  const running = await serveSimulator(sim);
  return {
    sim,
    url: running.url,
    requests: (endpoint) => sim.state.requestLog.requestCount(endpoint),
    close: () => running.close(),
  };
}

/**
 * Registers jest hooks that start a simulator before the file's tests and close it after them. Read the
 * fields inside tests or hooks, not at module load.
 */
export function useTestSimulator(options: SimulatorOptions = {}): TestSimulator {
  let started: StartedTestSimulator | undefined;
  beforeAll(async () => {
    started = await startTestSimulator(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): StartedTestSimulator => {
    if (!started) throw new Error('the test simulator is only available inside tests and hooks');
    return started;
  };
  return {
    get sim() {
      return current().sim;
    },
    get url() {
      return current().url;
    },
    requests: (endpoint) => current().requests(endpoint),
  };
}
