import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Simulator } from './simulator';

export interface RunningSimulator {
  /** Base address to give an X client, e.g. http://127.0.0.1:41234 (the client appends /2/...). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Listens on `port` (0 picks a free one) and resolves once it accepts connections. */
export function serveSimulator(simulator: Simulator, options: { port?: number; host?: string } = {}): Promise<RunningSimulator> {
  const server = createServer(simulator.app);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      const { port } = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      resolve({
        url: `http://${shownHost}:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            simulator.close();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
