// What the PgBouncer tests (infra/pgbouncer-config.test.mjs, infra/compose.test.mjs, infra/k8s.test.mjs) check its
// configuration against: its ini files (infra/pgbouncer/pgbouncer.ini for docker compose,
// infra/k8s/base/pgbouncer.ini for the cluster), and the connection pools the apps' code opens.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './workspaces.mjs';

export const PGBOUNCER_DIR = path.join(ROOT, 'infra', 'pgbouncer');
export const COMPOSE_INI = path.join(PGBOUNCER_DIR, 'pgbouncer.ini');
export const K8S_INI = path.join(ROOT, 'infra', 'k8s', 'base', 'pgbouncer.ini');
export const ENTRYPOINT = path.join(PGBOUNCER_DIR, 'entrypoint.sh');

/** PostgreSQL's default max_connections, less its default superuser_reserved_connections. */
export const POSTGRES_USABLE_CONNECTIONS = 100 - 3;
/** Connections of the one-off processes that go to PostgreSQL directly: the migration (1) and an admin CLI (2). */
export const ONE_OFF_CONNECTIONS = 1 + 2;

/** An ini file's sections: name → (key → value), in file order; `;` and `#` lines are comments. */
export function parseIni(text) {
  const sections = {};
  let current;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      current = sections[header[1]] ??= {};
      continue;
    }
    const pair = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
    if (!pair || !current) throw new Error(`not an ini line: ${raw}`);
    current[pair[1]] = pair[2];
  }
  return sections;
}

export const readIni = (file) => parseIni(readFileSync(file, 'utf8'));

/** A [databases] entry's options (`host=… connect_query='…'`): name → value, quotes removed. */
export function databaseOptions(entry) {
  const options = {};
  for (const match of entry.matchAll(/([a-z_]+)=(?:'((?:[^']|'')*)'|(\S*))/g)) options[match[1]] = match[2] !== undefined ? match[2].replaceAll("''", "'") : match[3];
  return options;
}

/** The settings a connect_query applies: `SET name = value; …` → name → value. */
export function connectQuerySettings(query) {
  const settings = {};
  for (const statement of query.split(';').map((part) => part.trim()).filter(Boolean)) {
    const set = /^SET\s+([a-z_]+)\s*(?:=|TO)\s*'?([^']*?)'?$/i.exec(statement);
    if (!set) throw new Error(`connect_query holds more than SETs: ${statement}`);
    settings[set[1]] = set[2];
  }
  return settings;
}

const read = (relative) => readFileSync(path.join(ROOT, relative), 'utf8');
const number = (text) => Number(text.replaceAll('_', ''));

/**
 * The connection pools an app opens, from its main.ts: `max` on DATABASE_URL, and `directMax` on
 * DATABASE_DIRECT_URL when it opens one (openDatabases; its default when the call does not say).
 */
export function appPools(app) {
  const main = read(`apps/${app}/src/main.ts`);
  const call = /openDatabases?\(databaseTargetOf\(config\),\s*\{([^}]*)\}\)/.exec(main);
  if (!call) throw new Error(`apps/${app}/src/main.ts opens no database with openDatabase(databaseTargetOf(config), {…})`);
  const max = /\bmax:\s*([\d_]+)/.exec(call[1]);
  if (!max) throw new Error(`apps/${app}/src/main.ts does not size its pool (max)`);
  let direct = 0;
  if (call[0].startsWith('openDatabases(')) {
    const own = /\bdirectMax:\s*([\d_]+)/.exec(call[1]);
    const fallback = /directMax \?\? ([\d_]+)/.exec(read('packages/db/src/pooling.ts'));
    if (!own && !fallback) throw new Error('packages/db/src/pooling.ts has no directMax default');
    direct = number((own ?? fallback)[1]);
  }
  return { pooled: number(max[1]), direct };
}
