import net from 'node:net';

/**
 * Where test processes are given ports: below the kernel's ephemeral range (Linux: 32768-60999), which servers on
 * port 0 and every outgoing connection draw from, and below the private Redis Cluster's nodes (20000 and up). A port
 * handed out here is closed again before the app binds it; picked from the ephemeral range, another test's server
 * could take it in that moment (an e2e gateway once answered as another test's gateway did).
 */
export const TEST_PORT_RANGE = { from: 10_000, to: 20_000 };

/** Ports this process handed out: never twice, so two apps started together never race for one. */
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

const randomInRange = () => TEST_PORT_RANGE.from + Math.floor(Math.random() * (TEST_PORT_RANGE.to - TEST_PORT_RANGE.from));

/** A loopback TCP port nothing listens on right now, from {@link TEST_PORT_RANGE}, never the same twice in a process. */
export async function freePort(candidate: () => number = randomInRange): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = candidate();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${TEST_PORT_RANGE.from}-${TEST_PORT_RANGE.to} after 200 tries`);
}
