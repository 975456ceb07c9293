// Which jest test files are unit tests: the ones `npm run test:quick` runs with no PostgreSQL or Redis. A test file
// needs the services when it, or a test helper it imports (a relative import under test-support/ or testing/, or a
// package's `/testing` fixtures, followed transitively), names one of SERVICE_MARKERS: the helpers that give a test
// file its database or Redis, or a client of either. Product code it imports is not read: a unit test hands it no
// live connection. `npm run test:quick` runs the unit tests with DATABASE_URL and REDIS_URL pointed at a closed
// port, so a file filed here by mistake fails there instead of touching a server.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './workspaces.mjs';

export const SERVICE_MARKERS = [
  'useTestEnvironment', 'createTestDatabase', 'openTestRedis', 'redisTargetFromEnv', 'useMainProcesses',
  'createQueuePrefix', 'deletePrefixKeys', 'baseDatabaseUrl', 'adminUrl', 'rowsHolding', 'PrivateRedis', 'redis-server',
  'createDatabase(', 'new Redis(', 'new Cluster(', 'new pg.', 'new Pool(', 'new Queue(', 'new Worker(',
  'process.env.DATABASE_URL', 'process.env.REDIS_URL', 'process.env.REDIS_CLUSTER_NODES',
];

// Where unit tests may live: every jest workspace but the e2e scenarios (built apps as processes) and the dashboard
// (Vitest).
const JEST_PARENTS = ['apps', 'packages'];
const NOT_JEST = new Set(['apps/dashboard']);

/** The jest workspaces' folders relative to the root (`apps/gateway`), those with a src/ and a jest.config.js. */
export function jestWorkspaces(root = ROOT) {
  const found = [];
  for (const parent of JEST_PARENTS) {
    for (const entry of readdirSync(path.join(root, parent), { withFileTypes: true })) {
      const rel = `${parent}/${entry.name}`;
      if (!entry.isDirectory() || NOT_JEST.has(rel)) continue;
      if (existsSync(path.join(root, rel, 'jest.config.js')) && existsSync(path.join(root, rel, 'src'))) found.push(rel);
    }
  }
  return found.sort();
}

function walkTests(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'generated') walkTests(file, out);
    } else if (entry.name.endsWith('.test.ts')) out.push(file);
  }
  return out;
}

const IMPORT_SPECIFIER = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]([^'"]+)['"]/g;
const HELPER_PATH = /[\\/](test-support|testing)[\\/]/;

/** The file an import specifier of `from` names when it is a test helper worth reading, else undefined. */
function helperFile(specifier, from, root) {
  let base;
  if (specifier.startsWith('.')) base = path.resolve(path.dirname(from), specifier);
  else {
    const fixtures = /^@hashwatch\/([a-z-]+)\/testing$/.exec(specifier);
    if (!fixtures) return undefined;
    base = path.join(root, 'packages', fixtures[1], 'src/testing/index');
  }
  if (!HELPER_PATH.test(base) && !specifier.startsWith('@hashwatch/')) return undefined;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && candidate.match(/\.tsx?$/)) return candidate;
  }
  return undefined;
}

/** Whether the test file, or a helper it reaches, names a service marker. */
export function needsServices(testFile, { root = ROOT, cache = new Map() } = {}) {
  const seen = new Set();
  const queue = [testFile];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    let text = cache.get(file);
    if (text === undefined) {
      text = readFileSync(file, 'utf8');
      cache.set(file, text);
    }
    if (SERVICE_MARKERS.some((marker) => text.includes(marker))) return true;
    for (const [, specifier] of text.matchAll(IMPORT_SPECIFIER)) {
      const helper = helperFile(specifier, file, root);
      if (helper) queue.push(helper);
    }
  }
  return false;
}

/** Every jest test file of the jest workspaces, split into `unit` and `service` (absolute paths), per workspace. */
export function testTiers(root = ROOT) {
  const cache = new Map();
  return jestWorkspaces(root).map((rel) => {
    const files = walkTests(path.join(root, rel, 'src'), []).sort();
    const unit = [];
    const service = [];
    for (const file of files) (needsServices(file, { root, cache }) ? service : unit).push(file);
    return { rel, unit, service };
  });
}
