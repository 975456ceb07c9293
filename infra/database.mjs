// The database named in DATABASE_URL: created when the server answers but it is missing, then migrated
// and seeded by @hashwatch/db's `migrate` script.
import { createRequire } from 'node:module';
import path from 'node:path';
import { DevError } from './errors.mjs';
import { redactUrl, say } from './output.mjs';
import { ROOT } from './workspaces.mjs';

// PostgreSQL's SQLSTATEs: the database does not exist; another process created it first.
const INVALID_CATALOG_NAME = '3D000';
const DUPLICATE_DATABASE = '42P04';

/** The pg driver from packages/db: it exists only after `npm install`, which this script may run itself. */
export function loadPg() {
  try {
    return createRequire(path.join(ROOT, 'packages/db/package.json'))('pg');
  } catch {
    throw new DevError('the pg package is not installed: run `npm install` first');
  }
}

const quoteIdent = (name) => `"${name.replace(/"/g, '""')}"`;

/** Whether the database exists; throws when the server cannot be reached at all. */
async function databaseExists(pg, databaseUrl) {
  const probe = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  try {
    await probe.connect();
    return true;
  } catch (error) {
    if (error.code !== INVALID_CATALOG_NAME) throw new DevError(`cannot connect to ${redactUrl(databaseUrl)}: ${error.message}`);
    return false;
  } finally {
    await probe.end().catch(() => undefined);
  }
}

async function ensureDatabase(databaseUrl) {
  const pg = loadPg();
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new DevError(`DATABASE_URL names no database: ${redactUrl(databaseUrl)}`);
  if (await databaseExists(pg, databaseUrl)) return;
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 10_000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    say(`created database ${name}`);
  } catch (error) {
    if (error.code !== DUPLICATE_DATABASE) throw new DevError(`cannot create database ${name}: ${error.message}`);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

export async function migrateDatabase(supervisor, databaseUrl) {
  await ensureDatabase(databaseUrl);
  const code = await supervisor.runForeground('npm', ['run', '--silent', 'migrate', '-w', '@hashwatch/db'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, DATABASE_DIRECT_URL: databaseUrl },
  });
  if (code !== 0) throw new DevError(`migrations failed on ${redactUrl(databaseUrl)} (exit ${code})`);
}
