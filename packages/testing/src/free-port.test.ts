import { once } from 'node:events';
import { createServer } from 'node:net';
import { freePort } from './free-port';

describe('freePort', () => {
  it('gives a loopback port a server can listen on right away', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    server.close();
    await once(server, 'close');
  });

  it('does not hand out a port a server is holding', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const held = (server.address() as { port: number }).port;
    try {
      const ports = await Promise.all(Array.from({ length: 5 }, () => freePort()));
      expect(ports).not.toContain(held);
    } finally {
      server.close();
    }
  });
});
