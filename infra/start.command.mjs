// `npm start`: install, services, Prisma client, build, migrations, the demo account, then every app until
// Ctrl-C. It prints the demo API key and a curl line that works, or, when the database holds secrets
// sealed with another SECRETS_KEY, how to recover.
//
// What does not wait for another runs beside it, and each step says when it starts and how long it took:
//   install ─ prisma generate ─┬─ build (transpile, vite build) ─┬─ apps, demo account
//   services ──────────────────┴─ migrate ──────────────────────────┘
import path from 'node:path';
import { assignPorts, buildTargets, launchApps, plannedApps } from './app-processes.mjs';
import { migrateDatabase } from './database.mjs';
import { DEMO_EMAIL, demoAccount, prepareDemo, regenerateDemoKey } from './demo-account.mjs';
import { DevError } from './errors.mjs';
import { ensureInstall } from './install.mjs';
import { say, timed, warn } from './output.mjs';
import { generatePrismaClient } from './prisma-client.mjs';
import { keyMismatchHelp, secretsKey } from './secrets-key.mjs';
import { startServices } from './services.mjs';
import { ROOT, workspaces } from './workspaces.mjs';

/** Demo defaults for every started process; the environment wins. */
const DEMO_ENV = {
  QUEUE_PREFIX: 'hw',
  // x-sim accepts whatever tokens the suite is given.
  X_BEARER_TOKEN: 'demo',
  X_USER_TOKEN: 'demo-user',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  // A demo checkout activates at once, with no operator to run `admin account:subscription`.
  BILLING_AUTO_ACTIVATE: 'true',
};

/**
 * The demo's build: its TypeScript workspaces and their dependencies transpiled, without a type check (infra/
 * transpile.mjs), beside the dashboard's `vite build`. Types are `npm run typecheck`'s and CI's to check.
 */
export function buildSteps(targets = buildTargets(), all = workspaces()) {
  const bundled = all.filter((ws) => targets.includes(ws.name) && ws.scripts.build && ws.scripts.build !== 'tsc -p tsconfig.build.json');
  const transpiled = targets.filter((name) => !bundled.some((ws) => ws.name === name));
  return [
    { label: 'transpile', cwd: ROOT, command: process.execPath, args: [path.join(ROOT, 'infra/transpile.mjs'), ...transpiled] },
    ...bundled.map((ws) => ({ label: ws.folder, cwd: ws.dir, command: 'npm', args: ['run', '--silent', 'build'] })),
  ];
}

async function build(supervisor) {
  const codes = await Promise.all(
    buildSteps().map(async (step) => ({ step, code: await supervisor.runForeground(step.command, step.args, { cwd: step.cwd, prefix: `${step.label} | ` }) })),
  );
  const failed = codes.find(({ code }) => code !== 0);
  if (failed) throw new DevError(`the build failed (${failed.step.label}: exit ${failed.code})`);
}

/**
 * Settles every step; on the first failure stops the one-shot commands still running, so the run ends at
 * once, and throws that failure when all are done.
 */
async function allSteps(supervisor, steps) {
  let failure;
  const watched = steps.map((step) =>
    step.catch((error) => {
      if (!failure) {
        failure = error;
        supervisor.stopForeground();
      }
    }),
  );
  const results = await Promise.all(watched);
  if (failure) throw failure;
  return results;
}

const httpStatus = async (url, headers = {}) => {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
    return response.status;
  } catch {
    return 0;
  }
};

/** Waits for every app with a `ready` path to answer 200 on it; names the key mismatch when that stopped one. */
async function waitUntilReady(supervisor, apps, databaseUrl) {
  for (const app of apps.filter((candidate) => candidate.role.ready)) {
    const url = `http://127.0.0.1:${app.port}${app.role.ready}`;
    const ready = await supervisor.waitUntil(async () => (await httpStatus(url)) === 200, { timeoutMs: 60_000, handle: app.handle });
    if (ready) continue;
    // An app's exit can be seen before its last line is read.
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (apps.some((candidate) => candidate.keyMismatch)) throw new DevError(keyMismatchHelp(databaseUrl));
    throw new DevError(`${app.name} did not answer ${url} within 60 s (see its output above)`);
  }
}

/** The demo key that works: the saved one, or a new one when the gateway refuses it (a database reset). */
async function workingApiKey(gateway, demo, env) {
  const status = await httpStatus(`http://127.0.0.1:${gateway.port}/v1/me`, { authorization: `Bearer ${demo.api_key}` });
  if (status === 401) return regenerateDemoKey(demo.account_id, env).api_key;
  if (status !== 200) warn(`GET /v1/me with the demo key answered ${status || 'nothing'}`);
  return demo.api_key;
}

function printRunning(apps, gateway, apiKey, password) {
  process.stdout.write('\n');
  say('Hashwatch is running. Press Ctrl-C to stop everything.');
  for (const app of apps.filter((candidate) => candidate.role.tier === 'outside' && candidate.port)) {
    const url = `http://127.0.0.1:${app.port}`;
    say(`  ${app.name}: ${url}${app.role.banner?.({ url, ports: app.ports }) ?? ''}`);
  }
  say(`  dashboard: http://localhost:${gateway.port}/   sign in as ${DEMO_EMAIL} with password ${password}`);
  say(`  API: http://localhost:${gateway.port}/v1   docs: http://localhost:${gateway.port}/docs`);
  say(`  demo account ${DEMO_EMAIL}, API key: ${apiKey}`);
  say(`  curl -H "Authorization: Bearer ${apiKey}" http://localhost:${gateway.port}/v1/me`);
  process.stdout.write('\n');
}

/** Starts the apps; on the way out the suite stops before the outside world it talks to. */
async function runApps(supervisor, apps, env) {
  await assignPorts(apps, env);
  const handles = (inTier) => apps.filter((app) => app.handle && inTier(app.role.tier)).map((app) => app.handle);
  supervisor.onCleanup(() => supervisor.stop(handles((tier) => tier === 'outside')));
  supervisor.onCleanup(() => supervisor.stop(handles((tier) => tier !== 'outside')));
  await launchApps(supervisor, apps, env);
}

/** Install, services, Prisma client, build and migrations, each as soon as what it needs is done. */
async function prepare(supervisor) {
  // services.mjs uses Node built-ins only, so PostgreSQL and Redis start while npm installs.
  const services = timed('services', () => startServices(supervisor));
  const client = timed('install', () => ensureInstall(supervisor)).then(() => timed('prisma generate', () => generatePrismaClient(supervisor)));
  // Migrations run from @hashwatch/db's sources with tsx: they need the install and the Prisma client, not the build.
  const migrated = Promise.all([services, client]).then(([{ databaseUrl }]) => timed('migrate', () => migrateDatabase(supervisor, databaseUrl)));
  const built = client.then(() => timed('build', () => build(supervisor)));
  const [urls] = await allSteps(supervisor, [services, client, migrated, built]);
  return urls;
}

export async function startCommand(supervisor) {
  const startedAt = Date.now();
  const { databaseUrl, redisUrl } = await prepare(supervisor);
  supervisor.checkInterrupted();

  const env = { ...DEMO_ENV, ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, SECRETS_KEY: secretsKey() };
  delete env.HEALTH_PORT;

  const apps = plannedApps();
  // The gateway is the one app with a health check (`ready`) to wait for.
  const gateway = apps.find((app) => app.name === 'gateway');
  if (!gateway) throw new DevError('no app with a health check to wait for (is apps/gateway built?)');
  await runApps(supervisor, apps, env);
  // The admin CLI writes to the migrated database only: the demo account is made while the apps boot.
  const demo = demoAccount(env);
  await waitUntilReady(supervisor, apps, databaseUrl);

  const apiKey = await workingApiKey(gateway, demo, env);
  const inbox = apps.find((app) => app.name === 'alert-inbox');
  await prepareDemo(`http://127.0.0.1:${gateway.port}/v1`, apiKey, inbox?.port);
  say(`ready in ${Math.round((Date.now() - startedAt) / 1000)} s`);
  printRunning(apps, gateway, apiKey, demo.password);
  await supervisor.untilInterrupted();
}
