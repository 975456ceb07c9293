// `npm test`: install, services, Chromium (for the browser tests), kubectl (for the manifest tests), Prisma client, one
// migrated template database that every test file clones; then, side by side (infra/test-lanes.mjs), the e2e scenarios
// once the apps they run are built, and a pool of the other workspaces' jest runs, the tests of what a Redis Cluster
// changes run again on a private cluster, and infra/'s own tests. Then one summary: a row per workspace the root
// package.json names (e2e included), one per cluster run, one for infra/, the slowest test files, and
// `tests: N passed, M failed`. A workspace with sources but no `test` script counts as a failure. Exits 1 when anything
// failed. `npm test -- gateway infra` runs only the named workspaces (and infra/'s tests), with the same services.
import { scryptSync } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureChromium } from './chromium.mjs';
import { DevError } from './errors.mjs';
import { ensureInstall } from './install.mjs';
import { ensureKubectl } from './kubectl.mjs';
import { ensurePgbouncer } from './pgbouncer.mjs';
import { JEST_REPORT, mergeReports, readReports, slowestFiles, summarizeReports } from './jest-reports.mjs';
import { localTools } from './local-tools.mjs';
import { paint, say, warn } from './output.mjs';
import { generatePrismaClient } from './prisma-client.mjs';
import { startRedisCluster } from './redis-cluster.mjs';
import { startServices } from './services.mjs';
import { runPool, workspaceWeights } from './test-lanes.mjs';
import { prepareTemplateDatabase } from './test-template.mjs';
import { hasSources, ROOT, workspaces } from './workspaces.mjs';

// Jest runs side by side beside the e2e lane. Measured on 2 cores (each jest runs 2 workers; much of a test run waits
// on PostgreSQL and Redis): 2 took 89 s and 130 s where 1 took 196 s and 163 s, all green both ways.
// HW_TEST_CONCURRENCY overrides it.
const TEST_CONCURRENCY = Number(process.env.HW_TEST_CONCURRENCY) || 2;

// Workspaces whose tests run the built apps: e2e (OS processes) and the dashboard (some against the built gateway).
const NEEDS_BUILD = ['@hashwatch/e2e', '@hashwatch/dashboard'];
const E2E = '@hashwatch/e2e';

/**
 * Builds what the e2e scenarios and the dashboard's tests run (every workspace e2e depends on) through turbo, whose
 * cache makes it a no-op after `npm run build` or an earlier run; resolves with turbo's exit code.
 */
function buildForTests(supervisor, env) {
  say('building the apps the e2e scenarios run');
  return supervisor.runForeground(
    'npx',
    ['--no-install', 'turbo', 'run', 'build', `--filter=${E2E}^...`, '--ui=stream', '--output-logs=errors-only'],
    { env },
  );
}

/**
 * One workspace's jest (its `test` script, or `script` run in `cwd`), output lines prefixed like turbo's, writing its
 * JSON report at `report` under the workspace.
 */
function runJest(supervisor, ws, env, { report = JEST_REPORT, label = '', extra = [], script = 'test', cwd = ws.dir } = {}) {
  const reportFile = path.join(ws.dir, report);
  mkdirSync(path.dirname(reportFile), { recursive: true });
  rmSync(reportFile, { force: true });
  // --forceExit: a test file that leaks a handle must not hang the whole run (jest still names it).
  const args = ['run', '--silent', script, '--', '--json', `--outputFile=${reportFile}`, '--forceExit', ...extra];
  return supervisor.runForeground('npm', args, { cwd, env, prefix: `${ws.name}:test${label ? ` ${label}` : ''}: ` });
}

// Where each e2e scenario's jest run writes its report, relative to e2e/; merged into e2e's JEST_REPORT after the run.
const SCENARIO_REPORTS = '.turbo/scenarios';

/**
 * One task per e2e scenario file, in name order, each its own jest run once the apps are built: the lane of their own
 * takes them one at a time, and a pool slot with nothing left takes the next (infra/test-lanes.mjs).
 */
function e2eScenarioTasks(supervisor, e2e, env, built) {
  rmSync(path.join(e2e.dir, JEST_REPORT), { force: true });
  rmSync(path.join(e2e.dir, SCENARIO_REPORTS), { recursive: true, force: true });
  const files = readdirSync(path.join(e2e.dir, 'src')).filter((name) => name.endsWith('.test.ts')).sort();
  return files.map((name) => {
    const report = `${SCENARIO_REPORTS}/${name.replace(/\.test\.ts$/, '')}.json`;
    return {
      name: `e2e ${name}`,
      weight: 0,
      file: path.join(e2e.dir, 'src', name),
      report: path.join(e2e.dir, report),
      run: async () => ((await built) !== 0 ? 1 : runJest(supervisor, e2e, env, { report, extra: ['--runTestsByPath', `src/${name}`] })),
    };
  });
}

// What runs a second time on a Redis Cluster (REDIS_CLUSTER_NODES): the tests of what a cluster changes. A cluster
// spreads keys over slots, so it is the queues (BullMQ's keys and scripts), the X client's shared rate budget, the
// notifier's leases, pacing and circuits (multi-key scripts that must keep to one slot; the tarpit test's circuit is
// destination-pace's script, its cap is in memory), and one end-to-end scenario
// with every app on the cluster (replicas: two of each worker sharing its queues). The rest of the suite uses Redis
// through these same modules, which is what the first pass already covered.
const CLUSTER_FILES = {
  '@hashwatch/queues': 'packages/queues/src/',
  '@hashwatch/x-api': 'packages/x-api/src/rate-budget',
  '@hashwatch/notifier': 'apps/notifier/src/delivery/(drain-channel|drain-scheduler|destination-pace|key-slots|pacing)',
  '@hashwatch/e2e': 'e2e/src/replicas',
};
const CLUSTER_REPORT = '.turbo/jest-report-cluster.json';
const CLUSTER_LABEL = '(redis cluster)';

/**
 * A private three-master Redis Cluster from `redis-server` for this run, removed after it: resolves with its
 * `nodes`, or with an `error` row when redis-server is missing.
 */
async function clusterForTests(supervisor) {
  const redisServer = localTools.findRedisServer();
  if (!redisServer) {
    return { error: { ws: { name: `Redis Cluster ${CLUSTER_LABEL}` }, ok: false, text: 'redis-server is not installed: the cluster tests need it' } };
  }
  const cluster = await startRedisCluster({ redisServer, log: say });
  supervisor.onCleanup(() => cluster.stop());
  return { nodes: cluster.nodes };
}

/** The pool's tasks for the cluster pass: CLUSTER_FILES of each workspace, once the cluster (and, for e2e, the build) is up. */
function clusterTasks(supervisor, testable, env, { cluster, built }) {
  return testable.filter((ws) => CLUSTER_FILES[ws.name]).map((ws) => ({
    name: `${ws.name} ${CLUSTER_LABEL}`,
    weight: 0,
    run: async () => {
      const { nodes } = await cluster;
      if (!nodes) return 1;
      if (NEEDS_BUILD.includes(ws.name) && (await built) !== 0) return 1;
      const extra = [`--testPathPatterns=${CLUSTER_FILES[ws.name]}`];
      return runJest(supervisor, ws, { ...env, REDIS_CLUSTER_NODES: nodes }, { report: CLUSTER_REPORT, label: CLUSTER_LABEL, extra });
    },
  }));
}

// The dev script's own tests (infra/**/*.test.mjs), summed up like a workspace: the root's `npm run test:infra` (jest
// with infra/jest.config.mjs) writes its report at JEST_REPORT under infra/.
const INFRA = { name: 'infra', rel: 'infra', folder: 'infra', dir: path.join(ROOT, 'infra') };

/** infra/'s tests through jest, with KUBECTL for k8s.test.mjs; resolves with jest's exit code. */
function runInfraTests(supervisor, kubectlPath) {
  return runJest(supervisor, INFRA, { ...process.env, KUBECTL: kubectlPath }, { script: 'test:infra', cwd: ROOT });
}

/** The summary's rows, `ok` or `FAIL`, names aligned. */
function printRows(rows) {
  process.stdout.write('\n');
  const width = Math.max(...rows.map((row) => row.ws.name.length));
  for (const row of rows) {
    process.stdout.write(`${row.ok ? paint('32', '  ok  ') : paint('31', '  FAIL')} ${row.ws.name.padEnd(width)}  ${row.text}\n`);
    for (const failure of row.failures ?? []) {
      const [name, ...detail] = failure.split('\n');
      process.stdout.write(`         ✕ ${name}\n`);
      for (const line of detail) process.stdout.write(`             ${line}\n`);
    }
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
 * The machine's speed at the end of the run, so run times from different machines can be compared: the median of 5
 * scrypt hashes at the gateway's cost (N = 2^15, r = 8; docs/BENCHMARKS.md records 116 ms where the goals were set),
 * and the load average. Costs about a second.
 */
function machineSpeed() {
  const times = [];
  for (let i = 0; i < 5; i += 1) {
    const start = process.hrtime.bigint();
    scryptSync('hashwatch', 'machine-speed', 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const load = os.loadavg().map((value) => value.toFixed(1)).join(' ');
  return `machine: ${os.cpus().length} CPUs, scrypt ${times[2].toFixed(0)} ms (116 ms where the goals were set), load average ${load}`;
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

/**
 * Every selected test at once on two lanes: the e2e scenarios (after the build) in one, and in the other a pool of
 * TEST_CONCURRENCY jest runs (heaviest workspace first; the dashboard once the build is done; the cluster pass; infra/'s
 * tests). Resolves with the worst exit code and the cluster's error row if any.
 */
async function runLanes(supervisor, selected, testable, env, kubectlPath) {
  const needsBuild = selected.workspaces.some((ws) => NEEDS_BUILD.includes(ws.name)) || selected.cluster;
  const built = needsBuild ? buildForTests(supervisor, env) : Promise.resolve(0);
  const cluster = selected.cluster ? clusterForTests(supervisor) : Promise.resolve({});
  const weights = workspaceWeights(ROOT);
  const e2e = selected.workspaces.find((ws) => ws.name === E2E);
  const scenarios = e2e ? e2eScenarioTasks(supervisor, e2e, env, built) : [];

  const tasks = selected.workspaces.filter((ws) => ws !== e2e).map((ws) => ({
    name: ws.name,
    weight: weights.get(ws.rel) ?? 0,
    run: async () => {
      if (NEEDS_BUILD.includes(ws.name) && (await built) !== 0) return 1;
      return runJest(supervisor, ws, env);
    },
  }));
  if (selected.cluster) {
    for (const ws of testable) rmSync(path.join(ws.dir, CLUSTER_REPORT), { force: true });
    tasks.push(...clusterTasks(supervisor, testable, env, { cluster, built }));
  }
  if (selected.infra) {
    rmSync(path.join(INFRA.dir, JEST_REPORT), { force: true });
    tasks.push({ name: 'infra', weight: 0, run: () => runInfraTests(supervisor, kubectlPath) });
  }
  say(`running ${scenarios.length} e2e scenarios beside ${tasks.length} test runs, ${TEST_CONCURRENCY} at a time`);
  const [buildCode, poolCode] = await Promise.all([built, runPool(tasks, TEST_CONCURRENCY, scenarios)]);
  if (e2e) writeFileSync(path.join(e2e.dir, JEST_REPORT), JSON.stringify(mergeReports(scenarios.map((task) => task.report), scenarios.map((task) => task.file))));
  const clusterError = (await cluster).error;
  return { code: buildCode || poolCode, clusterError };
}

export async function testCommand(supervisor, names = []) {
  const startedAt = Date.now();
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
  const env = {
    ...process.env,
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    HW_TEST_TEMPLATE_DB: template,
    CHROMIUM_PATH: chromiumPath,
    PGBOUNCER_PATH: pgbouncerPath,
    TURBO_TELEMETRY_DISABLED: '1',
  };

  const { code, clusterError } = await runLanes(supervisor, selected, testable, env, kubectlPath);

  const { rows, passed: jestPassed, failed: testFailed } = summarizeReports(selected.workspaces);
  let passed = jestPassed;
  let failed = testFailed;
  if (selected.cluster) {
    const clusterRun = clusterError
      ? { rows: [clusterError], passed: 0, failed: 1 }
      : summarizeReports(testable.filter((ws) => CLUSTER_FILES[ws.name]), { report: CLUSTER_REPORT, label: CLUSTER_LABEL });
    rows.push(...clusterRun.rows);
    passed += clusterRun.passed;
    failed += clusterRun.failed;
  }
  if (selected.infra) {
    const infraRun = summarizeReports([INFRA]);
    rows.push(...infraRun.rows);
    passed += infraRun.passed;
    failed += infraRun.failed;
  }
  // A workspace with sources and no test script fails the whole run; a run of named workspaces leaves it out.
  if (names.length === 0) {
    for (const ws of all.filter((candidate) => !candidate.scripts.test && hasSources(candidate.dir))) {
      failed += 1;
      rows.push({ ws, ok: false, text: 'has sources but no `test` script' });
    }
  }
  printRows(rows);
  const reports = readReports(selected.workspaces);
  if (selected.cluster) reports.push(...readReports(testable, { report: CLUSTER_REPORT, label: CLUSTER_LABEL }));
  if (selected.infra) reports.push(...readReports([INFRA]));
  printSlowest(reports);
  if (code !== 0 && failed === 0) {
    // A run failed without any report saying so (a build that failed, a crash before jest, a config error).
    failed += 1;
    warn(`a test run exited with ${code} although every report passed`);
  }
  await supervisor.runCleanups();
  const seconds = Math.round((Date.now() - startedAt) / 1000);
  say(`npm test took ${Math.floor(seconds / 60)} min ${seconds % 60} s`);
  say(machineSpeed());
  process.stdout.write(`tests: ${passed} passed, ${failed} failed\n`);
  return failed > 0 || code !== 0 ? 1 : 0;
}
