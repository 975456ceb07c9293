import type pg from 'pg';
import { eraseSource } from '@hashwatch/accounts';
import { AppError } from '@hashwatch/errors';
import { iso } from '../../http/time';
import type { EngagementFlagsPatch } from '../sources/engagement-flags.schema';
import { createSource, updateSourceFlags, type CreatableSourceTable } from '../sources/source-table';
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

const SOURCE: CreatableSourceTable = {
  table: 'tracks',
  columns: COLUMNS,
  noun: 'track',
  idPrefix: 'trk',
  limit: { of: (limits) => limits.hashtagsLimit, plural: 'hashtags' },
};

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
  const norm = input.hashtag.toLowerCase();
  const lang = input.lang ?? null;
  const row = await createSource<TrackRow>(pool, SOURCE, userId, {
    columns: { hashtag: input.hashtag, hashtag_norm: norm, lang, exclude_retweets: input.exclude_retweets ?? true },
    duplicateWhere: "hashtag_norm = $2 AND COALESCE(lang, '') = COALESCE($3, '')",
    duplicateValues: [norm, lang],
    label: describe(input.hashtag, lang),
    flags: input,
  }, now);
  return toBody(row);
}

export async function updateTrackFlags(pool: pg.Pool, userId: string, id: string, patch: EngagementFlagsPatch): Promise<TrackBody> {
  return toBody(await updateSourceFlags<TrackRow>(pool, SOURCE, userId, id, patch));
}

export async function deleteTrack(pool: pg.Pool, userId: string, id: string): Promise<void> {
  // With its scan cursor and stored posts when nothing else needs them, erased before the request answers.
  if (!(await eraseSource(pool, SOURCE.table, userId, id))) throw new AppError('not_found', `no ${SOURCE.noun} ${id}`);
}
