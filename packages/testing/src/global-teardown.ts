import pg from 'pg';
import { adminUrl } from './database-urls';

/** Drops the template this run made, and any clone of it a crashed test file left behind. */
export default async function globalTeardown(): Promise<void> {
  const template = process.env.HW_TEST_TEMPLATE_DB;
  if (!template || process.env.HW_TEST_TEMPLATE_OWNED !== '1') return;
  const runPrefix = template.replace(/_tpl$/, '');
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [template, `${runPrefix}\\_%`],
    );
    for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
