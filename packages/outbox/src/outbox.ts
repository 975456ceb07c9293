import type pg from 'pg';
import { transaction } from '@hashwatch/db';
import { enqueueBulk, parseJobPayload, type JobName, type JobPayload, type QueueName, type Queues } from '@hashwatch/queues';

/**
 * A job to hand to BullMQ once the transaction that wrote it commits, typed by the queue catalog of
 * @hashwatch/queues: `queue` and `name` are a pair the catalog declares and `payload` is that job's payload, so
 * an entry the catalog does not know does not compile. `OutboxEntry<'alert-routing', 'route-alerts'>` is one job's.
 */
export type OutboxEntry<Q extends QueueName = QueueName, J extends string = string> = {
  [Queue in Q]: {
    [Job in JobName<Queue> & J]: {
      queue: Queue;
      name: Job;
      /** Deterministic: BullMQ drops a second add with the same id, so relaying twice is harmless. */
      jobId: string;
      payload: JobPayload<Queue, Job>;
    };
  }[JobName<Queue> & J];
}[Q];

/** A job as an outbox row holds it, read back by the relay: checked against the catalog only as it is added. */
interface StoredJob {
  queue: string;
  name: string;
  jobId: string;
  payload: unknown;
}

/** What {@link writeOutboxBatch} wrote: relay it with {@link relayWritten} once the transaction commits. */
export interface WrittenOutbox {
  /** outbox_jobs ids of the rows written (as text: bigint). */
  rowIds: string[];
  entries: readonly OutboxEntry[];
  /** The rows' summed `weight`, as PostgreSQL computed it: jobs counted as for `maxJobs`. */
  weight: number;
}

export interface RelayOptions {
  /** Outbox rows claimed at once (a batch row counts as one). Default 500. */
  batchSize?: number;
  /**
   * Jobs one relay run hands over at most, counting each job of a batch row, and a batch job (a payload with an
   * `items` list, such as route-alerts) once per item it carries: rows are taken oldest first while their jobs
   * fit. A single row holding more goes alone, so no row is ever stuck. Default 5,000.
   */
  maxJobs?: number;
  /**
   * How long the adds of up to 5,000 jobs (counted as for `maxJobs`) may take before the relay gives up, leaving
   * its rows; a larger set gets this much per 5,000 jobs begun. Default 5,000 ms.
   */
  enqueueTimeoutMs?: number;
  /** A job whose queue, name, id or payload no longer checks out: it is dropped, not retried forever. */
  onInvalid?: (jobId: string, error: Error) => void;
}

// A batch row holds a JSON array of these; a single job's payload is always an object, so the two never mix up.
interface BatchedJob {
  jobId: string;
  payload: unknown;
}

// Jobs per relay run, and per timeout span: about 0.4 s of Redis work (BENCHMARKS: ~25 ms per 300 jobs), so
// the 5 s default leaves ample room on a loaded machine. Without a cap one run after a Redis outage took 500
// scanner rows of thousands of jobs each, and its adds outlived the timeout, so every later run sent them again.
// A batch job counts once per item it carries: its payload, and the work it asks of its consumer, grow with them.
// Each row's count is its `weight` column, which PostgreSQL computes from the payload for every writer
// (prisma/migrations/20261125200000_outbox_job_weight).
const JOBS_PER_RUN = 5000;

/**
 * Writes jobs in the caller's transaction, beside the rows they describe: they exist exactly when
 * those rows do, so a crash between commit and enqueue cannot lose an alert. One row per job.
 */
export async function writeOutbox(client: pg.PoolClient, entries: readonly OutboxEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await client.query(
    `INSERT INTO outbox_jobs (queue, name, job_id, payload)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[])`,
    [entries.map((e) => e.queue), entries.map((e) => e.name), entries.map((e) => e.jobId), entries.map((e) => JSON.stringify(e.payload))],
  );
}

/** An entry whose job id is `jobIdPrefix` followed by the number of its own outbox row. */
export type NumberedOutboxEntry = Omit<OutboxEntry, 'jobId'> & { jobIdPrefix: string };

/**
 * {@link writeOutbox} for a job that is asked for again and again (a manual redelivery, a cadence change):
 * BullMQ keeps a finished job for a while and ignores an add under its id, so every write needs a new job id,
 * while one row relayed twice must still add one job. Each entry's job id ends with its own row's number.
 * Returns the job ids written, in order.
 */
export async function writeNumberedOutbox(client: pg.PoolClient, entries: readonly NumberedOutboxEntry[]): Promise<string[]> {
  const statement = numberedOutboxStatement(entries);
  const { rows } = await client.query<{ job_id: string }>(statement.text, statement.values);
  return rows.map((row) => row.job_id);
}

/**
 * {@link writeNumberedOutbox}'s one statement, also for a writer whose transaction is not a pg client (a Prisma
 * batch transaction). The payloads are checked against the catalog here, before anything is written.
 */
export function numberedOutboxStatement(entries: readonly NumberedOutboxEntry[]): { text: string; values: [string] } {
  for (const entry of entries) parseJobPayload(entry.queue, entry.name, entry.payload);
  const rows = entries.map((entry) => ({ queue: entry.queue, name: entry.name, prefix: entry.jobIdPrefix, payload: entry.payload }));
  return {
    text: `INSERT INTO outbox_jobs (id, queue, name, job_id, payload)
SELECT n.id, n.e->>'queue', n.e->>'name', (n.e->>'prefix') || n.id, n.e->'payload'
  FROM (SELECT nextval(pg_get_serial_sequence('outbox_jobs', 'id')) AS id, t.e
          FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(e, ord) ORDER BY t.ord) n
RETURNING job_id`,
    values: [JSON.stringify(rows)],
  };
}

/**
 * A data-modifying statement of the caller's, its parameters numbered from $1; `also`, more data-modifying
 * statements over the same parameters (PostgreSQL runs each as its own CTE: one cannot hold another's WITH).
 */
export interface AlongsideStatement {
  text: string;
  values: readonly unknown[];
  also?: readonly string[] | undefined;
  /** Common table expressions (`name AS (...)`, comma-separated) the statement reads, put first in the same WITH. */
  ctes?: string;
}

/** The CTEs running `alongside` (after the `ctes` it reads) and its `also` statements, for a statement that starts with them. */
function alongsideCtes(alongside: AlongsideStatement): string {
  const statements = [alongside.text, ...(alongside.also ?? [])].map((text, n) => `alongside${n === 0 ? '' : `_${n}`} AS (${text})`);
  return [...(alongside.ctes ? [alongside.ctes] : []), ...statements].join(',\n');
}

/**
 * {@link writeOutbox} for writers that hand over many jobs per transaction (the scanner stores thousands of
 * items in one): all the jobs of one queue and name go in a single row, whose payload is the JSON array of
 * `{jobId, payload}` and whose job_id is the first job's. The relay turns such a row back into one job each,
 * with the same ids and payloads, so consumers see no difference; the writer pays one row instead of one per job.
 * Batch jobs go in as they are: a row of route-alerts jobs (`routeAlertsJobs`, up to 500 items each) becomes
 * those few jobs, not one per item.
 *
 * `alongside` (and its `also` statements) runs in the same statement, as CTEs before the insert, to save the
 * writer a round trip; its parameters keep their numbers and the insert's follow them. It runs even when there
 * are no entries.
 */
export async function writeOutboxBatch(client: pg.PoolClient, entries: readonly OutboxEntry[], alongside?: AlongsideStatement): Promise<WrittenOutbox> {
  if (entries.length === 0 && !alongside) return { rowIds: [], entries, weight: 0 };
  const first = (alongside?.values.length ?? 0) + 1;
  const insert = `INSERT INTO outbox_jobs (queue, name, job_id, payload)
SELECT * FROM unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::text[], $${first + 3}::jsonb[])
RETURNING id::text AS id, weight`;
  const { rows } = await client.query<{ id: string; weight: number }>(alongside ? `WITH ${alongsideCtes(alongside)}\n${insert}` : insert, [
    ...(alongside?.values ?? []),
    ...batchValues(entries),
  ]);
  return { rowIds: rows.map((row) => row.id), entries, weight: rows.reduce((sum, row) => sum + row.weight, 0) };
}

/** The insert's four arrays: one row per queue and job name. */
function batchValues(entries: readonly StoredJob[]): [string[], string[], string[], string[]] {
  const groups = new Map<string, StoredJob[]>();
  for (const entry of entries) {
    const key = `${entry.queue}\u0000${entry.name}`;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  const rows = [...groups.values()];
  return [
    rows.map((group) => (group[0] as StoredJob).queue),
    rows.map((group) => (group[0] as StoredJob).name),
    rows.map((group) => (group[0] as StoredJob).jobId),
    rows.map((group) => JSON.stringify(group.map((entry): BatchedJob => ({ jobId: entry.jobId, payload: entry.payload })))),
  ];
}

/**
 * Adds the jobs to their queues (enqueueBulk: a MULTI per queue and 1,000 jobs), within the time allowed for
 * their rows' `weight`. A job that no longer checks out against the catalog is reported and skipped. Returns the
 * jobs handled (added or dropped).
 */
async function enqueueAll(queues: Queues, entries: readonly StoredJob[], weight: number, options: RelayOptions): Promise<number> {
  const records = entries.map((entry) => ({ queueName: entry.queue, jobName: entry.name, jobId: entry.jobId, payload: entry.payload }));
  const onInvalid = options.onInvalid;
  const adds = enqueueBulk(queues, records, onInvalid && ((record, error) => onInvalid(record.jobId, error)));
  const spans = Math.max(1, Math.ceil(weight / JOBS_PER_RUN));
  await withTimeout(adds, (options.enqueueTimeoutMs ?? 5000) * spans);
  return entries.length;
}

function entriesOf(row: { queue: string; name: string; job_id: string; payload: unknown }): StoredJob[] {
  if (!Array.isArray(row.payload)) return [{ queue: row.queue, name: row.name, jobId: row.job_id, payload: row.payload }];
  return (row.payload as BatchedJob[]).map((job) => ({ queue: row.queue, name: row.name, jobId: job.jobId, payload: job.payload }));
}

// Locks up to $1 rows (SKIP LOCKED: replicas take different rows) and returns those whose running job count
// (their `weight`: a batch job counts per item) stays within $2, and always the first. The rows past the cap
// stay locked only until this run commits.
const CLAIM_OUTBOX = `
WITH claimed AS (
  SELECT id, weight
    FROM outbox_jobs
   ORDER BY id
   LIMIT $1
     FOR UPDATE SKIP LOCKED
), counted AS (
  SELECT id, sum(weight) OVER (ORDER BY id) AS upto, row_number() OVER (ORDER BY id) AS n FROM claimed
)
SELECT o.id, o.queue, o.name, o.job_id, o.payload, o.weight
  FROM counted c JOIN outbox_jobs o ON o.id = c.id
 WHERE c.upto <= $2 OR c.n = 1
 ORDER BY o.id`;

/**
 * Moves outbox rows into their queues, oldest first: up to `batchSize` rows and `maxJobs` jobs. Rows are
 * claimed with SKIP LOCKED so replicas relay different rows, and deleted only in the transaction that
 * enqueued them: if Redis fails midway the rows stay and the next relay adds them again (the job ids make
 * that a no-op). A job whose payload no longer parses is dropped rather than blocking the rest. Returns jobs
 * relayed (a batch row counts for each of its jobs), 0 when the outbox is empty.
 */
export async function relayOutbox(pool: pg.Pool, queues: Queues, options: RelayOptions = {}): Promise<number> {
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string; queue: string; name: string; job_id: string; payload: unknown; weight: number }>(CLAIM_OUTBOX, [
      options.batchSize ?? 500,
      options.maxJobs ?? JOBS_PER_RUN,
    ]);
    if (rows.length === 0) return 0;
    const weight = rows.reduce((sum, row) => sum + row.weight, 0);
    const relayed = await enqueueAll(queues, rows.flatMap(entriesOf), weight, options);
    await client.query('DELETE FROM outbox_jobs WHERE id = ANY($1::bigint[])', [rows.map((row) => row.id)]);
    return relayed;
  });
}

/**
 * {@link relayOutbox} run after run, each its own transaction, until a run relays nothing or `maxRuns`
 * runs are done (a worker must not be held forever while producers keep writing). Every relay worker uses
 * it, so a backlog (after a Redis outage) drains at once rather than one capped run per tick.
 * Returns jobs relayed.
 */
export async function relayOutboxUntilEmpty(pool: pg.Pool, queues: Queues, options: RelayOptions & { maxRuns?: number } = {}): Promise<number> {
  let relayed = 0;
  for (let run = 0; run < (options.maxRuns ?? 100); run += 1) {
    const moved = await relayOutbox(pool, queues, options);
    if (moved === 0) break;
    relayed += moved;
  }
  return relayed;
}

/**
 * Relays, right after the commit, the rows this process just wrote with {@link writeOutboxBatch}: the jobs
 * are already in memory, so they go to Redis without reading the rows back, and the rows are deleted after.
 * If another relay (a replica's backstop) takes the same rows meanwhile, the job ids make the second add a
 * no-op; if this one fails, the rows stay for the backstop. Returns jobs relayed.
 */
export async function relayWritten(pool: pg.Pool, queues: Queues, written: WrittenOutbox, options: RelayOptions = {}): Promise<number> {
  if (written.rowIds.length === 0) return 0;
  const relayed = await enqueueAll(queues, written.entries, written.weight, options);
  await pool.query('DELETE FROM outbox_jobs WHERE id = ANY($1::bigint[])', [written.rowIds]);
  return relayed;
}

/** BullMQ waits for Redis indefinitely; the relay must give up and leave its rows for the next run. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`enqueue did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
