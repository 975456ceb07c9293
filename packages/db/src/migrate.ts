import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { noTransactionPlan, runNoTransaction } from './no-transaction';

/** prisma/ at the repository root, from src/ or dist/ alike. */
const PRISMA_DIR = path.resolve(__dirname, '../../../prisma');
// Any constant works; it only has to be the same for every migrating process.
const MIGRATION_LOCK = 7_245_118_223;

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

export function listMigrations(prismaDir = PRISMA_DIR): { name: string; sql: string; checksum: string }[] {
  const dir = path.join(prismaDir, 'migrations');
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies pending migrations in Prisma's own bookkeeping table (`_prisma_migrations`), so
 * `prisma migrate deploy` agrees with what ran here. Safe to run from several processes at once:
 * a session advisory lock serialises them (so `pool` must reach PostgreSQL directly: DATABASE_DIRECT_URL). Each
 * migration runs in its own transaction, except a no-transaction one (no-transaction.ts).
 */
export async function migrate(pool: pg.Pool, prismaDir = PRISMA_DIR): Promise<MigrationResult> {
  const client = await pool.connect();
  try {
    // A migration may rewrite a large table, and waits for the other migrators' lock: no session bound applies here
    // (a no-transaction migration sets its own lock_timeout per statement). Back to the pool's bounds at the end.
    await client.query('SET statement_timeout = 0; SET lock_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const done = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Map(done.rows.map((row) => [row.migration_name, row.checksum]));
    const result: MigrationResult = { applied: [], alreadyApplied: [] };
    for (const migration of listMigrations(prismaDir)) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(`migration ${migration.name} was changed after it was applied (checksum mismatch)`);
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      const record = () => client.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
         VALUES ($1, $2, now(), $3, 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      const plan = noTransactionPlan(migration.sql);
      if (plan) {
        try {
          await runNoTransaction(client, plan);
        } catch (error) {
          throw new Error(`migration ${migration.name} failed (no-transaction; safe to run again): ${(error as Error).message}`, { cause: error });
        }
        await record();
        result.applied.push(migration.name);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await record();
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.query('RESET statement_timeout; RESET lock_timeout').catch(() => undefined);
    client.release();
  }
}

/** Inserts the default plans (prisma/seed.sql) without touching plans an operator already changed. */
export async function seedPlans(pool: pg.Pool, prismaDir = PRISMA_DIR): Promise<void> {
  await pool.query(readFileSync(path.join(prismaDir, 'seed.sql'), 'utf8'));
}
