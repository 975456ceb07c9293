import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, seedPlans } from '@hashwatch/db';

export interface RunDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A database of this run's own on the given server (`hw_e2e_<random>`), created, migrated and seeded with
 * the plans as `npm run db:migrate` does. `drop` removes it and nothing else.
 */
export async function createRunDatabase(serverUrl: string): Promise<RunDatabase> {
  const name = `hw_e2e_${randomBytes(5).toString('hex')}`;
  const adminUrl = withDatabase(serverUrl, 'postgres');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl, name);
  const drop = async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrate(pool);
    await seedPlans(pool);
  } catch (error) {
    await pool.end();
    // The database is ours: it goes, not left on a shared server.
    await drop().catch(() => undefined);
    throw error;
  }
  await pool.end();
  return { name, url, drop };
}
