import type pg from 'pg';
import { eraseSource } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { newId } from '@hashwatch/secrets';
import { iso } from '../../http/time';
import { assertEngagementRoom, lockAccountLimits } from '../sources/source-limits';
import type { EngagementFlagsPatch } from '../sources/engagement-flags.schema';
import { updateSourceFlags, type SourceTable } from '../sources/source-table';
import type { CreateTrack, TrackBody } from './tracks.schema';

interface TrackRow {
  id: string;
  hashtag: string;
  lang: string | null;
  exclude_retweets: boolean;
  track_engagement: boolean;
  track_likes: boolean;
  track_reposts: boolean;
  track_comments: boolean;
  status: 'active';
  created_at: Date;
  last_scanned_at: Date | null;
  last_post_at: Date | null;
  scan_error: string | null;
}

const COLUMNS = `id, hashtag, lang, exclude_retweets, track_engagement, track_likes, track_reposts, track_comments,
  status, created_at, last_scanned_at, last_post_at, scan_error`;

const SOURCE: SourceTable = { table: 'tracks', columns: COLUMNS, noun: 'track' };

function toBody(row: TrackRow): TrackBody {
  return { ...row, created_at: iso(row.created_at), last_scanned_at: iso(row.last_scanned_at), last_post_at: iso(row.last_post_at) };
}

function describe(hashtag: string, lang: string | null | undefined): string {
  return `#${hashtag}${lang ? ` (lang ${lang})` : ''}`;
}

export async function listTracks(pool: pg.Pool, userId: string): Promise<TrackBody[]> {
  const { rows } = await pool.query<TrackRow>(`SELECT ${COLUMNS} FROM tracks WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  return rows.map(toBody);
}

export async function createTrack(pool: pg.Pool, userId: string, input: CreateTrack, now: Date): Promise<TrackBody> {
  return transaction(pool, async (client) => {
    const limits = await lockAccountLimits(client, userId);
    const norm = input.hashtag.toLowerCase();
    const lang = input.lang ?? null;
    const duplicate = await client.query('SELECT 1 FROM tracks WHERE user_id = $1 AND hashtag_norm = $2 AND COALESCE(lang, \'\') = COALESCE($3, \'\')', [userId, norm, lang]);
    if (duplicate.rowCount) throw new AppError('already_exists', `${describe(input.hashtag, lang)} is already tracked`);
    const { rows: counted } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM tracks WHERE user_id = $1', [userId]);
    const used = counted[0]?.n ?? 0;
    if (used >= limits.hashtagsLimit) {
      throw new AppError('plan_limit_reached', `the plan allows ${limits.hashtagsLimit} hashtags and ${used} are tracked`);
    }
    if (input.track_engagement) await assertEngagementRoom(client, userId, limits);
    const { rows } = await client.query<TrackRow>(
      `INSERT INTO tracks (id, user_id, hashtag, hashtag_norm, lang, exclude_retweets, track_engagement, track_likes,
                           track_reposts, track_comments, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
      [newId('trk'), userId, input.hashtag, norm, lang, input.exclude_retweets ?? true, input.track_engagement ?? false,
        input.track_likes ?? true, input.track_reposts ?? true, input.track_comments ?? true, now],
    );
    return toBody(rows[0] as TrackRow);
  });
}

export async function updateTrackFlags(pool: pg.Pool, userId: string, id: string, patch: EngagementFlagsPatch): Promise<TrackBody> {
  return toBody(await updateSourceFlags<TrackRow>(pool, SOURCE, userId, id, patch));
}

export async function deleteTrack(pool: pg.Pool, userId: string, id: string): Promise<void> {
  // With its scan cursor and stored posts when nothing else needs them, erased before the request answers.
  if (!(await eraseSource(pool, SOURCE.table, userId, id))) throw new AppError('not_found', `no ${SOURCE.noun} ${id}`);
}
