import { mkdtempSync, mkdirSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useTestEnvironment } from '@hashwatch/testing';
import { migrate, listMigrations, seedPlans } from './migrate';
import { noTransactionPlan } from './no-transaction';

describe('migrate', () => {
  const env = useTestEnvironment();

  it('is idempotent: a second run applies nothing and re-seeding keeps plans an operator changed', async () => {
    const pool = env.database.db.pool;
    const again = await migrate(pool);
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toEqual(listMigrations().map((m) => m.name));
    await pool.query(`UPDATE plans SET hashtags_limit = 99 WHERE id = 'starter'`);
    await seedPlans(pool);
    const { rows } = await pool.query<{ hashtags_limit: number }>(`SELECT hashtags_limit FROM plans WHERE id = 'starter'`);
    expect(rows[0]?.hashtags_limit).toBe(99);
  });

  it('applies a new migration once, even when two processes migrate at the same time', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hw-migrations-'));
    cpSync(path.resolve(__dirname, '../../../prisma/migrations'), path.join(dir, 'migrations'), { recursive: true });
    mkdirSync(path.join(dir, 'migrations', '29990101000000_extra'));
    writeFileSync(path.join(dir, 'migrations', '29990101000000_extra', 'migration.sql'), 'CREATE TABLE extra_table (id int);');
    const results = await Promise.all([migrate(env.database.db.pool, dir), migrate(env.database.db.pool, dir)]);
    expect(results.flatMap((r) => r.applied)).toEqual(['29990101000000_extra']);
  });

  it('refuses to run when an applied migration was edited afterwards', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hw-migrations-'));
    cpSync(path.resolve(__dirname, '../../../prisma/migrations'), path.join(dir, 'migrations'), { recursive: true });
    const first = listMigrations(dir)[0];
    writeFileSync(path.join(dir, 'migrations', first!.name, 'migration.sql'), `${first!.sql}\n-- edited`);
    await expect(migrate(env.database.db.pool, dir)).rejects.toThrow(/checksum/);
  });

  describe('a no-transaction migration', () => {
    function migrationsWith(name: string, sql: string): string {
      const dir = mkdtempSync(path.join(tmpdir(), 'hw-migrations-'));
      cpSync(path.resolve(__dirname, '../../../prisma/migrations'), path.join(dir, 'migrations'), { recursive: true });
      mkdirSync(path.join(dir, 'migrations', name));
      writeFileSync(path.join(dir, 'migrations', name, 'migration.sql'), sql);
      return dir;
    }

    async function indexValid(name: string): Promise<boolean | undefined> {
      const { rows } = await env.database.db.pool.query<{ valid: boolean }>(
        'SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1',
        [name],
      );
      return rows[0]?.valid;
    }

    it('splits statements, drops comments and reads its lock_timeout', () => {
      expect(noTransactionPlan('CREATE INDEX CONCURRENTLY x ON t (a);')).toBeNull();
      expect(noTransactionPlan('-- hashwatch: no-transaction lock_timeout=2s\n-- why\nCREATE INDEX CONCURRENTLY IF NOT EXISTS a ON t (x); -- one\nANALYZE t;\n')).toEqual({
        lockTimeoutSeconds: 2,
        statements: ['CREATE INDEX CONCURRENTLY IF NOT EXISTS a ON t (x)', 'ANALYZE t'],
      });
      expect(noTransactionPlan('-- hashwatch: no-transaction\nANALYZE t;')?.lockTimeoutSeconds).toBe(5);
    });

    it('builds an index concurrently, fails within its lock_timeout behind a lock, and rebuilds an index a failed build left invalid', async () => {
      const pool = env.database.db.pool;
      await pool.query('CREATE TABLE nt_table (id int, v int)');
      await pool.query('INSERT INTO nt_table VALUES (1, 1), (2, 1)');
      const dir = migrationsWith('29990102000000_nt', '-- hashwatch: no-transaction lock_timeout=1s\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS nt_table_v ON nt_table (v);\n');

      // Duplicates: the build fails and leaves its index invalid; the migration is not recorded.
      await expect(migrate(pool, dir)).rejects.toThrow(/29990102000000_nt failed \(no-transaction; safe to run again\)/);
      expect(await indexValid('nt_table_v')).toBe(false);

      // A writer holding the table: the build gives up after its lock_timeout instead of queueing behind it.
      await pool.query('UPDATE nt_table SET v = 2 WHERE id = 2');
      const holder = await pool.connect();
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE nt_table IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      await expect(migrate(pool, dir)).rejects.toThrow(/lock timeout/);
      expect(Date.now() - started).toBeLessThan(5_000);
      await holder.query('ROLLBACK');
      holder.release();

      const result = await migrate(pool, dir);
      expect(result.applied).toEqual(['29990102000000_nt']);
      expect(await indexValid('nt_table_v')).toBe(true);
      expect((await migrate(pool, dir)).applied).toEqual([]);
    });
  });
});
