import type pg from 'pg';

/**
 * A migration whose first line is `-- hashwatch: no-transaction` (optionally `lock_timeout=<n>s`) runs outside a
 * transaction, one statement at a time, so it may build an index with `CREATE INDEX CONCURRENTLY` on a large table
 * without blocking its writers. Its statements are simple DDL, each ending with `;` at the end of a line (no
 * function bodies). Before each statement the session's `lock_timeout` is set (default 5 s): a statement that
 * cannot take its lock in that time fails the migration instead of queueing every writer of the table behind it.
 * It must be safe to run again after a failure (`IF NOT EXISTS` / `IF EXISTS`): an index a failed concurrent build
 * left invalid is dropped before the build is tried again.
 */
const MARKER = /^--\s*hashwatch:\s*no-transaction\b(.*)$/m;
const DEFAULT_LOCK_TIMEOUT_SECONDS = 5;
const CONCURRENT_INDEX = /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+IF\s+NOT\s+EXISTS\s+"?([A-Za-z0-9_]+)"?/i;

export interface NoTransactionPlan {
  lockTimeoutSeconds: number;
  statements: string[];
}

/** The plan of a no-transaction migration, or null for an ordinary one (run in one transaction). */
export function noTransactionPlan(sql: string): NoTransactionPlan | null {
  const firstLine = sql.split('\n', 1)[0] ?? '';
  const marker = MARKER.exec(firstLine);
  if (!marker) return null;
  const timeout = /lock_timeout=(\d{1,4})s\b/.exec(marker[1] ?? '');
  const statements = sql
    .split(/;[ \t]*(?:--[^\n]*)?\r?\n|;[ \t]*$/)
    .map((part) => part.split('\n').filter((line) => !/^\s*--/.test(line)).join('\n').trim())
    .filter((part) => part.length > 0);
  return { lockTimeoutSeconds: timeout ? Number(timeout[1]) : DEFAULT_LOCK_TIMEOUT_SECONDS, statements };
}

/** Runs a no-transaction migration's statements on `client` (a direct session, never a transaction pooler's). */
export async function runNoTransaction(client: pg.PoolClient, plan: NoTransactionPlan): Promise<void> {
  try {
    for (const statement of plan.statements) {
      await client.query(`SET lock_timeout = '${plan.lockTimeoutSeconds}s'`);
      const index = CONCURRENT_INDEX.exec(statement);
      if (index) {
        // A concurrent build that failed leaves its index behind, invalid; IF NOT EXISTS would then skip it for good.
        const { rows } = await client.query<{ invalid: boolean }>(
          `SELECT NOT i.indisvalid AS invalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE c.relname = $1 AND pg_table_is_visible(c.oid)`,
          [index[1]],
        );
        if (rows[0]?.invalid) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${index[1]}"`);
      }
      await client.query(statement);
    }
  } finally {
    await client.query('RESET lock_timeout').catch(() => undefined);
  }
}
