import type pg from 'pg';
import { transaction } from '@hashwatch/db';
import { AppError } from '@hashwatch/errors';
import { assertEngagementRoom, lockAccountLimits } from './source-limits';
import { flagAssignments, type EngagementFlagsPatch } from './engagement-flags.schema';

/** A table of sources (tracks or account tracks): what PATCH and DELETE need to know of it. */
export interface SourceTable {
  table: 'tracks' | 'account_tracks';
  /** The columns a row is read with, as a SELECT list. */
  columns: string;
  /** How a not_found message names the resource ("track", "account"). */
  noun: string;
}

/**
 * Applies a PATCH of the engagement flags to one source of the account, under the account row lock so
 * the engagement limit holds against concurrent toggles (403 plan_limit_reached past it). An empty patch
 * answers the source unchanged.
 */
export async function updateSourceFlags<Row extends { track_engagement: boolean }>(
  pool: pg.Pool,
  source: SourceTable,
  userId: string,
  id: string,
  patch: EngagementFlagsPatch,
): Promise<Row> {
  return transaction(pool, async (client) => {
    const limits = await lockAccountLimits(client, userId);
    const { rows: current } = await client.query<Row>(`SELECT ${source.columns} FROM ${source.table} WHERE id = $1 AND user_id = $2`, [id, userId]);
    const row = current[0];
    if (!row) throw new AppError('not_found', `no ${source.noun} ${id}`);
    if (patch.track_engagement === true && !row.track_engagement) await assertEngagementRoom(client, userId, limits);
    const set = flagAssignments(patch);
    if (!set.sql) return row;
    const { rows } = await client.query<Row>(
      `UPDATE ${source.table} SET ${set.sql} WHERE id = $1 AND user_id = $2 RETURNING ${source.columns}`,
      [id, userId, ...set.values],
    );
    return rows[0] as Row;
  });
}

/** Deletes one source of the account; another account's id is not_found, like an unknown one. */
export async function deleteSource(pool: pg.Pool, source: SourceTable, userId: string, id: string): Promise<void> {
  const { rowCount } = await pool.query(`DELETE FROM ${source.table} WHERE id = $1 AND user_id = $2`, [id, userId]);
  if (!rowCount) throw new AppError('not_found', `no ${source.noun} ${id}`);
}
