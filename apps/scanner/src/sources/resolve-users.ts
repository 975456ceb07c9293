import type pg from 'pg';
import type { Logger } from '@hashwatch/logger';
import type { XClient } from '@hashwatch/x-api';
import type { SourceNoticeSettings } from '../notices/source-notices';
import { recordFailure } from '../storing/record-failure';
import type { ClaimedSource } from './claim-sources';
import { SERVED_USER } from './served-user';

export const USER_NOT_FOUND = 'user not found';
// A handle X did not know is looked up again after this long (it may be created or unsuspended).
const NOT_FOUND_RECHECK_MS = 10 * 60_000;
const LOOKUP_BATCH = 100;

const UNRESOLVED = `
SELECT DISTINCT a.username_norm FROM account_tracks a JOIN users u ON u.id = a.user_id
 WHERE a.username_norm = ANY($1::text[]) AND a.x_user_id IS NULL AND a.status = 'active' AND ${SERVED_USER}`;

const SET_USER_IDS = `
UPDATE account_tracks a SET x_user_id = v.id
  FROM unnest($1::text[], $2::text[]) AS v(norm, id)
 WHERE a.username_norm = v.norm AND a.x_user_id IS DISTINCT FROM v.id`;

/**
 * Looks up, once, the handles of account sources no one has resolved yet (GET /2/users/by, 100 a call), and
 * stores their X ids on the account tracks. A handle X does not know gets `scan_error` "user not found" and
 * is left out of queries until it is checked again 10 minutes later: a monitor must never watch a typo
 * silently (and its failures in a row raise `source_failing`). Returns the keys to leave out of this cycle. If the lookup fails the sources are scanned anyway.
 */
export async function resolveUsers(
  pool: pg.Pool,
  x: XClient,
  sources: readonly ClaimedSource[],
  claimId: number,
  log: Logger,
  now: () => number,
  notices?: SourceNoticeSettings,
): Promise<Set<string>> {
  const skip = new Set<string>();
  const candidates: ClaimedSource[] = [];
  for (const source of sources) {
    if (source.kind !== 'user') continue;
    if (source.lastError === USER_NOT_FOUND && now() - source.updatedAt.getTime() < NOT_FOUND_RECHECK_MS) skip.add(source.key);
    else candidates.push(source);
  }
  if (candidates.length === 0) return skip;

  const { rows } = await pool.query<{ username_norm: string }>(UNRESOLVED, [candidates.map((source) => source.name)]);
  const unresolved = new Set(rows.map((row) => row.username_norm));
  const lookups = candidates.filter((source) => unresolved.has(source.name));
  for (let start = 0; start < lookups.length; start += LOOKUP_BATCH) {
    const batch = lookups.slice(start, start + LOOKUP_BATCH);
    let found: Map<string, string>;
    try {
      const { users } = await x.usersByUsernames(batch.map((source) => source.name));
      found = new Map(users.map((user) => [user.username.toLowerCase(), user.id]));
    } catch (error) {
      log.warn('user lookup failed', { handles: batch.length, error });
      continue;
    }
    if (found.size > 0) await pool.query(SET_USER_IDS, [[...found.keys()], [...found.values()]]);
    const missing = batch.filter((source) => !found.has(source.name));
    if (missing.length > 0) {
      log.info('tracked handles unknown to X', { handles: missing.map((source) => source.name) });
      // Counts as a failed scan: a handle renamed, suspended or deleted raises `source_failing` after as many
      // look-ups (10 minutes apart) as any other failing source takes scans.
      await recordFailure(pool, missing, { reason: USER_NOT_FOUND, retry: { kind: 'interval' }, counts: true }, claimId, notices);
      for (const source of missing) skip.add(source.key);
    }
  }
  return skip;
}
