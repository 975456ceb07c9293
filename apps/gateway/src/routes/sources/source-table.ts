import type pg from 'pg';
import { eraseSource } from '@hashwatch/accounts';
import { newId, transaction, type IdPrefix } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { resolveUntrackedSource } from '@hashwatch/notices';
import { iso } from '../../http/time';
import { assertEngagementRoom, lockAccountLimits, type SourceLimits } from './source-limits';
import { NO_FILTERS, readStoredFilters, type SourceFilters } from '@hashwatch/post-filters';
import { patchAssignments, type SourcePatch } from './source-fields.schema';

/** A table of sources (tracks or account tracks): what PATCH and DELETE need to know of it. */
export interface SourceTable {
  table: 'tracks' | 'account_tracks';
  /** The columns a row is read with, as a SELECT list. */
  columns: string;
  /** How a not_found message names the resource ("track", "account"). */
  noun: string;
}

/** The columns every source has after its own: filters, engagement flags, status, creation and scan health. */
export const SHARED_SOURCE_COLUMNS = 'filters, track_engagement, track_likes, track_reposts, track_comments, status, created_at, last_scanned_at, last_post_at, scan_error';

/** A source row as read with its SELECT list: its own columns, then the shared ones. */
export interface SourceRow {
  id: string;
  /** jsonb as stored: null for none. */
  filters: unknown;
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

/** A source row as the API answers it: times as ISO 8601 strings. */
export type SourceBody<Row extends SourceRow> = Omit<Row, 'filters' | 'created_at' | 'last_scanned_at' | 'last_post_at'> & {
  filters: SourceFilters;
  created_at: string;
  last_scanned_at: string | null;
  last_post_at: string | null;
};

export function sourceBody<Row extends SourceRow>(row: Row): SourceBody<Row> {
  return { ...row, filters: readStoredFilters(row.filters) ?? NO_FILTERS, created_at: iso(row.created_at), last_scanned_at: iso(row.last_scanned_at), last_post_at: iso(row.last_post_at) };
}

/** The account's sources of one table, oldest first. */
export async function listSources<Row extends SourceRow>(pool: pg.Pool, source: SourceTable, userId: string): Promise<Row[]> {
  const { rows } = await pool.query<Row>(`SELECT ${source.columns} FROM ${source.table} WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  return rows;
}

/**
 * Deletes one source of the account with its scan cursor and stored posts when nothing else needs them, erased
 * before the request answers, and resolves the account's open notices about it (no scan ends them any more);
 * another account's id is not_found, like an unknown one.
 */
export async function deleteSource(pool: pg.Pool, source: SourceTable, userId: string, id: string): Promise<void> {
  const erased = await eraseSource(pool, source.table, userId, id, (client, label) => resolveUntrackedSource(client, userId, label));
  if (!erased) throw new AppError('not_found', `no ${source.noun} ${id}`);
}

/** A new source: its own columns and values, how a duplicate is found, and the engagement flags asked for. */
export interface NewSource {
  /** The row's own columns beyond id, user_id, the engagement flags and created_at, with their values. */
  columns: Record<string, unknown>;
  /** A condition on `$2`, `$3`… (after the user id, `$1`) that an existing row of the same source meets. */
  duplicateWhere: string;
  duplicateValues: unknown[];
  /** How an already_exists message names the source ("#btc (lang en)", "@alice"). */
  label: string;
  flags: { track_engagement?: boolean | undefined; track_likes?: boolean | undefined; track_reposts?: boolean | undefined; track_comments?: boolean | undefined };
}

/** What creating a source of a table needs beyond {@link SourceTable}: its id prefix and its limit. */
export interface CreatableSourceTable extends SourceTable {
  idPrefix: IdPrefix;
  limit: { of: (limits: SourceLimits) => number; plural: string };
}

/**
 * Creates a source of the account under the account row lock, so concurrent creates are counted one after
 * another: never past the plan's limit of its kind nor, with engagement on, the engagement limit; never twice.
 */
export async function createSource<Row>(pool: pg.Pool, source: CreatableSourceTable, userId: string, input: NewSource, now: Date): Promise<Row> {
  return transaction(pool, async (client) => {
    const limits = await lockAccountLimits(client, userId);
    const duplicate = await client.query(`SELECT 1 FROM ${source.table} WHERE user_id = $1 AND ${input.duplicateWhere}`, [userId, ...input.duplicateValues]);
    if (duplicate.rowCount) throw new AppError('already_exists', `${input.label} is already tracked`);
    const { rows: counted } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${source.table} WHERE user_id = $1`, [userId]);
    const used = counted[0]?.n ?? 0;
    const limit = source.limit.of(limits);
    if (used >= limit) throw new AppError('plan_limit_reached', `the plan allows ${limit} ${source.limit.plural} and ${used} are tracked`);
    if (input.flags.track_engagement) await assertEngagementRoom(client, userId, limits);
    const columns = {
      id: newId(source.idPrefix),
      user_id: userId,
      ...input.columns,
      track_engagement: input.flags.track_engagement ?? false,
      track_likes: input.flags.track_likes ?? true,
      track_reposts: input.flags.track_reposts ?? true,
      track_comments: input.flags.track_comments ?? true,
      created_at: now,
    };
    const names = Object.keys(columns);
    const { rows } = await client.query<Row & object>(
      `INSERT INTO ${source.table} (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING ${source.columns}`,
      Object.values(columns),
    );
    return rows[0] as Row;
  });
}

/**
 * Applies a PATCH of the engagement flags and filters to one source of the account, under the account row lock
 * so the engagement limit holds against concurrent toggles (403 plan_limit_reached past it). An empty patch
 * answers the source unchanged. New filters apply to the posts the next scan stores.
 */
export async function updateSource<Row extends { track_engagement: boolean }>(
  pool: pg.Pool,
  source: SourceTable,
  userId: string,
  id: string,
  patch: SourcePatch,
): Promise<Row> {
  return transaction(pool, async (client) => {
    const limits = await lockAccountLimits(client, userId);
    const { rows: current } = await client.query<Row>(`SELECT ${source.columns} FROM ${source.table} WHERE id = $1 AND user_id = $2`, [id, userId]);
    const row = current[0];
    if (!row) throw new AppError('not_found', `no ${source.noun} ${id}`);
    if (patch.track_engagement === true && !row.track_engagement) await assertEngagementRoom(client, userId, limits);
    const set = patchAssignments(patch);
    if (!set.sql) return row;
    const { rows } = await client.query<Row>(
      `UPDATE ${source.table} SET ${set.sql} WHERE id = $1 AND user_id = $2 RETURNING ${source.columns}`,
      [id, userId, ...set.values],
    );
    return rows[0] as Row;
  });
}
