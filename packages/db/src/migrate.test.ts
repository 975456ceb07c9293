import { mkdtempSync, mkdirSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useTestEnvironment } from '@hashwatch/testing';
import { migrate, listMigrations, seedPlans } from './migrate';

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
});
