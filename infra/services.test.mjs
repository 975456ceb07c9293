// npm run test:infra  (npm test runs these too)
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DevError } from './errors.mjs';
import { findPostgresBinaries, localTools } from './local-tools.mjs';
import { redactUrl } from './output.mjs';
import { freePort } from './ports.mjs';
import { isAlive } from './private-instances.mjs';
import { probePostgres, probeRedis } from './service-probes.mjs';
import { ensureServices } from './services.mjs';

// The fake servers of this file, closed once its tests are done.
const servers = [];
afterAll(() => {
  for (const server of servers) server.close();
});

/** A TCP server that answers every connection with `reply(firstChunk)`; resolves with its port. */
async function fakeServer(reply) {
  const server = net.createServer((socket) => {
    socket.once('data', (chunk) => {
      const answer = reply(chunk);
      if (answer === null) socket.destroy();
      else socket.end(answer);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return server.address().port;
}

/** A PostgreSQL backend message: type byte, Int32 length, body. */
function pgMessage(type, body) {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([header, body]);
}

const pgError = (sqlState) => pgMessage('E', Buffer.from(`SFATAL\0C${sqlState}\0Mno\0\0`, 'latin1'));

async function closedPort() {
  const port = await freePort(20000 + Math.floor(Math.random() * 20000));
  return port;
}

describe('probeRedis', () => {
  it('answers ok when PING gets +PONG', async () => {
    const port = await fakeServer((chunk) => (chunk.toString().includes('PING') ? '+PONG\r\n' : null));
    assert.equal((await probeRedis(`redis://127.0.0.1:${port}`)).ok, true);
  });

  it('sends AUTH before PING when the URL carries a password', async () => {
    let seen = '';
    const port = await fakeServer((chunk) => {
      seen = chunk.toString();
      return '+OK\r\n+PONG\r\n';
    });
    assert.equal((await probeRedis(`redis://:s3cret@127.0.0.1:${port}`)).ok, true);
    assert.match(seen, /^\*2\r\n\$4\r\nAUTH\r\n\$6\r\ns3cret\r\n\*1\r\n\$4\r\nPING\r\n$/);
  });

  it('reports a refusal, not an absence, when Redis wants a password', async () => {
    const port = await fakeServer(() => '-NOAUTH Authentication required.\r\n');
    const result = await probeRedis(`redis://127.0.0.1:${port}`);
    assert.equal(result.ok, false);
    assert.equal(result.refused, true);
  });

  it('does not take an HTTP server for Redis', async () => {
    const port = await fakeServer(() => 'HTTP/1.1 400 Bad Request\r\n\r\n');
    assert.equal((await probeRedis(`redis://127.0.0.1:${port}`)).ok, false);
  });

  it('answers not ok when nothing listens', async () => {
    assert.equal((await probeRedis(`redis://127.0.0.1:${await closedPort()}`, 500)).ok, false);
  });
});

describe('probePostgres', () => {
  it('sends a v3 startup message with the user and database of the URL', async () => {
    let seen;
    const port = await fakeServer((chunk) => {
      seen = chunk;
      return pgMessage('R', Buffer.from([0, 0, 0, 0]));
    });
    assert.equal((await probePostgres(`postgresql://alice@127.0.0.1:${port}/shop`)).ok, true);
    assert.equal(seen.readInt32BE(0), seen.length);
    assert.equal(seen.readInt32BE(4), 196608);
    assert.equal(seen.subarray(8).toString(), 'user\0alice\0database\0shop\0\0');
  });

  it('counts a missing database as a server that answers', async () => {
    const port = await fakeServer(() => pgError('3D000'));
    assert.equal((await probePostgres(`postgresql://postgres@127.0.0.1:${port}/nope`)).ok, true);
  });

  it('does not count a server that is still starting up', async () => {
    const port = await fakeServer(() => pgError('57P03'));
    assert.equal((await probePostgres(`postgresql://postgres@127.0.0.1:${port}/x`)).ok, false);
  });

  it('does not take a Redis server for PostgreSQL', async () => {
    const port = await fakeServer(() => '-ERR unknown command\r\n');
    assert.equal((await probePostgres(`postgresql://postgres@127.0.0.1:${port}/x`)).ok, false);
  });

  it('answers not ok when nothing listens', async () => {
    assert.equal((await probePostgres(`postgresql://postgres@127.0.0.1:${await closedPort()}/x`, 500)).ok, false);
  });
});

describe('redactUrl', () => {
  it('hides the password and keeps the rest', () => {
    assert.equal(redactUrl('postgresql://u:hunter2@db:5432/x'), 'postgresql://u:***@db:5432/x');
    assert.equal(redactUrl('redis://127.0.0.1:6379'), 'redis://127.0.0.1:6379');
  });
});

describe('ensureServices', () => {
  const nothing = { findPostgresBinaries: () => undefined, findRedisServer: () => undefined, dockerRuns: () => false };

  it('fails with one line naming what to install when nothing answers and nothing can start', async () => {
    const port = await closedPort();
    await assert.rejects(
      ensureServices({
        root: os.tmpdir(),
        dataDir: os.tmpdir(),
        env: { DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/x`, REDIS_URL: `redis://127.0.0.1:${port}` },
        log: () => undefined,
        tools: nothing,
      }),
      (error) => {
        assert.ok(error instanceof DevError);
        assert.doesNotMatch(error.message, /\n/);
        assert.match(error.message, /install PostgreSQL 14\+ \(initdb, postgres\) and Redis 6\.2\+ \(redis-server\)/);
        assert.match(error.message, /Docker/);
        return true;
      },
    );
  });

  it('names only the missing service when the other one answers', async () => {
    const redisPort = await fakeServer(() => '+PONG\r\n');
    await assert.rejects(
      ensureServices({
        root: os.tmpdir(),
        dataDir: os.tmpdir(),
        env: { DATABASE_URL: `postgresql://postgres@127.0.0.1:${await closedPort()}/x`, REDIS_URL: `redis://127.0.0.1:${redisPort}` },
        log: () => undefined,
        tools: nothing,
      }),
      /^DevError: PostgreSQL is not running and cannot be started here: install PostgreSQL 14\+ \(initdb, postgres\), or start a Docker engine, or set DATABASE_URL to a running server$/,
    );
  });

  const binaries = findPostgresBinaries();
  const redisServer = localTools.findRedisServer();
  // Skipped (counted as such in the summary) where there are no local PostgreSQL or Redis binaries.
  (binaries && redisServer ? it : it.skip)('starts private PostgreSQL and Redis under the data directory and stops them again', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hw-services-'));
    try {
      // Under root PostgreSQL runs as another OS user, who must be able to enter the directory.
      chmodSync(dataDir, 0o755);
      const port = await closedPort();
      const services = await ensureServices({
        root: os.tmpdir(),
        dataDir,
        env: { DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/hw_private`, REDIS_URL: `redis://127.0.0.1:${port}` },
        log: () => undefined,
      });
      try {
        assert.match(services.databaseUrl, /^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/hw_private$/);
        assert.equal((await probePostgres(services.databaseUrl)).ok, true);
        assert.equal((await probeRedis(services.redisUrl)).ok, true);
        assert.ok(existsSync(path.join(dataDir, 'pg', 'PG_VERSION')));
        assert.ok(existsSync(path.join(dataDir, 'redis')));
      } finally {
        const pgPid = JSON.parse(readFileSync(path.join(dataDir, 'pg.instance.json'), 'utf8')).pid;
        const redisPid = JSON.parse(readFileSync(path.join(dataDir, 'redis.instance.json'), 'utf8')).pid;
        await services.stop();
        assert.equal(isAlive(pgPid), false);
        assert.equal(isAlive(redisPid), false);
        assert.equal(existsSync(path.join(dataDir, 'pg.instance.json')), false);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
