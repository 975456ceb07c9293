import type pg from 'pg';
import { createDatabase, type Database } from './database';

type DatabaseOptions = NonNullable<Parameters<typeof createDatabase>[1]>;

/** Where PostgreSQL is: `url` for statements and transactions, `directUrl` for sessions of their own. */
export interface DatabaseTarget {
  url: string;
  /** DATABASE_DIRECT_URL; unset or equal to `url` when `url` reaches PostgreSQL directly. */
  directUrl?: string | undefined;
}

/** The database target of an app's config (DATABASE_URL, DATABASE_DIRECT_URL). */
export function databaseTargetOf(config: { DATABASE_URL: string; DATABASE_DIRECT_URL?: string | undefined }): DatabaseTarget {
  return { url: config.DATABASE_URL, directUrl: config.DATABASE_DIRECT_URL };
}

/** Whether `url` goes through a transaction pooler: a direct URL is set and differs from it. */
export function isTransactionPooled(target: DatabaseTarget): boolean {
  return target.directUrl !== undefined && target.directUrl !== target.url;
}

// Pools on a transaction pooler, and the clients they hand out.
const pooled = new WeakSet<object>();

/**
 * A statement's name for `pg`, or none through a transaction pooler. A named statement is prepared once per server
 * connection and then only bound; PgBouncer in transaction mode (1.18, Debian's) hands each transaction any server
 * connection, where the name is unknown or already taken by another client's, so there every statement goes unnamed
 * (parsed each time). Spread it into the query config: `{ ...statementName(pool, 'hw-x'), text, values }`.
 */
export function statementName(queryable: pg.Pool | pg.PoolClient, name: string): { name?: string } {
  return pooled.has(queryable) ? {} : { name };
}

/** Marks a pool (and every client it hands out) as one on a transaction pooler: see statementName. */
export function markTransactionPooled(pool: pg.Pool): void {
  pooled.add(pool);
  pool.on('connect', (client) => pooled.add(client));
}

/** What an app opens: the database for its work, and a small pool of direct sessions (the same pool when direct). */
export interface Databases {
  db: Database;
  /**
   * Sessions of their own: session advisory locks held across statements (scan claims, the stream lease, back-fill
   * and compliance locks), migrations. `db.pool` itself when DATABASE_URL is direct.
   */
  direct: pg.Pool;
  close(): Promise<void>;
}

/** Opens DATABASE_URL, through a pooler or not, for an app that needs no session of its own. */
export function openDatabase(target: DatabaseTarget, options: DatabaseOptions = {}): Database {
  const db = createDatabase(target.url, options);
  if (isTransactionPooled(target)) markTransactionPooled(db.pool);
  return db;
}

/**
 * Opens DATABASE_URL (through a pooler or not) and, when it is pooled, a second pool of at most `directMax`
 * connections on DATABASE_DIRECT_URL for what needs a session.
 */
export function openDatabases(target: DatabaseTarget, options: DatabaseOptions & { directMax?: number } = {}): Databases {
  const { directMax, ...shared } = options;
  const db = openDatabase(target, shared);
  if (!isTransactionPooled(target)) return { db, direct: db.pool, close: () => db.close() };
  const direct = createDatabase(target.directUrl as string, { ...shared, max: directMax ?? 4 });
  return {
    db,
    direct: direct.pool,
    async close() {
      await Promise.all([db.close(), direct.close()]);
    },
  };
}
