#!/usr/bin/env node
// The dev-services script behind `npm start`, `npm test` and `npm run db:migrate` (CONTRACT section 1).
// Plain Node, built-ins only: it must run on a fresh clone before `npm install`.
//
//   node infra/dev.mjs generate   Prisma client, regenerated only when prisma/schema.prisma changed
//   node infra/dev.mjs migrate    generate, create the DATABASE_URL database when missing, migrate + seed
//   node infra/dev.mjs test       install, services, generate, every workspace's tests, one summary line
//   node infra/dev.mjs start      install, services, generate, build, migrate, demo account, every app
//
// Variables already set in the environment win over the demo defaults below, except DATABASE_URL and
// REDIS_URL when nothing answers there (a private instance or a container replaces them).
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DevError, Interrupted } from './errors.mjs';
import { paint, redactUrl, say, warn } from './output.mjs';
import { freePort } from './ports.mjs';
import { probePostgres } from './service-probes.mjs';
import { DEFAULT_DATABASE_URL, ensureServices } from './services.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATA_DIR = path.join(ROOT, '.data');
const GENERATED_DIR = path.join(ROOT, 'packages/db/src/generated/prisma');
const SCHEMA_HASH_FILE = path.join(GENERATED_DIR, '.schema-hash');
// Where each workspace's jest writes its JSON report, relative to the workspace (.turbo/ is gitignored).
const JEST_REPORT = '.turbo/jest-report.json';
// Workspaces tested at once. Measured on 2 cores (each jest runs 2 workers; much of a test run waits
// on PostgreSQL and Redis): 2 took 89 s and 130 s where 1 took 196 s and 163 s, all green both ways.
// HW_TEST_CONCURRENCY overrides it.
const TEST_CONCURRENCY = Number(process.env.HW_TEST_CONCURRENCY) || 2;
const DEMO_EMAIL = 'demo@hashwatch.local';
const DEMO_FILE = path.join(DATA_DIR, 'demo.json');
const SECRETS_KEY_FILE = path.join(DATA_DIR, 'secrets.key');

/**
 * How `npm start` runs each process. Apps are discovered from apps/<name>/package.json (those with a
 * `start` script); an app missing from this table runs as a worker with its own HEALTH_PORT.
 * - tier `outside` plays the outside world and starts first; `provides` hands its address to every
 *   other process (unless that variable is already set in the environment);
 * - tier `suite` is Hashwatch itself; `ready` is the path `npm start` waits for before printing the key;
 * - tier `cli` is never started.
 * `port` is the preferred port, given in `portEnv`; the next free one is used when it is busy. `env` adds
 * variables for that process only.
 */
const ROLES = {
  'x-sim': { tier: 'outside', portEnv: 'X_SIM_PORT', port: 4100, env: { X_SIM_HOST: '127.0.0.1' }, provides: (url) => ({ X_API_BASE_URL: url }) },
  // The local alert inbox: receives webhook alerts and plays the Telegram Bot API.
  'alert-inbox': { tier: 'outside', portEnv: 'ALERT_INBOX_PORT', port: 4200, provides: (url) => ({ TELEGRAM_API_BASE_URL: url }) },
  gateway: { tier: 'suite', portEnv: 'PORT', port: 3000, ready: '/healthz' },
  scanner: { tier: 'suite', portEnv: 'HEALTH_PORT', port: 4001 },
  'engagement-poller': { tier: 'suite', portEnv: 'HEALTH_PORT', port: 4002 },
  notifier: { tier: 'suite', portEnv: 'HEALTH_PORT', port: 4003 },
  admin: { tier: 'cli' },
};

/**
 * Processes that are plain scripts rather than apps, one `{ name, script }` line each (path from the
 * repository root); their role comes from ROLES. A script whose file does not exist is skipped.
 */
const SCRIPTS = [];

/** Demo defaults for every started process; the environment wins. */
const DEMO_ENV = {
  QUEUE_PREFIX: 'hw',
  // x-sim accepts whatever tokens the suite is given.
  X_BEARER_TOKEN: 'demo',
  X_USER_TOKEN: 'demo-user',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
};

// ---------------------------------------------------------------------------------------------------
// Children, signals and cleanup

/** Async functions run in reverse order on the way out: stop apps, then the services they use. */
const cleanups = [];
/** Detached children (own process group) that a signal must reach: the foreground task or the apps. */
const children = new Set();
let interrupted;
let signals = 0;
let lastSignalAt = 0;
let wakeOnSignal = () => undefined;

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * First signal: stop everything in order. Second: SIGKILL the children, still stop the databases.
 * Third: leave at once. `npm start` forwards the terminal's Ctrl-C to us, so one keypress can arrive
 * twice within milliseconds: those count once.
 */
function onSignal(signal) {
  const now = Date.now();
  if (interrupted && now - lastSignalAt < 2000) return;
  lastSignalAt = now;
  signals += 1;
  if (signals === 1) {
    interrupted = signal;
    say(`${signal}: stopping (Ctrl-C again to kill)`);
    for (const child of children) if (child.foreground) killGroup(child, signal);
    wakeOnSignal();
  } else if (signals === 2) {
    warn(`${signal} again: killing the children, then stopping the databases (Ctrl-C again to leave them)`);
    for (const child of children) killGroup(child, 'SIGKILL');
  } else {
    process.exit(130);
  }
}

// A closed terminal must not crash the shutdown.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => onSignal(signal));
// npm exits on SIGTERM without passing it on: when `npm start` is killed that way, our parent just
// disappears. Treat that as a hang-up so nothing we started outlives it.
const parentPid = process.ppid;
const parentWatch = setInterval(() => {
  if (process.ppid === parentPid) return;
  clearInterval(parentWatch);
  onSignal('SIGHUP');
}, 1000);
parentWatch.unref();

function checkInterrupted() {
  if (interrupted) throw new Interrupted(interrupted);
}

/**
 * Runs a command in its own process group with inherited output, and resolves with its exit code.
 * Its own group keeps the terminal's Ctrl-C away from it: we forward signals once, in order.
 */
function runForeground(command, args, { cwd = ROOT, env = process.env } = {}) {
  checkInterrupted();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    child.foreground = true;
    children.add(child);
    child.once('error', (error) => {
      children.delete(child);
      reject(new DevError(`cannot run ${command}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (interrupted) reject(new Interrupted(interrupted));
      else resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15));
    });
  });
}

async function runCleanups() {
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch (error) {
      warn(`cleanup failed: ${error.message}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Workspaces

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Every workspace (apps/*, packages/*) with its package.json. */
/** Every workspace the root package.json names (`apps/*`, `packages/*`, `e2e`), with its manifest's name and scripts. */
function workspaces() {
  const found = [];
  const add = (rel) => {
    const manifest = path.join(ROOT, rel, 'package.json');
    if (!existsSync(manifest)) return;
    const pkg = readJson(manifest);
    found.push({ dir: path.join(ROOT, rel), rel, folder: path.basename(rel), name: pkg.name, scripts: pkg.scripts ?? {} });
  };
  for (const pattern of readJson(path.join(ROOT, 'package.json')).workspaces ?? []) {
    if (!pattern.endsWith('/*')) {
      add(pattern);
      continue;
    }
    const parent = pattern.slice(0, -2);
    if (!existsSync(path.join(ROOT, parent))) continue;
    for (const entry of readdirSync(path.join(ROOT, parent), { withFileTypes: true })) {
      if (entry.isDirectory()) add(`${parent}/${entry.name}`);
    }
  }
  return found.sort((a, b) => a.rel.localeCompare(b.rel));
}

function hasSources(dir) {
  const src = path.join(dir, 'src');
  if (!existsSync(src)) return false;
  const walk = (folder) =>
    readdirSync(folder, { withFileTypes: true }).some((entry) =>
      entry.isDirectory() ? walk(path.join(folder, entry.name)) : /\.[cm]?[jt]sx?$/.test(entry.name),
    );
  return walk(src);
}

// ---------------------------------------------------------------------------------------------------
// Shared steps

const mtime = (file) => statSync(file).mtimeMs;

/** `npm install` when node_modules is missing or a manifest changed since the last install. */
async function ensureInstall() {
  const marker = path.join(ROOT, 'node_modules/.package-lock.json');
  let reason;
  if (!existsSync(marker)) reason = 'node_modules is missing';
  else {
    const installedAt = mtime(marker);
    const manifests = ['package.json', 'package-lock.json', ...workspaces().map((ws) => `${ws.rel}/package.json`)];
    const changed = manifests.find((rel) => existsSync(path.join(ROOT, rel)) && mtime(path.join(ROOT, rel)) > installedAt);
    if (changed) reason = `${changed} changed since the last install`;
  }
  if (!reason) return;
  say(`npm install (${reason})`);
  const code = await runForeground('npm', ['install', '--no-audit', '--no-fund', '--loglevel=warn']);
  if (code !== 0) throw new DevError(`npm install failed (exit ${code})`);
  // npm leaves the marker untouched when nothing changed; touch it so the next run skips the install.
  const now = new Date();
  utimesSync(marker, now, now);
}

/** Prisma client into packages/db/src/generated/prisma, only when missing or out of date. */
async function generate() {
  const prismaPkg = path.join(ROOT, 'node_modules/prisma/package.json');
  if (!existsSync(prismaPkg)) throw new DevError('the prisma CLI is not installed: run `npm install` first');
  const schema = readFileSync(path.join(ROOT, 'prisma/schema.prisma'));
  const hash = createHash('sha256')
    .update(schema)
    .update(`\0prisma ${readJson(prismaPkg).version}`)
    .digest('hex');
  const current = existsSync(SCHEMA_HASH_FILE) ? readFileSync(SCHEMA_HASH_FILE, 'utf8').trim() : undefined;
  const present = existsSync(path.join(GENERATED_DIR, 'client.ts'));
  if (present && current === hash) return;
  say(`prisma generate (${present ? 'prisma/schema.prisma or the prisma version changed' : 'no generated client yet'})`);
  const env = {
    ...process.env,
    // generate never migrates; Prisma only checks that the schema engine binary exists, and it cannot
    // be downloaded on every machine.
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  };
  const code = await runForeground('npx', ['--no-install', 'prisma', 'generate'], { env });
  if (code !== 0) throw new DevError(`prisma generate failed (exit ${code})`);
  writeFileSync(SCHEMA_HASH_FILE, `${hash}\n`);
}

/** Starts (or finds) PostgreSQL and Redis; registers their stop. */
async function services() {
  checkInterrupted();
  const result = await ensureServices({ root: ROOT, dataDir: DATA_DIR, env: process.env, log: say });
  cleanups.push(result.stop);
  checkInterrupted();
  return result;
}

// ---------------------------------------------------------------------------------------------------
// Database

function loadPg() {
  try {
    return createRequire(path.join(ROOT, 'packages/db/package.json'))('pg');
  } catch {
    throw new DevError('the pg package is not installed: run `npm install` first');
  }
}

const quoteIdent = (name) => `"${name.replace(/"/g, '""')}"`;

/** Creates the database named in `databaseUrl` when the server answers but it does not exist yet. */
async function ensureDatabase(databaseUrl) {
  const pg = loadPg();
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new DevError(`DATABASE_URL names no database: ${redactUrl(databaseUrl)}`);
  const probe = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  try {
    await probe.connect();
    return;
  } catch (error) {
    if (error.code !== '3D000') throw new DevError(`cannot connect to ${redactUrl(databaseUrl)}: ${error.message}`);
  } finally {
    await probe.end().catch(() => undefined);
  }
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 10_000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    say(`created database ${name}`);
  } catch (error) {
    // 42P04: another process created it first.
    if (error.code !== '42P04') throw new DevError(`cannot create database ${name}: ${error.message}`);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

async function migrateDatabase(databaseUrl, env = process.env) {
  await ensureDatabase(databaseUrl);
  const code = await runForeground('npm', ['run', '--silent', 'migrate', '-w', '@hashwatch/db'], {
    env: { ...env, DATABASE_URL: databaseUrl },
  });
  if (code !== 0) throw new DevError(`migrations failed on ${redactUrl(databaseUrl)} (exit ${code})`);
}

// ---------------------------------------------------------------------------------------------------
// test

/** How many test files jest finds in the workspace, or undefined when it cannot tell. */
function countTests(ws) {
  const result = spawnSync('npx', ['--no-install', 'jest', '--listTests', '--json'], { cwd: ws.dir, encoding: 'utf8', timeout: 60_000 });
  try {
    return JSON.parse(result.stdout).length;
  } catch {
    return undefined;
  }
}

function summarizeReports(testable) {
  const rows = [];
  let passed = 0;
  let failed = 0;
  for (const ws of testable) {
    const file = path.join(ws.dir, JEST_REPORT);
    if (!existsSync(file)) {
      failed += 1;
      const text = countTests(ws) === 0
        ? 'has no tests: every workspace must have tests'
        : 'jest did not finish, no report (see its output above)';
      rows.push({ ws, ok: false, text });
      continue;
    }
    const report = readJson(file);
    const broken = report.numRuntimeErrorTestSuites ?? 0;
    let wsFailed = report.numFailedTests + broken;
    if (report.numTotalTests === 0 && wsFailed === 0) {
      wsFailed = 1;
      rows.push({ ws, ok: false, text: 'ran no tests: every workspace must have tests' });
    } else if (!report.success && wsFailed === 0) {
      wsFailed = 1;
      rows.push({ ws, ok: false, text: `${report.numPassedTests} passed, but jest failed the run (open handles, snapshots or coverage)` });
    } else {
      const parts = [`${report.numPassedTests} passed`];
      if (report.numFailedTests) parts.push(`${report.numFailedTests} failed`);
      if (broken) parts.push(`${broken} test file(s) failed to run`);
      if (report.numPendingTests) parts.push(`${report.numPendingTests} skipped`);
      rows.push({ ws, ok: wsFailed === 0, text: parts.join(', ') });
    }
    passed += report.numPassedTests;
    failed += wsFailed;
  }
  return { rows, passed, failed };
}

/** The dev script's own tests (infra/*.test.mjs, node:test), counted like a workspace. */
async function runInfraTests() {
  const tap = path.join(DATA_DIR, 'infra-tests.tap');
  mkdirSync(DATA_DIR, { recursive: true });
  rmSync(tap, { force: true });
  say('running the tests of infra/ (node --test)');
  const files = readdirSync(path.join(ROOT, 'infra')).filter((name) => name.endsWith('.test.mjs')).map((name) => `infra/${name}`);
  const code = await runForeground(process.execPath, [
    '--test',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    ...files,
  ]);
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  const passed = count('pass');
  const failedTests = count('fail') + count('cancelled');
  // A crash before any result, or no tests at all, still fails the run.
  const failed = failedTests > 0 ? failedTests : code !== 0 || passed === 0 ? 1 : 0;
  const summary = failedTests > 0 ? `${passed} passed, ${failedTests} failed` : failed ? `no results (exit ${code})` : `${passed} passed`;
  return { passed, failed, row: { ws: { name: 'infra (node --test)' }, ok: failed === 0, text: summary } };
}

async function commandTest() {
  await ensureInstall();
  const { databaseUrl, redisUrl } = await services();
  await generate();

  const all = workspaces();
  const testable = all.filter((ws) => ws.scripts.test);
  const untestable = all.filter((ws) => !ws.scripts.test && hasSources(ws.dir));
  for (const ws of testable) {
    mkdirSync(path.dirname(path.join(ws.dir, JEST_REPORT)), { recursive: true });
    rmSync(path.join(ws.dir, JEST_REPORT), { force: true });
  }
  const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, TURBO_TELEMETRY_DISABLED: '1' };
  say(`running the tests of ${testable.length} workspaces`);
  const code = await runForeground(
    'npx',
    [
      '--no-install', 'turbo', 'run', 'test',
      `--concurrency=${TEST_CONCURRENCY}`, '--continue', '--ui=stream',
      // --forceExit: a test file that leaks a handle must not hang the whole run (jest still names it).
      '--', '--json', `--outputFile=${JEST_REPORT}`, '--forceExit',
    ],
    { env },
  );

  const infra = await runInfraTests();

  const { rows, passed: jestPassed, failed: testFailed } = summarizeReports(testable);
  rows.push(infra.row);
  const passed = jestPassed + infra.passed;
  let failed = testFailed + infra.failed;
  for (const ws of untestable) {
    failed += 1;
    rows.push({ ws, ok: false, text: 'has sources but no `test` script' });
  }
  process.stdout.write('\n');
  const width = Math.max(...rows.map((row) => row.ws.name.length));
  for (const row of rows) {
    process.stdout.write(`${row.ok ? paint('32', '  ok  ') : paint('31', '  FAIL')} ${row.ws.name.padEnd(width)}  ${row.text}\n`);
  }
  if (code !== 0 && failed === 0) {
    // turbo failed without any workspace reporting a failure (a crash before jest, a config error).
    failed += 1;
    warn(`turbo exited with ${code} although every report passed`);
  }
  await runCleanups();
  process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
  return failed > 0 || code !== 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------
// start

function secretsKey() {
  if (process.env.SECRETS_KEY) return process.env.SECRETS_KEY;
  if (existsSync(SECRETS_KEY_FILE)) return readFileSync(SECRETS_KEY_FILE, 'utf8').trim();
  mkdirSync(DATA_DIR, { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(SECRETS_KEY_FILE, `${key}\n`, { mode: 0o600, flag: 'wx' });
  say('generated SECRETS_KEY into .data/secrets.key');
  return key;
}

/** What to do when the database holds secrets sealed with another key than this start's SECRETS_KEY. */
function keyMismatchHelp(databaseUrl) {
  const where = process.env.SECRETS_KEY ? 'the SECRETS_KEY in your environment' : '.data/secrets.key';
  return [
    `the database (${redactUrl(databaseUrl)}) holds secrets sealed with another SECRETS_KEY than ${where}`,
    '(a new clone, or .data/ deleted, while PostgreSQL kept the demo database). Either:',
    '  - start with the key they were sealed with: SECRETS_KEY=<old key> npm start (or put it back in .data/secrets.key);',
    '    to move to a new key, start with SECRETS_KEY=<new> SECRETS_KEY_PREVIOUS=<old> and run npm run admin -- secrets:reseal;',
    '  - or, for a demo database you can lose, drop it and start afresh: dropdb hashwatch (or another DATABASE_URL), then npm start.',
  ].join('\n');
}

/** Runs the admin CLI: one JSON object on stdout when it succeeds, `{error}` on stderr when not. */
function admin(args, env) {
  const main = path.join(ROOT, 'apps/admin/dist/main.js');
  if (!existsSync(main)) throw new DevError('the admin CLI is not built (apps/admin/dist/main.js is missing after the build)');
  const result = spawnSync(process.execPath, [main, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  const lastJson = (text) => {
    for (const line of (text ?? '').trim().split('\n').reverse()) {
      try {
        return JSON.parse(line);
      } catch {
        // a log line
      }
    }
    return undefined;
  };
  if (result.status === 0) {
    const data = lastJson(result.stdout);
    if (data) return { ok: true, data };
  }
  const error = lastJson(result.stderr)?.error;
  return { ok: false, error: error ?? { code: 'unknown', message: `exit ${result.status ?? result.signal}: ${(result.stderr ?? '').trim().split('\n').pop()}` } };
}

function adminOrThrow(args, env) {
  const result = admin(args, env);
  if (!result.ok) throw new DevError(`admin ${args[0]} failed: ${result.error.code}: ${result.error.message}`);
  return result.data;
}

function saveDemo(demo) {
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
}

/** The demo account's API key: created on the first run, reused (or regenerated when lost) after. */
function demoAccount(env) {
  const created = admin(['account:create', '--email', DEMO_EMAIL, '--plan', 'business'], env);
  if (created.ok) {
    saveDemo({ account_id: created.data.account_id, api_key: created.data.api_key });
    say(`created the demo account ${DEMO_EMAIL}`);
    return created.data;
  }
  if (created.error.code !== 'already_exists') {
    throw new DevError(`admin account:create failed: ${created.error.code}: ${created.error.message}`);
  }
  const { account_id: accountId } = adminOrThrow(['account:find', '--email', DEMO_EMAIL], env);
  let saved;
  try {
    saved = readJson(DEMO_FILE);
  } catch {
    saved = undefined;
  }
  if (saved?.account_id === accountId && saved.api_key) return saved;
  return regenerateDemoKey(accountId, env);
}

function regenerateDemoKey(accountId, env) {
  const { api_key: apiKey } = adminOrThrow(['apikey:regenerate', '--account', accountId], env);
  saveDemo({ account_id: accountId, api_key: apiKey });
  say('issued a new API key for the demo account (the saved one was missing or stale)');
  return { account_id: accountId, api_key: apiKey };
}

/** The apps and scripts to run, in start order, each with its role. */
function plannedProcesses() {
  const planned = [];
  for (const ws of workspaces()) {
    if (!ws.rel.startsWith('apps/') || !ws.scripts.start) continue;
    const role = ROLES[ws.folder] ?? { tier: 'suite', portEnv: 'HEALTH_PORT', port: 4010 };
    if (role.tier === 'cli') continue;
    const direct = /^node\s+(\S+)$/.exec(ws.scripts.start.trim());
    if (direct && !existsSync(path.join(ws.dir, direct[1]))) {
      warn(`${ws.rel}: ${direct[1]} is missing after the build; not started`);
      continue;
    }
    planned.push({
      name: ws.folder,
      role,
      cwd: ws.dir,
      command: direct ? process.execPath : 'npm',
      args: direct ? [direct[1]] : ['run', '--silent', 'start'],
    });
  }
  for (const { name, script } of SCRIPTS) {
    if (!existsSync(path.join(ROOT, script)) || planned.some((p) => p.name === name)) continue;
    planned.push({ name, role: ROLES[name] ?? { tier: 'outside' }, cwd: ROOT, command: process.execPath, args: [script] });
  }
  const order = { outside: 0, suite: 1 };
  return planned.sort((a, b) => order[a.role.tier] - order[b.role.tier]);
}

const LOG_COLORS = ['36', '35', '34', '32', '33', '96', '95', '94'];
const QUIET_LOG_KEYS = new Set(['level', 'message', 'timestamp', 'service']);

/** JSON log lines become `level message key=value`; anything else passes through. */
function readableLine(line) {
  if (!line.startsWith('{')) return line;
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof entry.message !== 'string') return line;
  const level = String(entry.level ?? '');
  const levelText = level === 'error' ? paint('31', level) : level === 'warn' ? paint('33', level) : paint('2', level);
  const fields = Object.entries(entry)
    .filter(([key]) => !QUIET_LOG_KEYS.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`);
  return [levelText, entry.message, ...fields].join(' ');
}

function launch(proc, env, width, index) {
  const tag = paint(LOG_COLORS[index % LOG_COLORS.length], proc.name.padEnd(width));
  const child = spawn(proc.command, proc.args, { cwd: proc.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  proc.keyMismatch = false;
  const pipe = (stream, out) =>
    readline.createInterface({ input: stream }).on('line', (line) => {
      // The one line an app prints when SECRETS_KEY cannot open the stored secrets (CONTRACT 2).
      if (line.startsWith('SECRETS_KEY (nor SECRETS_KEY_PREVIOUS')) proc.keyMismatch = true;
      out.write(`${tag} ${readableLine(line)}\n`);
    });
  pipe(child.stdout, process.stdout);
  pipe(child.stderr, process.stderr);
  proc.child = child;
  proc.exited = new Promise((resolve) => {
    child.once('error', (error) => {
      warn(`${proc.name} could not start: ${error.message}`);
      children.delete(child);
      resolve();
    });
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (!interrupted) warn(`${proc.name} exited (${signal ?? `code ${code}`})`);
      resolve();
    });
  });
  return proc;
}

async function stopProcesses(procs) {
  const running = procs.filter((proc) => proc.child && children.has(proc.child));
  for (const proc of running) killGroup(proc.child, 'SIGTERM');
  await Promise.all(
    running.map(async (proc) => {
      const timer = setTimeout(() => {
        warn(`${proc.name} did not stop within 10 s; killing it`);
        killGroup(proc.child, 'SIGKILL');
      }, 10_000);
      await proc.exited;
      clearTimeout(timer);
    }),
  );
}

async function waitUntil(check, { timeoutMs, proc }) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    checkInterrupted();
    if (proc && !children.has(proc.child)) return false;
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return false;
}

const httpOk = async (url, headers = {}) => {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
    return response.status;
  } catch {
    return 0;
  }
};

async function commandStart() {
  await ensureInstall();
  const { databaseUrl, redisUrl } = await services();
  await generate();
  // The build runs with the caller's environment: turbo hashes DATABASE_URL / REDIS_URL (globalEnv), and a
  // private instance's URL must not invalidate the build cache.
  say('building every workspace');
  const built = await runForeground('npx', ['--no-install', 'turbo', 'run', 'build', '--ui=stream', '--output-logs=errors-only'], {
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  if (built !== 0) throw new DevError(`the build failed (exit ${built})`);
  await migrateDatabase(databaseUrl);
  checkInterrupted();

  const env = { ...DEMO_ENV, ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, SECRETS_KEY: secretsKey() };
  delete env.HEALTH_PORT;
  const demo = demoAccount(env);

  const procs = plannedProcesses();
  if (!procs.some((proc) => proc.role.ready)) throw new DevError('no app with a health check to wait for (is apps/gateway built?)');
  const taken = new Set();
  for (const proc of procs) {
    if (!proc.role.portEnv) continue;
    const preferred = proc.name === 'gateway' && process.env.PORT ? Number(process.env.PORT) : (proc.role.port ?? 4010);
    proc.port = await freePort(preferred, taken);
    taken.add(proc.port);
    if (proc.port !== preferred) say(`${proc.name}: port ${preferred} is busy, using ${proc.port}`);
    const provided = proc.role.provides?.(`http://127.0.0.1:${proc.port}`) ?? {};
    for (const [key, value] of Object.entries(provided)) if (!process.env[key]) env[key] = value;
  }

  const width = Math.max(3, ...procs.map((proc) => proc.name.length));
  cleanups.push(() => stopProcesses(procs.filter((proc) => proc.role.tier === 'outside')));
  cleanups.push(() => stopProcesses(procs.filter((proc) => proc.role.tier !== 'outside')));
  for (const [index, proc] of procs.entries()) {
    const procEnv = { ...env, ...proc.role.env };
    if (proc.role.portEnv) procEnv[proc.role.portEnv] = String(proc.port);
    if (proc.role.portEnv === 'HEALTH_PORT') delete procEnv.PORT;
    launch(proc, procEnv, width, index);
    if (proc.role.tier === 'outside' && proc.port) {
      const listening = () =>
        new Promise((resolve) => {
          const socket = net.connect({ host: '127.0.0.1', port: proc.port });
          socket.once('connect', () => (socket.destroy(), resolve(true)));
          socket.once('error', () => resolve(false));
        });
      if (!(await waitUntil(listening, { timeoutMs: 30_000, proc }))) warn(`${proc.name} is not listening on ${proc.port}`);
    }
  }

  for (const proc of procs.filter((p) => p.role.ready)) {
    const url = `http://127.0.0.1:${proc.port}${proc.role.ready}`;
    if (!(await waitUntil(async () => (await httpOk(url)) === 200, { timeoutMs: 60_000, proc }))) {
      // An app's exit can be seen before its last line is read.
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (procs.some((p) => p.keyMismatch)) throw new DevError(keyMismatchHelp(databaseUrl));
      throw new DevError(`${proc.name} did not answer ${url} within 60 s (see its output above)`);
    }
  }

  const gateway = procs.find((proc) => proc.name === 'gateway');
  let apiKey = demo.api_key;
  if (gateway) {
    const me = `http://127.0.0.1:${gateway.port}/v1/me`;
    const status = await httpOk(me, { authorization: `Bearer ${apiKey}` });
    if (status === 401) {
      apiKey = regenerateDemoKey(demo.account_id, env).api_key;
    } else if (status !== 200) {
      warn(`GET /v1/me with the demo key answered ${status || 'nothing'}`);
    }
  }

  const inbox = procs.find((proc) => proc.name === 'alert-inbox');
  if (gateway) await prepareDemo(`http://127.0.0.1:${gateway.port}/v1`, apiKey, inbox?.port);

  process.stdout.write('\n');
  say('Hashwatch is running. Press Ctrl-C to stop everything.');
  for (const proc of procs.filter((p) => p.role.tier === 'outside' && p.port)) say(`  ${proc.name}: http://127.0.0.1:${proc.port}`);
  if (gateway) say(`  API: http://localhost:${gateway.port}/v1   docs: http://localhost:${gateway.port}/docs`);
  say(`  demo account ${DEMO_EMAIL}, API key: ${apiKey}`);
  if (gateway) say(`  curl -H "Authorization: Bearer ${apiKey}" http://localhost:${gateway.port}/v1/me`);
  process.stdout.write('\n');

  await new Promise((resolve) => {
    wakeOnSignal = resolve;
    if (interrupted) resolve();
  });
  throw new Interrupted(interrupted);
}

/**
 * Gives a fresh demo account something to watch (tags the simulator's generator posts about) and a
 * webhook channel to the local alert inbox, so posts visibly flow from x-sim to an alert. Only when the
 * account has none yet: a demo the user reconfigured is left alone.
 */
async function prepareDemo(base, apiKey, inboxPort) {
  const call = async (method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
  try {
    const tracks = await call('GET', '/tracks');
    if (tracks.status === 200 && tracks.body.data.length === 0) {
      for (const hashtag of ['btc', 'eth', 'ai']) await call('POST', '/tracks', { hashtag, track_engagement: hashtag === 'btc' });
      say('demo account tracks #btc, #eth and #ai (and $BTC, $ETH)');
    }
    const channels = await call('GET', '/notifications');
    if (inboxPort && channels.status === 200 && channels.body.webhooks.length === 0) {
      const saved = await call('PUT', '/notifications', {
        webhooks: [{ url: `http://127.0.0.1:${inboxPort}/hashwatch`, format: 'json', bot_name: 'Hashwatch demo' }],
        bot: null,
      });
      if (saved.status === 200) say(`demo alerts go to the alert inbox: http://127.0.0.1:${inboxPort}/`);
      else warn(`could not create the demo alert channel (PUT /v1/notifications answered ${saved.status})`);
    }
  } catch (error) {
    warn(`could not prepare the demo account: ${error.message}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// migrate (npm run db:migrate): DATABASE_URL as given, no private instances.

async function commandMigrate() {
  await ensureInstall();
  await generate();
  const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const probe = await probePostgres(databaseUrl);
  if (!probe.ok) throw new DevError(`PostgreSQL does not answer at ${redactUrl(databaseUrl)} (${probe.detail})`);
  await migrateDatabase(databaseUrl);
}

// ---------------------------------------------------------------------------------------------------

const COMMANDS = {
  generate: async () => {
    await ensureInstall();
    await generate();
    return 0;
  },
  migrate: async () => {
    await commandMigrate();
    return 0;
  },
  test: commandTest,
  start: commandStart,
};

async function main() {
  const name = process.argv[2];
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`usage: node infra/dev.mjs ${Object.keys(COMMANDS).join('|')}\n`);
    return 2;
  }
  try {
    return await command();
  } catch (error) {
    if (error instanceof Interrupted) {
      await runCleanups();
      return 130;
    }
    await runCleanups();
    if (error instanceof DevError) {
      process.stderr.write(`hashwatch: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`hashwatch: unexpected failure: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
