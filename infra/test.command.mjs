// `npm test`: install, services, Chromium (for the browser tests), kubectl (for the manifest tests), Prisma client, one
// migrated template database that every test file clones, then every workspace's tests through turbo, the tests of what
// a Redis Cluster changes again on a private cluster, and infra/'s own tests; then one summary: a row per workspace the
// root package.json names (e2e included), one per cluster run, one for infra/, the slowest test files, and
// `tests: N passed, M failed`. A workspace with sources but no `test` script counts as a failure. Exits 1 when anything
// failed. `npm test -- gateway infra` runs only the named workspaces (and infra/'s tests), with the same services.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureChromium } from './chromium.mjs';
import { DevError } from './errors.mjs';
import { ensureInstall } from './install.mjs';
import { ensureKubectl } from './kubectl.mjs';
import { ensurePgbouncer } from './pgbouncer.mjs';
import { JEST_REPORT, readReports, slowestFiles, summarizeReports } from './jest-reports.mjs';
import { localTools } from './local-tools.mjs';
import { paint, say, warn } from './output.mjs';
import { generatePrismaClient } from './prisma-client.mjs';
import { startRedisCluster } from './redis-cluster.mjs';
import { startServices } from './services.mjs';
import { prepareTemplateDatabase } from './test-template.mjs';
import { DATA_DIR, hasSources, ROOT, workspaces } from './workspaces.mjs';

// Workspaces tested at once. Measured on 2 cores (each jest runs 2 workers; much of a test run waits
// on PostgreSQL and Redis): 2 took 89 s and 130 s where 1 took 196 s and 163 s, all green both ways.
// HW_TEST_CONCURRENCY overrides it.
const TEST_CONCURRENCY = Number(process.env.HW_TEST_CONCURRENCY) || 2;

/** Runs every testable workspace's jest through turbo, each writing its JSON report; resolves with turbo's exit code. */
async function runWorkspaceTests(supervisor, testable, { databaseUrl, redisUrl, template, chromiumPath, pgbouncerPath, filter }) {
  for (const ws of testable) {
    mkdirSync(path.dirname(path.join(ws.dir, JEST_REPORT)), { recursive: true });
    rmSync(path.join(ws.dir, JEST_REPORT), { force: true });
  }
  const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, HW_TEST_TEMPLATE_DB: template, CHROMIUM_PATH: chromiumPath, PGBOUNCER_PATH: pgbouncerPath, TURBO_TELEMETRY_DISABLED: '1' };
  say(`running the tests of ${testable.length} workspaces`);
  return supervisor.runForeground(
    'npx',
    [
      '--no-install', 'turbo', 'run', 'test',
      ...(filter ? testable.map((ws) => `--filter=${ws.name}`) : []),
      `--concurrency=${TEST_CONCURRENCY}`, '--continue', '--ui=stream',
      // --forceExit: a test file that leaks a handle must not hang the whole run (jest still names it).
      '--', '--json', `--outputFile=${JEST_REPORT}`, '--forceExit',
    ],
    { env },
  );
}

// What runs a second time on a Redis Cluster (REDIS_CLUSTER_NODES): the tests of what a cluster changes. A cluster
// spreads keys over slots, so it is the queues (BullMQ's keys and scripts), the X client's shared rate budget, the
// notifier's leases, pacing and circuits (multi-key scripts that must keep to one slot), and one end-to-end scenario
// with every app on the cluster (replicas: two of each worker sharing its queues). The rest of the suite uses Redis
// through these same modules, which is what the first pass already covered.
const CLUSTER_WORKSPACES = ['@hashwatch/queues', '@hashwatch/x-api', '@hashwatch/notifier', '@hashwatch/e2e'];
const CLUSTER_FILES = [
  'packages/queues/src/',
  'packages/x-api/src/rate-budget',
  'apps/notifier/src/delivery/(drain-channel|drain-scheduler|destination-pace|key-slots|pacing|tarpit)',
  'e2e/src/replicas',
].join('|');
const CLUSTER_REPORT = '.turbo/jest-report-cluster.json';
const CLUSTER_LABEL = '(redis cluster)';

/**
 * Runs CLUSTER_WORKSPACES' tests against a private three-master Redis Cluster started from `redis-server` for
 * this run and removed after it; resolves with their rows and totals, labelled CLUSTER_LABEL.
 */
async function runClusterTests(supervisor, testable, { databaseUrl, redisUrl, template, chromiumPath }) {
  const selected = testable.filter((ws) => CLUSTER_WORKSPACES.includes(ws.name));
  for (const ws of selected) rmSync(path.join(ws.dir, CLUSTER_REPORT), { force: true });
  const redisServer = localTools.findRedisServer();
  if (!redisServer) {
    const row = { ws: { name: `Redis Cluster ${CLUSTER_LABEL}` }, ok: false, text: 'redis-server is not installed: the cluster tests need it' };
    return { rows: [row], passed: 0, failed: 1, code: 1 };
  }
  const cluster = await startRedisCluster({ redisServer, log: say });
  supervisor.onCleanup(() => cluster.stop());
  say(`running the tests of ${selected.length} workspaces on the Redis Cluster`);
  const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_CLUSTER_NODES: cluster.nodes, HW_TEST_TEMPLATE_DB: template, CHROMIUM_PATH: chromiumPath, TURBO_TELEMETRY_DISABLED: '1' };
  const code = await supervisor.runForeground(
    'npx',
    [
      '--no-install', 'turbo', 'run', 'test',
      ...selected.map((ws) => `--filter=${ws.name}`),
      `--concurrency=${TEST_CONCURRENCY}`, '--continue', '--ui=stream',
      '--', '--json', `--outputFile=${CLUSTER_REPORT}`, '--forceExit', `--testPathPatterns=${CLUSTER_FILES}`,
    ],
    { env },
  );
  await cluster.stop();
  return { ...summarizeReports(selected, { report: CLUSTER_REPORT, label: CLUSTER_LABEL }), code };
}

/** The dev script's own tests (infra/*.test.mjs, node:test), counted like a workspace; KUBECTL for k8s.test.mjs. */
async function runInfraTests(supervisor, kubectlPath) {
  const tap = path.join(DATA_DIR, 'infra-tests.tap');
  mkdirSync(DATA_DIR, { recursive: true });
  rmSync(tap, { force: true });
  say('running the tests of infra/ (node --test)');
  const files = readdirSync(path.join(ROOT, 'infra')).filter((name) => name.endsWith('.test.mjs')).map((name) => `infra/${name}`);
  const code = await supervisor.runForeground(process.execPath, [
    '--test',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    ...files,
  ], { env: { ...process.env, KUBECTL: kubectlPath } });
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  const passed = count('pass');
  const failedTests = count('fail') + count('cancelled');
  // A crash before any result, or no tests at all, still fails the run.
  const failed = failedTests > 0 ? failedTests : code !== 0 || passed === 0 ? 1 : 0;
  const summary = failedTests > 0 ? `${passed} passed, ${failedTests} failed` : failed ? `no results (exit ${code})` : `${passed} passed`;
  return { passed, failed, row: { ws: { name: 'infra (node --test)' }, ok: failed === 0, text: summary } };
}

/** The summary's rows, `ok` or `FAIL`, names aligned. */
function printRows(rows) {
  process.stdout.write('\n');
  const width = Math.max(...rows.map((row) => row.ws.name.length));
  for (const row of rows) {
    process.stdout.write(`${row.ok ? paint('32', '  ok  ') : paint('31', '  FAIL')} ${row.ws.name.padEnd(width)}  ${row.text}\n`);
    for (const failure of row.failures ?? []) process.stdout.write(`         ✕ ${failure}\n`);
  }
}

// Test files named at the end of every run, slowest first: where to look when the run gets slower.
const SLOWEST_SHOWN = 10;

function printSlowest(entries) {
  const slowest = slowestFiles(entries, { root: ROOT, count: SLOWEST_SHOWN });
  if (slowest.length === 0) return;
  process.stdout.write(`\nslowest ${slowest.length} test files:\n`);
  for (const { file, label, ms } of slowest) {
    process.stdout.write(`  ${`${(ms / 1000).toFixed(1)} s`.padStart(8)}  ${file}${label ? ` ${label}` : ''}\n`);
  }
}

/**
 * What `npm test -- <name>…` names: workspaces by package name, folder (`gateway`) or path (`apps/gateway`), and
 * `infra` for infra/'s own tests. No name: everything, with the Redis Cluster pass.
 */
export function selectTests(names, testable) {
  if (names.length === 0) return { workspaces: testable, infra: true, cluster: true };
  const chosen = new Set();
  let infra = false;
  for (const name of names) {
    if (name === 'infra') {
      infra = true;
      continue;
    }
    const ws = testable.find((candidate) => [candidate.name, candidate.rel, candidate.folder].includes(name.replace(/\/$/, '')));
    if (!ws) {
      const known = ['infra', ...testable.map((candidate) => candidate.folder)].join(', ');
      throw new DevError(`no workspace with tests is called ${name}: name one of ${known}`);
    }
    chosen.add(ws);
  }
  return { workspaces: testable.filter((ws) => chosen.has(ws)), infra, cluster: false };
}

const NO_CLUSTER_RUN = { rows: [], passed: 0, failed: 0, code: 0 };
const NO_INFRA_RUN = { passed: 0, failed: 0, row: undefined };

export async function testCommand(supervisor, names = []) {
  const all = workspaces();
  const testable = all.filter((ws) => ws.scripts.test);
  const selected = selectTests(names, testable);
  await ensureInstall(supervisor);
  const services = await startServices(supervisor);
  const chromiumPath = await ensureChromium(supervisor);
  const kubectlPath = await ensureKubectl(supervisor);
  const pgbouncerPath = await ensurePgbouncer(supervisor);
  await generatePrismaClient(supervisor);
  const template = await prepareTemplateDatabase(supervisor, services.databaseUrl);

  // A workspace with sources and no test script fails the whole run; a run of named workspaces leaves it out.
  const untestable = names.length === 0 ? all.filter((ws) => !ws.scripts.test && hasSources(ws.dir)) : [];
  const workspaceCode = selected.workspaces.length > 0
    ? await runWorkspaceTests(supervisor, selected.workspaces, { ...services, template, chromiumPath, pgbouncerPath, filter: names.length > 0 })
    : 0;
  const cluster = selected.cluster ? await runClusterTests(supervisor, testable, { ...services, template, chromiumPath }) : NO_CLUSTER_RUN;
  const code = workspaceCode || cluster.code;
  const infra = selected.infra ? await runInfraTests(supervisor, kubectlPath) : NO_INFRA_RUN;

  const { rows, passed: jestPassed, failed: testFailed } = summarizeReports(selected.workspaces);
  rows.push(...cluster.rows);
  if (infra.row) rows.push(infra.row);
  const passed = jestPassed + cluster.passed + infra.passed;
  let failed = testFailed + cluster.failed + infra.failed;
  for (const ws of untestable) {
    failed += 1;
    rows.push({ ws, ok: false, text: 'has sources but no `test` script' });
  }
  printRows(rows);
  const reports = readReports(selected.workspaces);
  if (selected.cluster) reports.push(...readReports(testable, { report: CLUSTER_REPORT, label: CLUSTER_LABEL }));
  printSlowest(reports);
  if (code !== 0 && failed === 0) {
    // turbo failed without any workspace reporting a failure (a crash before jest, a config error).
    failed += 1;
    warn(`turbo exited with ${code} although every report passed`);
  }
  await supervisor.runCleanups();
  process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
  return failed > 0 || code !== 0 ? 1 : 0;
}
