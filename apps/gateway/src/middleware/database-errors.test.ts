import pg from 'pg';
import { useTestEnvironment } from '@hashwatch/testing';
import { databaseUnavailable } from './database-errors';

async function caught(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the work to fail');
}

describe('databaseUnavailable', () => {
  const env = useTestEnvironment();

  it('answers 503 unavailable with Retry-After for a database that is away, overloaded or gave up waiting', async () => {
    const refused = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 1_000 });
    const statement = await caught(() => env.database.db.pool.query("SET statement_timeout = '20ms'; SELECT pg_sleep(1)"));
    await env.database.db.pool.query('RESET statement_timeout');
    const lockHolder = await env.database.db.pool.connect();
    try {
      await lockHolder.query('BEGIN');
      await lockHolder.query('LOCK TABLE plans IN ACCESS EXCLUSIVE MODE');
      const waiter = await env.database.db.pool.connect();
      const lock = await caught(() => waiter.query("BEGIN; SET LOCAL lock_timeout = '20ms'; SELECT * FROM plans"));
      await waiter.query('ROLLBACK');
      waiter.release();
      const errors = [await caught(() => refused.query('SELECT 1')), statement, lock];
      for (const error of errors) {
        const answer = databaseUnavailable(error);
        expect({ code: answer?.code, status: answer?.status, retry: answer?.details.retryAfterSeconds }).toEqual({ code: 'unavailable', status: 503, retry: 2 });
      }
      // Prisma wraps the driver's error: its own code for a pool that timed out, or the SQLSTATE underneath.
      expect(databaseUnavailable({ code: 'P2024', message: 'Timed out fetching a new connection from the connection pool' })?.status).toBe(503);
      expect(databaseUnavailable({ code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '57P01' } } } })?.status).toBe(503);
      expect(databaseUnavailable(new Error('x', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }))?.status).toBe(503);
    } finally {
      await lockHolder.query('ROLLBACK').catch(() => undefined);
      lockHolder.release();
      await refused.end();
    }
  });

  it('leaves every other error alone: a constraint, a syntax error, a defect of ours', async () => {
    const syntax = await caught(() => env.database.db.pool.query('SELEC 1'));
    const unique = await caught(() => env.database.db.pool.query("INSERT INTO plans SELECT * FROM plans WHERE id = 'starter'"));
    for (const error of [syntax, unique, new TypeError('undefined is not a function'), 'a string', null]) {
      expect(databaseUnavailable(error)).toBeUndefined();
    }
  });
});
