import { createTestDatabase } from '@hashwatch/testing';
import { createDatabase, DEFAULT_DATABASE_TIMEOUTS } from './database';
import { isPgError } from './transaction';

describe('the session bounds of every pool', () => {
  let url: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const created = await createTestDatabase({ empty: true });
    url = created.url;
    drop = created.drop;
    await created.db.close();
  });
  afterAll(() => drop());

  const show = async (db: ReturnType<typeof createDatabase>) => {
    const { rows } = await db.pool.query<{ statement: string; lock: string; idle: string }>(
      `SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock,
              current_setting('idle_in_transaction_session_timeout') AS idle`,
    );
    return rows[0];
  };

  it('sets statement_timeout, lock_timeout and idle_in_transaction_session_timeout on each connection, as PgBouncer does', async () => {
    const db = createDatabase(url, { max: 1 });
    try {
      expect(DEFAULT_DATABASE_TIMEOUTS).toEqual({ acquireMs: 10_000, statementMs: 15_000, lockMs: 5_000, idleInTransactionMs: 60_000 });
      expect(await show(db)).toEqual({ statement: '15s', lock: '5s', idle: '1min' });
    } finally {
      await db.close();
    }
    const unbounded = createDatabase(url, { max: 1, timeouts: false });
    try {
      expect(await show(unbounded)).toEqual({ statement: '0', lock: '0', idle: '0' });
    } finally {
      await unbounded.close();
    }
  });

  it('fails a statement, a lock wait and a wait for a pooled connection past their bounds instead of waiting on', async () => {
    const db = createDatabase(url, { max: 1, timeouts: { statementMs: 1_000, lockMs: 200, acquireMs: 300 } });
    const holder = createDatabase(url, { max: 1 });
    try {
      const slow = await db.pool.query('SELECT pg_sleep(3)').catch((error: unknown) => error);
      expect(isPgError(slow, '57014')).toBe(true);

      const held = await holder.pool.connect();
      await held.query('BEGIN; SELECT pg_advisory_xact_lock(4242)');
      const started = Date.now();
      const waited = await db.pool.query('SELECT pg_advisory_xact_lock(4242)').catch((error: unknown) => error);
      expect(isPgError(waited, '55P03')).toBe(true);
      expect(Date.now() - started).toBeLessThan(2_000);
      await held.query('ROLLBACK');
      held.release();

      const busy = await db.pool.connect();
      const acquire = await db.pool.query('SELECT 1').catch((error: unknown) => error);
      busy.release();
      expect(acquire).toBeInstanceOf(Error);
      expect((acquire as Error).message).toMatch(/timeout/i);
    } finally {
      await holder.close();
      await db.close();
    }
  });
});
