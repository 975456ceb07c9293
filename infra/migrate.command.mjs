// `npm run db:migrate`: migrations and seed on DATABASE_DIRECT_URL (else DATABASE_URL) as given; it starts no private
// instance. Migrations hold a session advisory lock and may run outside a transaction: never through a pooler.
import { migrateDatabase } from './database.mjs';
import { DevError } from './errors.mjs';
import { ensureInstall } from './install.mjs';
import { redactUrl } from './output.mjs';
import { generatePrismaClient } from './prisma-client.mjs';
import { probePostgres } from './service-probes.mjs';
import { DEFAULT_DATABASE_URL } from './services.mjs';

export async function migrateCommand(supervisor) {
  await ensureInstall(supervisor);
  await generatePrismaClient(supervisor);
  const databaseUrl = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const probe = await probePostgres(databaseUrl);
  if (!probe.ok) throw new DevError(`PostgreSQL does not answer at ${redactUrl(databaseUrl)} (${probe.detail})`);
  await migrateDatabase(supervisor, databaseUrl);
  return 0;
}
