import type pg from 'pg';
import { eraseSource } from '@hashwatch/accounts';
import { AppError } from '@hashwatch/errors';
import { iso } from '../../http/time';
import type { EngagementFlagsPatch } from '../sources/engagement-flags.schema';
import { createSource, updateSourceFlags, type CreatableSourceTable } from '../sources/source-table';
import type { AccountTrackBody, CreateAccountTrack } from './accounts.schema';

interface AccountTrackRow {
  id: string;
  username: string;
  exclude_replies: boolean;
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

const COLUMNS = `id, username, exclude_replies, track_engagement, track_likes, track_reposts, track_comments,
  status, created_at, last_scanned_at, last_post_at, scan_error`;

const SOURCE: CreatableSourceTable = {
  table: 'account_tracks',
  columns: COLUMNS,
  noun: 'account',
  idPrefix: 'acc',
  limit: { of: (limits) => limits.accountsLimit, plural: 'accounts' },
};

function toBody(row: AccountTrackRow): AccountTrackBody {
  return { ...row, created_at: iso(row.created_at), last_scanned_at: iso(row.last_scanned_at), last_post_at: iso(row.last_post_at) };
}

export async function listAccountTracks(pool: pg.Pool, userId: string): Promise<AccountTrackBody[]> {
  const { rows } = await pool.query<AccountTrackRow>(`SELECT ${COLUMNS} FROM account_tracks WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  return rows.map(toBody);
}

export async function createAccountTrack(pool: pg.Pool, userId: string, input: CreateAccountTrack, now: Date): Promise<AccountTrackBody> {
  const norm = input.username.toLowerCase();
  const row = await createSource<AccountTrackRow>(pool, SOURCE, userId, {
    columns: { username: input.username, username_norm: norm, exclude_replies: input.exclude_replies ?? true },
    duplicateWhere: 'username_norm = $2',
    duplicateValues: [norm],
    label: `@${input.username}`,
    flags: input,
  }, now);
  return toBody(row);
}

export async function updateAccountTrackFlags(pool: pg.Pool, userId: string, id: string, patch: EngagementFlagsPatch): Promise<AccountTrackBody> {
  return toBody(await updateSourceFlags<AccountTrackRow>(pool, SOURCE, userId, id, patch));
}

export async function deleteAccountTrack(pool: pg.Pool, userId: string, id: string): Promise<void> {
  // With its scan cursor and stored posts when nothing else needs them, erased before the request answers.
  if (!(await eraseSource(pool, SOURCE.table, userId, id))) throw new AppError('not_found', `no ${SOURCE.noun} ${id}`);
}
