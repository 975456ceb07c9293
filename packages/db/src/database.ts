import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client';

// BIGINT (outbox ids, TOTP steps) is read through the raw pool as an exact string, never a rounded number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

export interface Database {
  /** Typed client for everything that is not a hot path. */
  prisma: PrismaClient;
  /** The same connection pool, for set-based SQL on hot paths. */
  pool: pg.Pool;
  close(): Promise<void>;
}

/** One pool per process, shared by Prisma (through @prisma/adapter-pg) and raw SQL. */
export function createDatabase(databaseUrl: string, options: { max?: number; applicationName?: string } = {}): Database {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'hashwatch',
  });
  // A dropped idle connection (PostgreSQL restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor may a dropped connection that is checked out: pg-pool listens for errors only on idle clients, and a
  // client emits 'error' when its server goes away (a restart, a failover, pg_terminate_backend), so a claim or
  // a transaction waiting on X at that moment ended the whole process. Its pending and later queries fail
  // instead, and on release the pool drops it (it is no longer queryable).
  pool.on('connect', (client) => client.on('error', () => undefined));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  let closed = false;
  return {
    prisma,
    pool,
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    },
  };
}
