// Whether PostgreSQL and Redis answer: each probe speaks the first bytes of the real protocol, so a port
// held by something else (another server, a proxy with nothing behind it) does not count.
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import tls from 'node:tls';

/** Opens a TCP (or TLS) socket and resolves with it, or rejects after `timeoutMs`. */
function connectSocket({ host, port, secure = false, timeoutMs }) {
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host })
      : net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

/** Writes `request` and resolves with the bytes received once `isComplete(buffer)` holds. */
async function exchange(socketOptions, request, isComplete) {
  const socket = await connectSocket(socketOptions);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`incomplete answer from ${socketOptions.host}:${socketOptions.port}`));
    }, socketOptions.timeoutMs);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (isComplete(received)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(received);
      }
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (isComplete(received)) resolve(received);
      else reject(new Error(`connection closed by ${socketOptions.host}:${socketOptions.port}`));
    });
    socket.write(request);
  });
}

function postgresTarget(databaseUrl) {
  const url = new URL(databaseUrl);
  const hostParam = url.searchParams.get('host');
  return {
    host: decodeURIComponent(url.hostname.replace(/^\[|\]$/g, '')) || hostParam || 'localhost',
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username) || 'postgres',
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres',
  };
}

/** A v3 StartupMessage: Int32 length, Int32 protocol 3.0, then name/value pairs ending in an empty name. */
function startupMessage({ user, database }) {
  const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
  const message = Buffer.alloc(8 + body.length);
  message.writeInt32BE(message.length, 0);
  message.writeInt32BE(196608, 4);
  body.copy(message, 8);
  return message;
}

/** What the server's first message says: 'R' asks to authenticate, 'E' is an error with a SQLSTATE. */
function interpretStartupAnswer(answer) {
  const kind = String.fromCharCode(answer[0]);
  if (kind === 'R') return { ok: true, detail: 'answered' };
  if (kind === 'E') {
    const sqlState = /C([0-9A-Z]{5})\0/.exec(answer.toString('latin1'))?.[1];
    if (sqlState === '57P03') return { ok: false, detail: 'starting up' };
    return { ok: true, detail: `answered with error ${sqlState ?? '?'}` };
  }
  return { ok: false, detail: 'something answered, but not PostgreSQL' };
}

/**
 * Whether a PostgreSQL server answers at the URL: a v3 StartupMessage must be met by an
 * authentication request ('R') or an error ('E'). "Database does not exist" and password prompts
 * count as answering; "the database system is starting up" (57P03) does not.
 * @returns {Promise<{ok: boolean, detail: string}>}
 */
export async function probePostgres(databaseUrl, timeoutMs = 2000) {
  let target;
  try {
    target = postgresTarget(databaseUrl);
  } catch {
    return { ok: false, detail: 'DATABASE_URL is not a URL' };
  }
  if (target.host.startsWith('/')) {
    // A Unix socket directory: leave the handshake to pg_isready when it is installed.
    const result = spawnSync('pg_isready', ['-d', databaseUrl, '-t', String(Math.ceil(timeoutMs / 1000))], { stdio: 'ignore' });
    return { ok: result.status === 0, detail: result.error ? 'pg_isready is not installed' : 'pg_isready' };
  }
  try {
    const answer = await exchange({ host: target.host, port: target.port, timeoutMs }, startupMessage(target), (buffer) => {
      if (buffer.length < 5) return false;
      return buffer.length >= 1 + buffer.readInt32BE(1);
    });
    return interpretStartupAnswer(answer);
  } catch (error) {
    return { ok: false, detail: error.message };
  }
}

/** A RESP array command, safe for any argument bytes. */
function respCommand(...args) {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

/** PING, after AUTH when the URL has credentials; `replies` is how many answers to wait for. */
function pingRequest(url) {
  const password = decodeURIComponent(url.password);
  const username = decodeURIComponent(url.username);
  if (!password) return { request: respCommand('PING'), replies: 1 };
  const auth = username ? respCommand('AUTH', username, password) : respCommand('AUTH', password);
  return { request: auth + respCommand('PING'), replies: 2 };
}

/**
 * Whether Redis answers at the URL: PING must get +PONG (after AUTH when the URL has credentials).
 * @returns {Promise<{ok: boolean, detail: string, refused?: boolean}>}
 */
export async function probeRedis(redisUrl, timeoutMs = 2000) {
  let url;
  try {
    url = new URL(redisUrl);
  } catch {
    return { ok: false, detail: 'REDIS_URL is not a URL' };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = Number(url.port || 6379);
  const secure = url.protocol === 'rediss:';
  const { request, replies } = pingRequest(url);
  try {
    const answer = await exchange({ host, port, secure, timeoutMs }, request, (buffer) => {
      return (buffer.toString('latin1').match(/\r\n/g) ?? []).length >= replies;
    });
    const lines = answer.toString('latin1').split('\r\n').filter(Boolean);
    if (lines[replies - 1] === '+PONG') return { ok: true, detail: 'answered' };
    const error = lines.find((line) => line.startsWith('-'));
    if (error) return { ok: false, refused: true, detail: error.slice(1) };
    return { ok: false, detail: 'something answered, but not Redis' };
  } catch (error) {
    return { ok: false, detail: error.message };
  }
}

/** Repeats `probe` until it answers ok, the time is up or `isDead()` says the process it waits for exited. */
export async function waitFor(probe, { timeoutMs, intervalMs = 250, isDead = () => false }) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await probe();
    if (last.ok) return last;
    if (isDead()) return { ok: false, detail: 'the process exited' };
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return last ?? { ok: false, detail: 'timed out' };
}
