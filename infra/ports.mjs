// Free TCP ports, for the private instances and for the apps `npm start` runs.
import net from 'node:net';

function canListen(port, host) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Whether nothing listens on the port, on loopback or on all interfaces. */
async function isPortFree(port) {
  return (await canListen(port, '127.0.0.1')) && (await canListen(port, undefined));
}

/** `preferred` when it is free, else the next free port above it, else one the kernel picks. */
export async function freePort(preferred, taken = new Set()) {
  for (let port = preferred; port < preferred + 50 && port < 65536; port += 1) {
    if (!taken.has(port) && (await isPortFree(port))) return port;
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
