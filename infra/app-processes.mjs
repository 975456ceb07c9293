// The processes `npm start` runs: every app under apps/ with a `start` script, each given its port and
// the addresses of the outside-world apps, and its output tagged with its name.
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { paint, say, warn } from './output.mjs';
import { freePort } from './ports.mjs';
import { isKeyMismatchLine } from './secrets-key.mjs';
import { workspaces } from './workspaces.mjs';

/**
 * How `npm start` runs each app, by folder name; an app missing from this table runs as a worker with
 * its own HEALTH_PORT (WORKER_ROLE).
 * - tier `outside` plays the outside world and starts first; `provides` hands its addresses to every
 *   other process (unless that variable is already set in the environment);
 * - tier `suite` is Hashwatch itself; `ready` is the path `npm start` waits for before printing the key;
 * - tier `cli` is never started.
 * `port` is the preferred port, given in `portEnv`; `morePorts` are further ports the app listens on, by
 * variable and preferred port; the next free one is used when one is busy. `provides` gets the app's
 * `port`, its `url` and every port of it by variable (`ports`). `env` adds variables for that process only;
 * `banner` lists what the start banner shows of it beside its address.
 */
const ROLES = {
  'x-sim': { tier: 'outside', portEnv: 'X_SIM_PORT', port: 4100, env: { X_SIM_HOST: '127.0.0.1' }, provides: ({ url }) => ({ X_API_BASE_URL: url }) },
  // The local alert inbox: receives webhook alerts, plays the Telegram Bot API, and receives the gateway's
  // mail (password resets) over SMTP.
  'alert-inbox': {
    tier: 'outside',
    portEnv: 'ALERT_INBOX_PORT',
    port: 4200,
    morePorts: { ALERT_INBOX_SMTP_PORT: 4225 },
    provides: ({ url, ports }) => ({ TELEGRAM_API_BASE_URL: url, SMTP_URL: `smtp://127.0.0.1:${ports.ALERT_INBOX_SMTP_PORT}` }),
    banner: ({ url, ports }) => `   mail: ${url}/#mail (SMTP on 127.0.0.1:${ports.ALERT_INBOX_SMTP_PORT})`,
  },
  // PUBLIC_URL is where links in mail (password resets) and checkout answers point: the address the banner prints.
  gateway: { tier: 'suite', portEnv: 'PORT', port: 3000, ready: '/healthz', provides: ({ port }) => ({ PUBLIC_URL: `http://localhost:${port}` }) },
  scanner: { tier: 'suite', portEnv: 'HEALTH_PORT', port: 4001 },
  'engagement-poller': { tier: 'suite', portEnv: 'HEALTH_PORT', port: 4002 },
  notifier: { tier: 'suite', portEnv: 'HEALTH_PORT', port: 4003 },
  admin: { tier: 'cli' },
};
const WORKER_ROLE = { tier: 'suite', portEnv: 'HEALTH_PORT', port: 4010 };
const TIER_ORDER = { outside: 0, suite: 1 };

const LOG_COLORS = ['36', '35', '34', '32', '33', '96', '95', '94'];
const QUIET_LOG_KEYS = new Set(['level', 'message', 'timestamp', 'service']);

/** How `npm start` runs the app in apps/<folder>. */
export function appRole(folder) {
  return ROLES[folder] ?? WORKER_ROLE;
}

/** The workspaces of the apps `npm start` runs: every app with a `start` script but the CLIs. */
export function launchableApps(all = workspaces()) {
  return all.filter((ws) => ws.rel.startsWith('apps/') && ws.scripts.start && appRole(ws.folder).tier !== 'cli');
}

/**
 * The workspaces `npm start` builds (each with what it depends on): the apps it runs, the admin CLI that
 * creates the demo account (admin-cli.mjs) and the dashboard the gateway serves. The tests, the SDK's
 * examples and the benchmarks are left to `npm run build`.
 */
export function buildTargets(all = workspaces()) {
  const wanted = new Set([...launchableApps(all).map((ws) => ws.rel), 'apps/admin', 'apps/dashboard']);
  return all.filter((ws) => wanted.has(ws.rel)).map((ws) => ws.name);
}

/** The apps to run, outside world first, each as `{name, role, cwd, command, args}`. */
export function plannedApps() {
  const planned = [];
  for (const ws of launchableApps()) {
    const role = appRole(ws.folder);
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
  return planned.sort((a, b) => TIER_ORDER[a.role.tier] - TIER_ORDER[b.role.tier]);
}

/**
 * Gives each app its ports (the preferred one, else the next free one): `app.port` and, by variable,
 * `app.ports`; and adds to `env` what the apps provide (addresses), unless `userEnv` sets it.
 */
export async function assignPorts(apps, env, userEnv = process.env) {
  const taken = new Set();
  const pick = async (app, preferred) => {
    const port = await freePort(preferred, taken);
    taken.add(port);
    if (port !== preferred) say(`${app.name}: port ${preferred} is busy, using ${port}`);
    return port;
  };
  for (const app of apps) {
    if (!app.role.portEnv) continue;
    const preferred = app.name === 'gateway' && userEnv.PORT ? Number(userEnv.PORT) : app.role.port;
    app.port = await pick(app, preferred);
    app.ports = { [app.role.portEnv]: app.port };
    for (const [variable, port] of Object.entries(app.role.morePorts ?? {})) app.ports[variable] = await pick(app, port);
    const provided = app.role.provides?.({ port: app.port, url: `http://127.0.0.1:${app.port}`, ports: app.ports }) ?? {};
    for (const [key, value] of Object.entries(provided)) if (!userEnv[key]) env[key] = value;
  }
}

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

function listening(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts the apps in order, each app's handle on `app.handle`; an outside-world app must listen before the
 * next one starts. Sets `app.keyMismatch` when an app says SECRETS_KEY cannot open the stored secrets.
 */
export async function launchApps(supervisor, apps, env) {
  const width = Math.max(3, ...apps.map((app) => app.name.length));
  for (const [index, app] of apps.entries()) {
    const appEnv = { ...env, ...app.role.env };
    for (const [variable, port] of Object.entries(app.ports ?? {})) appEnv[variable] = String(port);
    if (app.role.portEnv === 'HEALTH_PORT') delete appEnv.PORT;
    const tag = paint(LOG_COLORS[index % LOG_COLORS.length], app.name.padEnd(width));
    app.keyMismatch = false;
    const onLine = (line, out) => {
      if (isKeyMismatchLine(line)) app.keyMismatch = true;
      out.write(`${tag} ${readableLine(line)}\n`);
    };
    app.handle = supervisor.launch({ name: app.name, command: app.command, args: app.args, cwd: app.cwd, env: appEnv, onLine });
    if (app.role.tier === 'outside' && app.port) {
      const ports = Object.values(app.ports);
      const up = await supervisor.waitUntil(async () => (await Promise.all(ports.map(listening))).every(Boolean), { timeoutMs: 30_000, handle: app.handle });
      if (!up) warn(`${app.name} is not listening on ${ports.join(' and ')}`);
    }
  }
}
