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

/** How long a pool's users wait, in ms; 0 waits without bound. */
export interface DatabaseTimeouts {
  /** For a connection from the pool (all `max` busy) or a new one to be made: pg-pool's connectionTimeoutMillis. */
  acquireMs: number;
  /** Any one statement (`statement_timeout`): a runaway query gives its connection back. */
  statementMs: number;
  /** Waiting for any lock, advisory ones included (`lock_timeout`): a request queued behind another gives up. */
  lockMs: number;
  /** A transaction left open without a statement (`idle_in_transaction_session_timeout`): its locks go with it. */
  idleInTransactionMs: number;
}

/**
 * The apps' bounds (issue 25): the same as the `connect_query` of our PgBouncer (infra/pgbouncer/pgbouncer.ini), which
 * cannot pass the startup parameters these become on a direct connection. A request that exceeds one fails with
 * SQLSTATE 57014, 55P03 or pg-pool's timeout, which the gateway answers 503 `unavailable` with Retry-After. Work
 * that may take longer says so itself (`SET LOCAL statement_timeout`: an account's erasure, migrations).
 */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { acquireMs: 10_000, statementMs: 15_000, lockMs: 5_000, idleInTransactionMs: 60_000 };

/**
 * One pool per process, shared by Prisma (through @prisma/adapter-pg) and raw SQL. `timeouts` default to
 * DEFAULT_DATABASE_TIMEOUTS; `false` sets none (the operator's CLI, whose commands may run long on purpose).
 */
export function createDatabase(databaseUrl: string, options: { max?: number; applicationName?: string; timeouts?: Partial<DatabaseTimeouts> | false } = {}): Database {
  const timeouts = options.timeouts === false ? null : { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts };
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'hashwatch',
    ...(timeouts
      ? {
          connectionTimeoutMillis: timeouts.acquireMs,
          statement_timeout: timeouts.statementMs,
          lock_timeout: timeouts.lockMs,
          idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
        }
      : {}),
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
