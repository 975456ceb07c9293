import net from 'node:net';

/** A TCP port nothing listens on right now, picked by the kernel on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close(() => reject(new Error('no TCP address to take a port from')));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
