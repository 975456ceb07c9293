// Dashboard sessions against API keys, and the cost of a password hash.
//
//   flock /tmp/hw-bench.lock npx tsx --tsconfig bench/tsconfig.json bench/session-auth.ts
//
// Needs PostgreSQL (DATABASE_URL; the role must be able to CREATE DATABASE) and Redis (REDIS_URL). Makes its own
// database and Redis prefix and removes them.
// Goals: an authenticated request through a session costs no more than through the key (req/s within 10 % of the
// key's in the same run, GET /v1/me, 50 connections, alternating rounds); one scrypt password hash costs 50–150 ms
// of CPU.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { createAccount } from '@hashwatch/accounts';
import type { Database } from '@hashwatch/db';
import { generateSecretsKey, hashPassword, verifyPassword } from '@hashwatch/secrets';
import { baseDatabaseUrl } from '@hashwatch/testing';
import { openScratch, type Scratch } from './bench-scratch';
import { machineDescription, percentile } from './bench-support';
import { startPostsServer } from './posts-server-process';

const CONNECTIONS = 50;
const SECONDS = 10;
const ROUNDS = 3;
const HASHES = 20;
const PASSWORD = 'correct horse battery staple';

const log = (line: string) => process.stdout.write(`${line}\n`);

interface Round {
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Round> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  return { reqPerSec: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
}

/** Wall and CPU time of one hash and one check, sequentially: the CPU a sign-in costs. */
async function measureHashes(): Promise<void> {
  const wall: number[] = [];
  const cpu: number[] = [];
  const stored = await hashPassword(PASSWORD);
  for (let n = 0; n < HASHES; n += 1) {
    const started = process.hrtime.bigint();
    const before = process.cpuUsage();
    if (!(await verifyPassword(PASSWORD, stored))) throw new Error('the password did not verify');
    const used = process.cpuUsage(before);
    wall.push(Number(process.hrtime.bigint() - started) / 1e6);
    cpu.push((used.user + used.system) / 1000);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  log(`scrypt (N=2^15, r=8, p=1), ${HASHES} sign-in checks one after another:`);
  log(`  wall ms: min ${wall[0]?.toFixed(1)}, p50 ${percentile(wall, 50).toFixed(1)}, max ${wall.at(-1)?.toFixed(1)}`);
  log(`  CPU ms:  min ${cpu[0]?.toFixed(1)}, p50 ${percentile(cpu, 50).toFixed(1)}, max ${cpu.at(-1)?.toFixed(1)}`);
}


/** An active account with a password and no cap to speak of, its key, and a session signed in over HTTP. */
async function credentials(db: Database, gateway: string): Promise<{ key: Record<string, string>; session: Record<string, string> }> {
  const owner = await createAccount(db.prisma, { email: 'bench@example.com', planId: 'business' });
  await db.pool.query('UPDATE users SET rate_limit_per_minute = 100000000, password_hash = $2 WHERE id = $1', [owner.accountId, await hashPassword(PASSWORD)]);
  const signIn = await fetch(`${gateway}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }) });
  const cookie = signIn.headers.getSetCookie().find((line) => line.startsWith('hw_session='))?.split(';')[0];
  if (!cookie) throw new Error(`sign-in answered ${signIn.status} without a session cookie`);
  return { key: { Authorization: `Bearer ${owner.apiKey}` }, session: { Cookie: cookie } };
}

function summarize(name: string, rounds: Round[]): { reqPerSec: number } {
  const reqPerSec = rounds.reduce((sum, round) => sum + round.reqPerSec, 0) / rounds.length;
  log(`  ${name}: mean ${reqPerSec.toFixed(0)} req/s over ${rounds.length} rounds (${rounds.map((r) => `${r.reqPerSec.toFixed(0)} req/s p50 ${r.p50} ms p99 ${r.p99} ms non-2xx ${r.non2xx}`).join('; ')})`);
  return { reqPerSec };
}

async function main(): Promise<void> {
  let scratch: Scratch | undefined;
  let child: ChildProcess | undefined;
  log('## Sessions and passwords');
  log(`machine: ${machineDescription()}`);
  log(`database: ${new URL(baseDatabaseUrl()).host}`);
  try {
    await measureHashes();
    scratch = await openScratch('session');
    const { db } = scratch;
    const server = await startPostsServer({ BARE_BODY: '{}', DATABASE_URL: scratch.databaseUrl, REDIS_URL: scratch.redisUrl, SECRETS_KEY: generateSecretsKey(), QUEUE_PREFIX: scratch.prefix, LOG_LEVEL: 'warn' });
    child = server.child;
    const gateway = `http://127.0.0.1:${server.ready.gatewayPort}`;
    const headers = await credentials(db, gateway);
    await load(`${gateway}/v1/me`, headers.key);
    await load(`${gateway}/v1/me`, headers.session);
    log(`GET /v1/me, ${CONNECTIONS} connections, ${SECONDS} s per round, key and session alternating:`);
    const key: Round[] = [];
    const session: Round[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      key.push(await load(`${gateway}/v1/me`, headers.key));
      session.push(await load(`${gateway}/v1/me`, headers.session));
    }
    const keyed = summarize('API key', key);
    const viaSession = summarize('session', session);
    log(`session / key: ${(viaSession.reqPerSec / keyed.reqPerSec).toFixed(3)}× the key's req/s (goal ≥ 0.90)`);
  } finally {
    if (child?.connected) {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    }
    await scratch?.dispose();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
