import type pg from 'pg';
import { erasePostsDeletedOnX } from '@hashwatch/feed';
import type { Logger } from '@hashwatch/logger';
import { COMPLIANCE_MAX_IDS, type XClient, type XComplianceJob } from '@hashwatch/x-api';
import { SCANNER_LOCK_CLASS } from '../sources/lock-keys';

// X's batch compliance: the posts Hashwatch stores are sent to X in jobs of up to 100,000 ids, and X answers the
// ones it asks to remove (deleted on X, the author protected or suspended…). The engagement poller's lookups catch
// deletions of the posts it polls within their 48 hours; this catches the others, for as long as a post is kept.
//
// One run advances the one open job a step (upload, then results), or opens the next: X allows one job per app at
// a time, and the unique index `compliance_jobs_one_open_idx` keeps it so whichever replica runs. A session
// advisory lock makes replicas take turns; a run holds one pool connection and no transaction while X answers.

/** Second key of the compliance run's advisory lock (first: SCANNER_LOCK_CLASS); negative, so no scan claim has it. */
const COMPLIANCE_LOCK_ID = -2;

export interface ComplianceSettings {
  /** Ids per job. Default X's ceiling used here, 100,000. */
  maxIds: number;
  /** A post is checked again this long after its last check. Default 24 h. */
  recheckSeconds: number;
  /** A post is first checked this long after it was stored (its first hours are the poller's). Default 1 h. */
  minAgeSeconds: number;
}

export const DEFAULT_COMPLIANCE: ComplianceSettings = { maxIds: COMPLIANCE_MAX_IDS, recheckSeconds: 24 * 3600, minAgeSeconds: 3600 };

export type ComplianceStep =
  | { step: 'busy' }
  | { step: 'idle' }
  | { step: 'created'; jobId: string; posts: number }
  | { step: 'uploaded'; jobId: string; posts: number }
  | { step: 'waiting'; jobId: string; status: string }
  | { step: 'applied'; jobId: string; posts: number; events: number; erased: number }
  | { step: 'failed'; jobId: string; reason: string };

interface OpenJobRow {
  id: string;
  status: 'created' | 'uploaded';
  post_count: number;
  upload_url: string;
  upload_expires_at: Date | null;
  download_url: string;
}

const OPEN_JOB = `SELECT id, status, post_count, upload_url, upload_expires_at, download_url FROM compliance_jobs WHERE status IN ('created', 'uploaded')`;

const DUE_POSTS = `
SELECT id FROM x_posts
 WHERE deleted_at IS NULL AND compliance_job_id IS NULL
   AND (compliance_checked_at IS NULL OR compliance_checked_at < $1::timestamptz - make_interval(secs => $2))
   AND first_seen_at < $1::timestamptz - make_interval(secs => $3)
 ORDER BY compliance_checked_at NULLS FIRST, id
 LIMIT $4`;

const OPEN = `
WITH held AS (
  UPDATE x_posts SET compliance_job_id = $1 WHERE id = ANY ($6::text[]) AND compliance_job_id IS NULL AND deleted_at IS NULL
  RETURNING id
)
INSERT INTO compliance_jobs (id, status, post_count, upload_url, upload_expires_at, download_url, created_at)
SELECT $1, 'created', (SELECT count(*) FROM held), $2, $3, $4, $5
RETURNING post_count`;

const HELD_POSTS = `SELECT id FROM x_posts WHERE compliance_job_id = $1 ORDER BY id`;

// The job's posts are checked as of now (the erased ones too), and released.
const FINISH = `
WITH released AS (
  UPDATE x_posts SET compliance_job_id = NULL, compliance_checked_at = CASE WHEN $2 = 'complete' THEN $3::timestamptz ELSE compliance_checked_at END
   WHERE compliance_job_id = $1
  RETURNING 1
)
UPDATE compliance_jobs SET status = $2, finished_at = $3, erased = $4, error = $5 WHERE id = $1 AND status IN ('created', 'uploaded')`;

function toJob(row: OpenJobRow): XComplianceJob {
  return { id: row.id, status: row.status, uploadUrl: row.upload_url, uploadExpiresAt: row.upload_expires_at?.toISOString() ?? null, downloadUrl: row.download_url, downloadExpiresAt: null, createdAt: null };
}

async function finish(db: pg.PoolClient, jobId: string, status: 'complete' | 'failed', now: Date, erased: number, error: string | null): Promise<void> {
  await db.query('BEGIN');
  try {
    await db.query(FINISH, [jobId, status, now, erased, error]);
    await db.query('COMMIT');
  } catch (failure) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw failure;
  }
}

async function upload(db: pg.PoolClient, x: XClient, job: XComplianceJob, now: Date): Promise<ComplianceStep> {
  if (job.uploadExpiresAt !== null && Date.parse(job.uploadExpiresAt) <= now.getTime()) {
    await finish(db, job.id, 'failed', now, 0, 'the upload address expired before the ids were sent');
    return { step: 'failed', jobId: job.id, reason: 'upload expired' };
  }
  const { rows } = await db.query<{ id: string }>(HELD_POSTS, [job.id]);
  if (rows.length === 0) {
    // Every post of the job was deleted or erased meanwhile: nothing to ask X.
    await finish(db, job.id, 'failed', now, 0, 'no post left to check');
    return { step: 'failed', jobId: job.id, reason: 'no posts' };
  }
  await x.uploadComplianceIds(job, rows.map((row) => row.id));
  await db.query(`UPDATE compliance_jobs SET status = 'uploaded' WHERE id = $1 AND status = 'created'`, [job.id]);
  return { step: 'uploaded', jobId: job.id, posts: rows.length };
}

async function collect(db: pg.PoolClient, x: XClient, row: OpenJobRow, now: Date, logger: Logger): Promise<ComplianceStep> {
  const job = await x.complianceJob(row.id);
  if (job.status === 'failed' || job.status === 'expired') {
    await finish(db, row.id, 'failed', now, 0, `X answered the job ${job.status}`);
    return { step: 'failed', jobId: row.id, reason: job.status };
  }
  if (job.status !== 'complete') return { step: 'waiting', jobId: row.id, status: job.status };
  const results = await x.complianceResults(job);
  const held = new Set((await db.query<{ id: string }>(HELD_POSTS, [row.id])).rows.map((post) => post.id));
  // Every action X names today is `delete` (deleted, protected, suspended, scrub_geo, bounced): the content goes.
  const toErase = [...new Set(results.events.filter((event) => event.action === 'delete' && held.has(event.id)).map((event) => event.id))];
  await db.query('BEGIN');
  const erased = await erasePostsDeletedOnX(db, toErase, now).then(
    async ({ posts }) => {
      await db.query(FINISH, [row.id, 'complete', now, posts, null]);
      await db.query('COMMIT');
      return posts;
    },
    async (failure: unknown) => {
      await db.query('ROLLBACK').catch(() => undefined);
      throw failure;
    },
  );
  const reasons: Record<string, number> = {};
  for (const event of results.events) reasons[event.reason] = (reasons[event.reason] ?? 0) + 1;
  logger.info('x compliance job applied', { jobId: row.id, posts: held.size, events: results.events.length, erased, reasons, malformedLines: results.malformedLines });
  return { step: 'applied', jobId: row.id, posts: held.size, events: results.events.length, erased };
}

async function openNext(db: pg.PoolClient, x: XClient, now: Date, settings: ComplianceSettings): Promise<ComplianceStep> {
  const { rows } = await db.query<{ id: string }>(DUE_POSTS, [now, settings.recheckSeconds, settings.minAgeSeconds, settings.maxIds]);
  if (rows.length === 0) return { step: 'idle' };
  const job = await x.createComplianceJob(`hashwatch-${now.getTime()}`);
  const opened = await db.query<{ post_count: number }>(OPEN, [job.id, job.uploadUrl, job.uploadExpiresAt, job.downloadUrl, now, rows.map((row) => row.id)]);
  const posts = opened.rows[0]?.post_count ?? 0;
  // The upload follows at once; a crash in between leaves the job `created`, and the next run uploads it.
  const uploaded = await upload(db, x, { ...job, status: 'created' }, now);
  return uploaded.step === 'uploaded' ? uploaded : { step: 'created', jobId: job.id, posts };
}

/**
 * One step of X's batch compliance: upload the open job's ids, apply its results once X completed it (erasing what
 * X asks to remove), or open the next job for the posts due. Replicas take turns (a session advisory lock); one that
 * finds the lock held answers `busy`.
 */
export async function checkCompliance(pool: pg.Pool, x: XClient, logger: Logger, options: { now?: Date; settings?: Partial<ComplianceSettings> } = {}): Promise<ComplianceStep> {
  const settings = { ...DEFAULT_COMPLIANCE, ...options.settings };
  const now = options.now ?? new Date();
  const db = await pool.connect();
  let locked = false;
  try {
    locked = (await db.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [SCANNER_LOCK_CLASS, COMPLIANCE_LOCK_ID])).rows[0]?.locked === true;
    if (!locked) return { step: 'busy' };
    const open = (await db.query<OpenJobRow>(OPEN_JOB)).rows[0];
    if (!open) return await openNext(db, x, now, settings);
    if (open.status === 'created') return await upload(db, x, toJob(open), now);
    return await collect(db, x, open, now, logger);
  } finally {
    // A connection whose unlock failed still holds the lock: it is closed, not returned to the pool.
    const unlocked = !locked || (await db.query('SELECT pg_advisory_unlock($1, $2)', [SCANNER_LOCK_CLASS, COMPLIANCE_LOCK_ID]).then(() => true, () => false));
    db.release(!unlocked);
  }
}
