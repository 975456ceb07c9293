import { once } from 'node:events';
import { createServer } from 'node:net';
import { freePort, TEST_PORT_RANGE } from './free-port';

describe('freePort', () => {
  it('gives a loopback port a server can listen on right away', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    server.close();
    await once(server, 'close');
  });

  it('stays out of the ephemeral range servers on port 0 draw from, and never hands out a port twice', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(TEST_PORT_RANGE.from);
      expect(port).toBeLessThan(TEST_PORT_RANGE.to);
    }
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('skips a port a server is holding', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const held = (server.address() as { port: number }).port;
    try {
      const free = await freePort();
      const offered = [held, free + 1, free + 2, free + 3];
      const port = await freePort(() => offered.shift() ?? TEST_PORT_RANGE.from);
      expect(port).not.toBe(held);
      expect([free + 1, free + 2, free + 3]).toContain(port);
    } finally {
      server.close();
    }
  });
});
