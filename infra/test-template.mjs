// The one migrated, seeded template database of an `npm test` run. Every jest run of every workspace clones it per
// test file (packages/testing: createTestDatabase), so migrations run once per `npm test` instead of once per
// workspace and pass. Named `hw_test_<run id>_tpl` like the templates jest's global setup makes when a workspace's
// tests run alone; removed with every clone of it when the run ends.
import { randomBytes } from 'node:crypto';
import { loadPg, migrateDatabase } from './database.mjs';

/** `databaseUrl` pointing at database `name` on the same server. */
function urlOfDatabase(databaseUrl, name) {
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops the template and every clone of it (`hw_test_<run id>_…`) that a crashed test file left behind. */
async function dropRun(databaseUrl, template) {
  const pg = loadPg();
  const admin = new pg.Client({ connectionString: urlOfDatabase(databaseUrl, 'postgres'), connectionTimeoutMillis: 10_000 });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      'SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2',
      [template, `${template.replace(/_tpl$/, '')}\\_%`],
    );
    for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/** Creates, migrates and seeds this run's template on DATABASE_URL's server; resolves with its name. */
export async function prepareTemplateDatabase(supervisor, databaseUrl) {
  const template = `hw_test_${randomBytes(4).toString('hex')}_tpl`;
  supervisor.onCleanup(() => dropRun(databaseUrl, template));
  await migrateDatabase(supervisor, urlOfDatabase(databaseUrl, template));
  return template;
}
