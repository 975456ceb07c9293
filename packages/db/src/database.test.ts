import { useTestEnvironment } from '@hashwatch/testing';
import { createDatabase } from './database';

describe('createDatabase', () => {
  const env = useTestEnvironment();

  it('survives the server ending a checked-out connection: the holder gets an error, the pool a new connection', async () => {
    const db = createDatabase(env.database.url, { max: 2 });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      // Held as a scan claim holds it while X answers: checked out, no query running.
      const held = await db.pool.connect();
      const { rows } = await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await env.database.db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await new Promise((resolve) => setTimeout(resolve, 300));

      expect(uncaught).toEqual([]);
      await expect(held.query('SELECT 1')).rejects.toThrow();
      held.release();
      const { rows: fresh } = await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(fresh[0]!.pid).not.toBe(rows[0]!.pid);
    } finally {
      process.off('uncaughtException', onUncaught);
      await db.close();
    }
  });
});
