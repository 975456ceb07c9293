import { randomBytes } from 'node:crypto';
import pg from 'pg';
// Jest loads its global set-up without the moduleNameMapper that points workspace imports at their sources, so
// by package name this would need @hashwatch/db built first; the source path keeps `npm test` build-free.
// eslint-disable-next-line hashwatch/workspace-boundaries
import { createDatabase, migrate, seedPlans } from '../../db/src/index';
import { adminUrl, databaseUrlFor } from './database-urls';

/**
 * Jest global setup: one migrated, seeded template database per jest run, which every test file clones.
 * Its name carries this run's random id so concurrent runs never touch each other's databases.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.HW_TEST_TEMPLATE_DB) return;
  const name = `hw_test_${randomBytes(4).toString('hex')}_tpl`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const db = createDatabase(databaseUrlFor(name), { max: 1 });
  try {
    await migrate(db.pool);
    await seedPlans(db.pool);
  } finally {
    await db.close();
  }
  process.env.HW_TEST_TEMPLATE_DB = name;
  process.env.HW_TEST_TEMPLATE_OWNED = '1';
}
