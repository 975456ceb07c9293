import type pg from 'pg';
import { transaction } from '@hashwatch/db';
import { enqueueRecord, type Queues } from '@hashwatch/queues';

/** A job to hand to BullMQ once the transaction that wrote it commits. */
export interface OutboxEntry {
  queue: string;
  name: string;
  /** Deterministic: BullMQ drops a second add with the same id, so relaying twice is harmless. */
  jobId: string;
  payload: Record<string, unknown>;
}

/**
 * Writes jobs in the caller's transaction, beside the rows they describe: they exist exactly when
 * those rows do, so a crash between commit and enqueue cannot lose an alert.
 */
export async function writeOutbox(client: pg.PoolClient, entries: readonly OutboxEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await client.query(
    `INSERT INTO outbox_jobs (queue, name, job_id, payload)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])`,
    [entries.map((e) => e.queue), entries.map((e) => e.name), entries.map((e) => e.jobId), entries.map((e) => JSON.stringify(e.payload))],
  );
}

/**
 * Moves up to `batchSize` outbox rows into their queues, oldest first. Rows are claimed with SKIP
 * LOCKED so replicas relay different rows, and deleted only in the transaction that enqueued them: if
 * Redis fails midway the rows stay and the next relay adds them again (the job ids make that a no-op).
 * A row whose payload no longer parses is dropped rather than blocking the rest. Returns rows relayed.
 */
export async function relayOutbox(pool: pg.Pool, queues: Queues, options: { batchSize?: number; enqueueTimeoutMs?: number; onInvalid?: (jobId: string, error: Error) => void } = {}): Promise<number> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string; queue: string; name: string; job_id: string; payload: Record<string, unknown> }>(
      `SELECT id, queue, name, job_id, payload FROM outbox_jobs ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [options.batchSize ?? 500],
    );
    if (rows.length === 0) return 0;
    await Promise.all(
      rows.map(async (row) => {
        try {
          await withTimeout(
            enqueueRecord(queues, { queueName: row.queue, jobName: row.name, payload: row.payload, jobId: row.job_id } as Parameters<typeof enqueueRecord>[1]),
            options.enqueueTimeoutMs ?? 5000,
          );
        } catch (error) {
          if ((error as Error).name === 'JobPayloadError' || (error as Error).name === 'UnknownJobError' || (error as Error).name === 'JobIdError') {
            options.onInvalid?.(row.job_id, error as Error);
            return;
          }
          throw error;
        }
      }),
    );
    await client.query('DELETE FROM outbox_jobs WHERE id = ANY($1::bigint[])', [rows.map((row) => row.id)]);
    return rows.length;
  });
}

/** BullMQ waits for Redis indefinitely; the relay must give up and leave its rows for the next run. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`enqueue did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
