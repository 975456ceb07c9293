import type pg from 'pg';

// Outbox rows (not yet relayed) whose payload names any of the needles.
const OUTBOX_ROWS = `
SELECT o.id, o.payload FROM outbox_jobs o
 WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS needle WHERE strpos(o.payload::text, needle) > 0)
 ORDER BY o.id
   FOR UPDATE`;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JobPayload = { [key: string]: Json };

/** The payload without what belongs to the erased account; null when nothing of the job is left. */
function cleanPayload(payload: JobPayload, gone: { userId: string; channels: Set<string>; posts: Set<string> }): JobPayload | null {
  if (payload.userId === gone.userId) return null;
  if (typeof payload.channelId === 'string' && gone.channels.has(payload.channelId)) return null;
  if (typeof payload.xPostId === 'string' && gone.posts.has(payload.xPostId)) return null;
  const items = payload.items;
  if (Array.isArray(items)) {
    const kept = items.filter((item) => !(typeof item === 'object' && item !== null && !Array.isArray(item) && item.userId === gone.userId));
    if (kept.length === 0) return null;
    if (kept.length !== items.length) return { ...payload, items: kept };
  }
  return payload;
}

/**
 * Part of erasing an account, in its transaction: removes from outbox rows every job (or route-alerts item) of the
 * account, of its channels and of the posts erased with it; a row left with no job is deleted. The relay claims
 * rows with FOR UPDATE SKIP LOCKED, so a row it holds is waited for and then found relayed and gone.
 */
export async function eraseFromOutbox(client: pg.PoolClient, erased: { userId: string; channelIds: readonly string[]; postIds: readonly string[] }): Promise<void> {
  const { userId, channelIds, postIds } = erased;
  const needles = [userId, ...channelIds, ...postIds];
  const { rows } = await client.query<{ id: string; payload: JobPayload | { jobId: string; payload: JobPayload }[] }>(OUTBOX_ROWS, [needles]);
  const gone = { userId, channels: new Set(channelIds), posts: new Set(postIds) };
  for (const row of rows) {
    let next: JobPayload | { jobId: string; payload: JobPayload }[] | null;
    let jobId: string | null = null;
    if (Array.isArray(row.payload)) {
      const jobs = row.payload.flatMap((job) => {
        const payload = cleanPayload(job.payload, gone);
        return payload ? [{ jobId: job.jobId, payload }] : [];
      });
      next = jobs.length > 0 ? jobs : null;
      jobId = jobs[0]?.jobId ?? null;
    } else {
      next = cleanPayload(row.payload, gone);
    }
    if (next === null) await client.query('DELETE FROM outbox_jobs WHERE id = $1', [row.id]);
    else if (JSON.stringify(next) !== JSON.stringify(row.payload)) {
      await client.query('UPDATE outbox_jobs SET payload = $2::jsonb, job_id = COALESCE($3, job_id) WHERE id = $1', [row.id, JSON.stringify(next), jobId]);
    }
  }
}

