import type pg from 'pg';
import { isPgError, PgErrorCode, transaction } from '@hashwatch/db';
import { eraseFromOutbox } from '@hashwatch/outbox';

/**
 * First key of the per-source advisory locks, `pg_advisory_xact_lock(SOURCE_LOCK_CLASS, hashtext(source_key))`: an
 * erasure holds the lock of each source it deletes until it commits, and the scanner's source sync writes a cursor
 * only under that source's lock (try, never wait: apps/scanner/src/sources/sync-sources.ts), so a sync that read a
 * track just before the erasure cannot write that track's cursor back after the erasure removed it. Erasures of
 * other sources, and the sync of every other source, never wait for it. No other lock of Hashwatch uses this first
 * key (apps/scanner/src/sources/lock-keys.ts lists the scanner's).
 */
export const SOURCE_LOCK_CLASS = 0x5caa;

/**
 * SQL: takes the per-source lock of every key of the text array `keys` (a parameter such as `$2`), in the order of
 * the lock ids, so two erasures never take two locks in opposite orders. Waits at most the session's lock_timeout.
 */
export const LOCK_SOURCES_SQL = (keys: string): string =>
  `SELECT count(pg_advisory_xact_lock(${SOURCE_LOCK_CLASS}, l.id))::int AS locked FROM (SELECT DISTINCT hashtext(k) AS id FROM unnest(${keys}::text[]) AS k ORDER BY 1) l`;

/** What an erasure removed that lives on outside PostgreSQL (Redis keys are named after these). */
export interface ErasedAccount {
  accountId: string;
  /** Its email, lower-cased: the sign-in limits count failures under a hash of it. */
  email: string;
  channelIds: string[];
  /** x_posts ids removed with the account (no other account's feed held them). */
  postIds: string[];
  /** Every per-minute cap its keys may have been counted under: its own and each plan's. */
  rateLimits: number[];
}

/** A source of an account, as a DELETE names it. */
export type SourceTableName = 'tracks' | 'account_tracks';

// A deadlock with a feed writer aborts the erasure, which nothing of has committed: it is run again.
const ERASE_ATTEMPTS = 3;

const ACCOUNT_SOURCES = `
SELECT ARRAY(SELECT DISTINCT hashtag_norm FROM tracks WHERE user_id = $1 ORDER BY 1) AS tags,
       ARRAY(SELECT DISTINCT username_norm FROM account_tracks WHERE user_id = $1 ORDER BY 1) AS users`;

// Lock order, the scanner's (apps/scanner/src/storing/store-pack.ts): source_cursors rows, tracks and account
// tracks rows, usage_periods rows. A scanner transaction storing for the account either commits before these
// locks are granted (and what it stored is erased below) or waits behind them and finds the account's sources
// gone when it checks them again under its usage lock.
const LOCK_CURSORS = `SELECT source_key FROM source_cursors WHERE source_key = ANY($1::text[]) ORDER BY source_key FOR UPDATE`;
const LOCK_USAGE = `SELECT 1 FROM usage_periods WHERE user_id = $1 ORDER BY period_start FOR UPDATE`;

const ACCOUNT_REFERENCES = `
SELECT ARRAY(SELECT DISTINCT x_post_id FROM feed_items WHERE user_id = $1) AS post_ids,
       ARRAY(SELECT id FROM notification_channels WHERE user_id = $1 ORDER BY id) AS channel_ids,
       (SELECT email FROM users WHERE id = $1) AS email,
       ARRAY(SELECT rate_limit_per_minute FROM users WHERE id = $1 UNION SELECT rate_limit_per_minute FROM plans) AS rate_limits`;

// The sources among `$1` (source keys) that no remaining track or account track watches lose their cursor and their
// x_post_sources rows; then the stored posts no feed item holds and no remaining source recorded go: those of `$2`
// (the erased items' posts) and those the gone sources recorded (matched but never stored in any feed: over a
// quota, or matched for a track deleted meanwhile), with their engagement state. Every lookup is by index; the rows
// x_post_sources holds for the posts deleted go with them (trigger x_posts_sources_delete). The sub-selects read
// the statement's snapshot, where the gone sources' rows are still there, hence `NOT IN gone`.
const ERASE_SHARED = `
WITH gone AS (
  SELECT k AS source_key FROM unnest($1::text[]) AS k
   WHERE NOT (k LIKE 'tag:%' AND EXISTS (SELECT 1 FROM tracks t WHERE t.hashtag_norm = substr(k, 5)))
     AND NOT (k LIKE 'user:%' AND EXISTS (SELECT 1 FROM account_tracks a WHERE a.username_norm = substr(k, 6)))
), cursors AS (
  DELETE FROM source_cursors c WHERE c.source_key IN (SELECT source_key FROM gone)
  RETURNING 1
), links AS (
  DELETE FROM x_post_sources l WHERE l.source_key IN (SELECT source_key FROM gone)
  RETURNING l.x_post_id
), candidates AS (
  SELECT unnest($2::text[]) AS id UNION SELECT x_post_id FROM links
), posts AS (
  DELETE FROM x_posts x USING candidates c
   WHERE x.id = c.id
     AND NOT EXISTS (SELECT 1 FROM feed_items f WHERE f.x_post_id = x.id)
     AND NOT EXISTS (SELECT 1 FROM x_post_sources l WHERE l.x_post_id = x.id AND l.source_key NOT IN (SELECT source_key FROM gone))
  RETURNING x.id
), states AS (
  DELETE FROM engagement_states s USING candidates c
   WHERE s.x_post_id = c.id
     AND (c.id IN (SELECT id FROM posts) OR (c.id = ANY($2::text[]) AND NOT EXISTS (SELECT 1 FROM feed_items f WHERE f.x_post_id = c.id)))
  RETURNING s.x_post_id
)
SELECT (SELECT count(*) FROM cursors)::int AS cursors,
       ARRAY(SELECT id FROM posts UNION SELECT x_post_id FROM states) AS post_ids`;

// An account's erasure deletes every row of it in one transaction (its feed may hold a million items): it may take
// longer than the sessions' statement_timeout (packages/db), which binds every other request.
const ERASE_ACCOUNT_STATEMENT_TIMEOUT = `SET LOCAL statement_timeout = '300s'`;

interface SourceSets {
  tags: string[];
  users: string[];
}

interface Shared {
  cursors: number;
  postIds: string[];
}

async function withDeadlockRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!isPgError(error, PgErrorCode.deadlockDetected) || attempt >= ERASE_ATTEMPTS) throw error;
    }
  }
}

function sourceKeys(sources: SourceSets): string[] {
  return [...sources.tags.map((tag) => `tag:${tag}`), ...sources.users.map((user) => `user:${user}`)].sort();
}

/** Takes the sources' locks and the rows a scanner transaction would take, in its order, for these sources. */
async function lockLikeTheScanner(client: pg.PoolClient, userId: string, sources: SourceSets, tracks: { table: SourceTableName; ids: string[] }[]): Promise<void> {
  await client.query(LOCK_SOURCES_SQL('$1'), [sourceKeys(sources)]);
  await client.query(LOCK_CURSORS, [sourceKeys(sources)]);
  for (const { table, ids } of tracks) {
    await client.query(`SELECT id FROM ${table} WHERE user_id = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE`, [userId, ids]);
  }
  await client.query(LOCK_USAGE, [userId]);
}

async function eraseShared(client: pg.PoolClient, sources: SourceSets, postIds: readonly string[]): Promise<Shared> {
  const { rows } = await client.query<{ cursors: number; post_ids: string[] }>(ERASE_SHARED, [sourceKeys(sources), postIds]);
  return { cursors: rows[0]?.cursors ?? 0, postIds: rows[0]?.post_ids ?? [] };
}

/**
 * Erases the account and, in the same transaction, every row that holds its data or that only it needed, so
 * nothing of it is left once `DELETE /me` answers: its own rows go with the account row (foreign keys); then the
 * scan cursors of its sources that no other track needs, the stored posts and engagement states no other
 * account's feed holds, and its jobs still in the outbox. Returns what to clear outside PostgreSQL (see
 * eraseAccountKeys), or null for an unknown account.
 *
 * With `pendingBefore`, erases the account only if it is still a `pending` checkout untouched since that instant:
 * created and last checked out (a new checkout of a pending email reuses its account and sets `updated_at`) before
 * it, and no checkout row since. The check is made on the account row as the erasure deletes it, so a payment or a
 * new checkout committed meanwhile keeps the account (null, nothing erased).
 */
/**
 * SQL: `table`'s account is a `pending` checkout untouched since `since` — created and last updated before it, with
 * no checkout started since (a provider's checkout page lives a day at most, so none of it can still be paid).
 */
export const UNPAID_SINCE = (table: string, since: string): string =>
  `${table}.subscription_status = 'pending' AND ${table}.created_at < ${since}::timestamptz AND ${table}.updated_at < ${since}::timestamptz`
  + ` AND NOT EXISTS (SELECT 1 FROM checkouts c WHERE c.user_id = ${table}.id AND c.created_at >= ${since}::timestamptz)`;

export async function eraseAccount(pool: pg.Pool, accountId: string, options: { pendingBefore?: Date } = {}): Promise<ErasedAccount | null> {
  return withDeadlockRetry(() =>
    transaction(pool, async (client) => {
      await client.query(ERASE_ACCOUNT_STATEMENT_TIMEOUT);
      const { rows: found } = await client.query<{ tags: string[]; users: string[] }>(ACCOUNT_SOURCES, [accountId]);
      const sources: SourceSets = { tags: found[0]?.tags ?? [], users: found[0]?.users ?? [] };
      const { rows: trackIds } = await client.query<{ tracks: string[]; accounts: string[] }>(
        'SELECT ARRAY(SELECT id FROM tracks WHERE user_id = $1) AS tracks, ARRAY(SELECT id FROM account_tracks WHERE user_id = $1) AS accounts',
        [accountId],
      );
      await lockLikeTheScanner(client, accountId, sources, [
        { table: 'tracks', ids: trackIds[0]?.tracks ?? [] },
        { table: 'account_tracks', ids: trackIds[0]?.accounts ?? [] },
      ]);
      // Read again under the locks: a source added meanwhile is erased too.
      const { rows: locked } = await client.query<{ tags: string[]; users: string[] }>(ACCOUNT_SOURCES, [accountId]);
      const all: SourceSets = {
        tags: [...new Set([...sources.tags, ...(locked[0]?.tags ?? [])])],
        users: [...new Set([...sources.users, ...(locked[0]?.users ?? [])])],
      };
      // Their locks too, so no sync writes a cursor of theirs back (those held already are taken again for free).
      if (all.tags.length + all.users.length > sources.tags.length + sources.users.length) await client.query(LOCK_SOURCES_SQL('$1'), [sourceKeys(all)]);
      const { rows: refs } = await client.query<{ post_ids: string[]; channel_ids: string[]; email: string; rate_limits: number[] }>(ACCOUNT_REFERENCES, [accountId]);
      const { rowCount } = await client.query(
        `DELETE FROM users WHERE id = $1 AND ($2::timestamptz IS NULL OR (${UNPAID_SINCE('users', '$2')}))`,
        [accountId, options.pendingBefore ?? null],
      );
      if (!rowCount) return null;
      const shared = await eraseShared(client, all, refs[0]?.post_ids ?? []);
      const erased: ErasedAccount = {
        accountId,
        channelIds: refs[0]?.channel_ids ?? [],
        email: refs[0]?.email ?? '',
        postIds: shared.postIds,
        rateLimits: refs[0]?.rate_limits ?? [],
      };
      await eraseFromOutbox(client, { userId: accountId, channelIds: erased.channelIds, postIds: erased.postIds });
      return erased;
    }),
  );
}

/**
 * Deletes one track or account track of the account and what only it needed: its scan cursor when no other
 * track watches the source, and the posts it matched that no feed holds. The account's feed items stay (they
 * are its history). False when the account has no such source.
 */
export async function eraseSource(
  pool: pg.Pool,
  table: SourceTableName,
  userId: string,
  id: string,
  /** Runs in the same transaction once the source is gone, with its label (`#tag` or `@user`). */
  onErased?: (client: pg.PoolClient, source: string) => Promise<unknown>,
): Promise<boolean> {
  return withDeadlockRetry(() =>
    transaction(pool, async (client) => {
      const column = table === 'tracks' ? 'hashtag_norm' : 'username_norm';
      const { rows } = await client.query<{ norm: string }>(`SELECT ${column} AS norm FROM ${table} WHERE id = $1 AND user_id = $2`, [id, userId]);
      const norm = rows[0]?.norm;
      if (norm === undefined) return false;
      const sources: SourceSets = table === 'tracks' ? { tags: [norm], users: [] } : { tags: [], users: [norm] };
      await lockLikeTheScanner(client, userId, sources, [{ table, ids: [id] }]);
      const { rowCount } = await client.query(`DELETE FROM ${table} WHERE id = $1 AND user_id = $2`, [id, userId]);
      if (!rowCount) return false;
      await eraseShared(client, sources, []);
      await onErased?.(client, `${table === 'tracks' ? '#' : '@'}${norm}`);
      return true;
    }),
  );
}
