import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { PortTakenError, startAppProcess } from './app-process';
import { freePort } from './free-port';

// A stand-in for a built app: answers /readyz with 200 on PORT once READY_AFTER_MS have passed, or exits at once
// with code 3 when EXIT_AT_START is set.
const APP = `
const http = require('node:http');
if (process.env.EXIT_AT_START) { console.error('refusing to start'); process.exit(3); }
const started = Date.now();
http.createServer((req, res) => {
  res.statusCode = req.url === '/readyz' && Date.now() - started >= Number(process.env.READY_AFTER_MS) ? 200 : 503;
  res.end();
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));
`;

describe('startAppProcess', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hw-app-process-'));
  const entry = path.join(dir, 'main.js');
  writeFileSync(entry, APP);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves once the ready path answers 200, logs to its file and stops it', async () => {
    const port = await freePort();
    const app = await startAppProcess({ app: 'stand-in', label: 'stand-in-1', entry, cwd: dir, port, readyPath: '/readyz', logDir: dir, env: { PORT: String(port), READY_AFTER_MS: '300' } });
    expect(app.isRunning()).toBe(true);
    expect(app.label).toBe('stand-in-1');
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(app.logTail()).toBe('listening');
    expect(await app.stop()).toEqual({ code: null, signal: 'SIGTERM' });
    expect(app.isRunning()).toBe(false);
  });

  it('rejects with the exit status and the log when the process exits before it is ready', async () => {
    const port = await freePort();
    await expect(startAppProcess({ app: 'stand-in', label: 'stand-in-2', entry, cwd: dir, port, readyPath: '/readyz', logDir: dir, env: { PORT: String(port), EXIT_AT_START: '1' } }))
      .rejects.toThrow(/stand-in-2 exited \(code 3, signal null\) before http:\/\/127\.0\.0\.1:\d+\/readyz answered; log:\nrefusing to start/);
  });

  it('rejects, and stops it, when it is not ready in time', async () => {
    const port = await freePort();
    // Long enough for node to start and log on a loaded machine (half a second was not, now and then).
    await expect(startAppProcess({ app: 'stand-in', label: 'stand-in-3', entry, cwd: dir, port, readyPath: '/readyz', logDir: dir, readyTimeoutMs: 5_000, env: { PORT: String(port), READY_AFTER_MS: '60000' } }))
      .rejects.toThrow(/stand-in-3 was not ready at http:\/\/127\.0\.0\.1:\d+\/readyz in time; log:\nlistening/);
  }, 15_000);

  it('rejects with PortTakenError when another process answers on the port and the app cannot bind it', async () => {
    const port = await freePort();
    const squatter = createServer((_req, res) => res.end('ok')).listen(port, '127.0.0.1');
    await once(squatter, 'listening');
    try {
      const started = startAppProcess({ app: 'stand-in', label: 'stand-in-5', entry, cwd: dir, port, readyPath: '/readyz', logDir: dir, env: { PORT: String(port), READY_AFTER_MS: '0' } });
      await expect(started).rejects.toBeInstanceOf(PortTakenError);
      await expect(started).rejects.toThrow(/stand-in-5 exited \(code 1, signal null\) though http:\/\/127\.0\.0\.1:\d+\/readyz answered: another process holds the port; log:\n[\s\S]*EADDRINUSE/);
    } finally {
      squatter.close();
    }
  });

  it('names the missing build', async () => {
    const missing = path.join(dir, 'dist', 'main.js');
    await expect(startAppProcess({ app: 'stand-in', label: 'stand-in-4', entry: missing, cwd: dir, port: 1, readyPath: '/readyz', logDir: dir, env: {} }))
      .rejects.toThrow(`${missing} is missing: build the apps first`);
  });
});
