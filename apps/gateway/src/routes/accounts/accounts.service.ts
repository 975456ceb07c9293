import type pg from 'pg';
import { eraseSource } from '@hashwatch/accounts';
import { transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { newId } from '@hashwatch/secrets';
import { iso } from '../../http/time';
import { assertEngagementRoom, lockAccountLimits } from '../sources/source-limits';
import type { EngagementFlagsPatch } from '../sources/engagement-flags.schema';
import { updateSourceFlags, type SourceTable } from '../sources/source-table';
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

const SOURCE: SourceTable = { table: 'account_tracks', columns: COLUMNS, noun: 'account' };

function toBody(row: AccountTrackRow): AccountTrackBody {
  return { ...row, created_at: iso(row.created_at), last_scanned_at: iso(row.last_scanned_at), last_post_at: iso(row.last_post_at) };
}

export async function listAccountTracks(pool: pg.Pool, userId: string): Promise<AccountTrackBody[]> {
  const { rows } = await pool.query<AccountTrackRow>(`SELECT ${COLUMNS} FROM account_tracks WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  return rows.map(toBody);
}

export async function createAccountTrack(pool: pg.Pool, userId: string, input: CreateAccountTrack, now: Date): Promise<AccountTrackBody> {
  return transaction(pool, async (client) => {
    const limits = await lockAccountLimits(client, userId);
    const norm = input.username.toLowerCase();
    const duplicate = await client.query('SELECT 1 FROM account_tracks WHERE user_id = $1 AND username_norm = $2', [userId, norm]);
    if (duplicate.rowCount) throw new AppError('already_exists', `@${input.username} is already tracked`);
    const { rows: counted } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM account_tracks WHERE user_id = $1', [userId]);
    const used = counted[0]?.n ?? 0;
    if (used >= limits.accountsLimit) {
      throw new AppError('plan_limit_reached', `the plan allows ${limits.accountsLimit} accounts and ${used} are tracked`);
    }
    if (input.track_engagement) await assertEngagementRoom(client, userId, limits);
    const { rows } = await client.query<AccountTrackRow>(
      `INSERT INTO account_tracks (id, user_id, username, username_norm, exclude_replies, track_engagement, track_likes,
                                   track_reposts, track_comments, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
      [newId('acc'), userId, input.username, norm, input.exclude_replies ?? true, input.track_engagement ?? false,
        input.track_likes ?? true, input.track_reposts ?? true, input.track_comments ?? true, now],
    );
    return toBody(rows[0] as AccountTrackRow);
  });
}

export async function updateAccountTrackFlags(pool: pg.Pool, userId: string, id: string, patch: EngagementFlagsPatch): Promise<AccountTrackBody> {
  return toBody(await updateSourceFlags<AccountTrackRow>(pool, SOURCE, userId, id, patch));
}

export async function deleteAccountTrack(pool: pg.Pool, userId: string, id: string): Promise<void> {
  // With its scan cursor and stored posts when nothing else needs them, erased before the request answers.
  if (!(await eraseSource(pool, SOURCE.table, userId, id))) throw new AppError('not_found', `no ${SOURCE.noun} ${id}`);
}
