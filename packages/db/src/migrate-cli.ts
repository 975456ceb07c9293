import { loadConfig } from '@hashwatch/config';
import { createDatabase } from './database';
import { migrate, seedPlans } from './migrate';

// `npm run db:migrate`: applies migrations to DATABASE_DIRECT_URL (else DATABASE_URL: migrations need a session of
// their own, never a transaction pooler's) and seeds the plans. Prints one JSON line.
async function main(): Promise<void> {
  const config = loadConfig();
  const db = createDatabase(config.DATABASE_DIRECT_URL ?? config.DATABASE_URL, { max: 1, applicationName: 'hashwatch-migrate' });
  try {
    const result = await migrate(db.pool);
    await seedPlans(db.pool);
    process.stdout.write(`${JSON.stringify({ applied: result.applied, already_applied: result.alreadyApplied.length })}\n`);
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ error: { code: 'migration_failed', message: (error as Error).message } })}\n`);
  process.exit(1);
});
