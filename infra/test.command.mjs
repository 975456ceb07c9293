// `npm test`: install, services, Chromium (for the browser tests), kubectl (for the manifest tests), Prisma client, then
// every workspace's tests through turbo, the queue, X client and notifier tests and the e2e scenarios again on a private
// Redis Cluster, and infra/'s own tests, and one summary: a row per workspace the root package.json names (e2e
// included), one per cluster run, one for infra/, then `tests: N passed, M failed`. A workspace with sources but no `test` script counts as a
// failure. Exits 1 when anything failed.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureChromium } from './chromium.mjs';
import { ensureInstall } from './install.mjs';
import { ensureKubectl } from './kubectl.mjs';
import { ensurePgbouncer } from './pgbouncer.mjs';
import { JEST_REPORT, summarizeReports } from './jest-reports.mjs';
import { localTools } from './local-tools.mjs';
import { paint, say, warn } from './output.mjs';
import { generatePrismaClient } from './prisma-client.mjs';
import { startRedisCluster } from './redis-cluster.mjs';
import { startServices } from './services.mjs';
import { DATA_DIR, hasSources, ROOT, workspaces } from './workspaces.mjs';

// Workspaces tested at once. Measured on 2 cores (each jest runs 2 workers; much of a test run waits
// on PostgreSQL and Redis): 2 took 89 s and 130 s where 1 took 196 s and 163 s, all green both ways.
// HW_TEST_CONCURRENCY overrides it.
const TEST_CONCURRENCY = Number(process.env.HW_TEST_CONCURRENCY) || 2;

/** Runs every testable workspace's jest through turbo, each writing its JSON report; resolves with turbo's exit code. */
async function runWorkspaceTests(supervisor, testable, { databaseUrl, redisUrl, chromiumPath, pgbouncerPath }) {
  for (const ws of testable) {
    mkdirSync(path.dirname(path.join(ws.dir, JEST_REPORT)), { recursive: true });
    rmSync(path.join(ws.dir, JEST_REPORT), { force: true });
  }
  const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, CHROMIUM_PATH: chromiumPath, PGBOUNCER_PATH: pgbouncerPath, TURBO_TELEMETRY_DISABLED: '1' };
  say(`running the tests of ${testable.length} workspaces`);
  return supervisor.runForeground(
    'npx',
    [
      '--no-install', 'turbo', 'run', 'test',
      `--concurrency=${TEST_CONCURRENCY}`, '--continue', '--ui=stream',
      // --forceExit: a test file that leaks a handle must not hang the whole run (jest still names it).
      '--', '--json', `--outputFile=${JEST_REPORT}`, '--forceExit',
    ],
    { env },
  );
}

// The workspaces whose tests run a second time on a Redis Cluster (REDIS_CLUSTER_NODES): the queues, the X client's
// rate budget, the notifier's leases, pacing and workers, and the e2e scenarios with every app on the cluster. Left
// out there: the browser journeys (what they add is the browser, not Redis), the restart scenarios
// (service-restarts, cluster-master-restarts), which start servers of their own (a cluster whose masters they
// kill), and the PgBouncer one (what it adds is the pooler, not Redis).
const CLUSTER_WORKSPACES = ['@hashwatch/queues', '@hashwatch/x-api', '@hashwatch/notifier', '@hashwatch/e2e'];
const CLUSTER_SKIPPED_FILES = 'journey|service-restarts|pgbouncer|cluster-master-restarts';
const CLUSTER_REPORT = '.turbo/jest-report-cluster.json';
const CLUSTER_LABEL = '(redis cluster)';

/**
 * Runs CLUSTER_WORKSPACES' tests against a private three-master Redis Cluster started from `redis-server` for
 * this run and removed after it; resolves with their rows and totals, labelled CLUSTER_LABEL.
 */
async function runClusterTests(supervisor, testable, { databaseUrl, redisUrl, chromiumPath }) {
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
  const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_CLUSTER_NODES: cluster.nodes, CHROMIUM_PATH: chromiumPath, TURBO_TELEMETRY_DISABLED: '1' };
  const code = await supervisor.runForeground(
    'npx',
    [
      '--no-install', 'turbo', 'run', 'test',
      ...selected.map((ws) => `--filter=${ws.name}`),
      `--concurrency=${TEST_CONCURRENCY}`, '--continue', '--ui=stream',
      '--', '--json', `--outputFile=${CLUSTER_REPORT}`, '--forceExit', `--testPathIgnorePatterns=${CLUSTER_SKIPPED_FILES}`,
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

export async function testCommand(supervisor) {
  await ensureInstall(supervisor);
  const services = await startServices(supervisor);
  const chromiumPath = await ensureChromium(supervisor);
  const kubectlPath = await ensureKubectl(supervisor);
  const pgbouncerPath = await ensurePgbouncer(supervisor);
  await generatePrismaClient(supervisor);

  const all = workspaces();
  const testable = all.filter((ws) => ws.scripts.test);
  const untestable = all.filter((ws) => !ws.scripts.test && hasSources(ws.dir));
  const workspaceCode = await runWorkspaceTests(supervisor, testable, { ...services, chromiumPath, pgbouncerPath });
  const cluster = await runClusterTests(supervisor, testable, { ...services, chromiumPath });
  const code = workspaceCode || cluster.code;
  const infra = await runInfraTests(supervisor, kubectlPath);

  const { rows, passed: jestPassed, failed: testFailed } = summarizeReports(testable);
  rows.push(...cluster.rows, infra.row);
  const passed = jestPassed + cluster.passed + infra.passed;
  let failed = testFailed + cluster.failed + infra.failed;
  for (const ws of untestable) {
    failed += 1;
    rows.push({ ws, ok: false, text: 'has sources but no `test` script' });
  }
  printRows(rows);
  if (code !== 0 && failed === 0) {
    // turbo failed without any workspace reporting a failure (a crash before jest, a config error).
    failed += 1;
    warn(`turbo exited with ${code} although every report passed`);
  }
  await supervisor.runCleanups();
  process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
  return failed > 0 || code !== 0 ? 1 : 0;
}
