import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabase, type Database } from '@hashwatch/db';
import { adminUrl, databaseUrlFor } from './database-urls';

export interface TestDatabase {
  name: string;
  url: string;
  db: Database;
  drop(): Promise<void>;
}

/**
 * A database of its own for one test file, cloned from the migrated template that jest's global setup
 * made for this run, or with `empty`, a database with no migration applied (for tests of a migration on data
 * stored before it). Dropping it removes only what this call created.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const template = process.env.HW_TEST_TEMPLATE_DB;
  if (!template) throw new Error('HW_TEST_TEMPLATE_DB is not set: run tests through jest (its global setup makes the template)');
  const name = `${template.replace(/_tpl$/, '')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(options.empty ? `CREATE DATABASE "${name}"` : `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await admin.end();
  }
  const url = databaseUrlFor(name);
  const db = createDatabase(url, { max: 10, applicationName: 'hashwatch-test' });
  return {
    name,
    url,
    db,
    async drop() {
      await db.close();
      const client = new pg.Client({ connectionString: adminUrl() });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
