import type pg from 'pg';
import { AppError } from '@hashwatch/errors';

export interface SourceLimits {
  hashtagsLimit: number;
  accountsLimit: number;
  engagementLimit: number;
}

/**
 * Locks the account row for the rest of the transaction, so concurrent creates and engagement toggles
 * of one account are counted one after another: 20 parallel creates at the limit create exactly the limit.
 */
export async function lockAccountLimits(client: pg.PoolClient, userId: string): Promise<SourceLimits> {
  const { rows } = await client.query<{ hashtags_limit: number; accounts_limit: number; engagement_limit: number }>(
    'SELECT hashtags_limit, accounts_limit, engagement_limit FROM users WHERE id = $1 FOR UPDATE',
    [userId],
  );
  const row = rows[0];
  if (!row) throw new AppError('unauthorized', 'the account no longer exists');
  return { hashtagsLimit: row.hashtags_limit, accountsLimit: row.accounts_limit, engagementLimit: row.engagement_limit };
}

/** The engagement limit counts tracks and accounts with engagement on, combined. */
export async function countEngagedSources(client: pg.PoolClient, userId: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM tracks WHERE user_id = $1 AND track_engagement)::int
          + (SELECT count(*) FROM account_tracks WHERE user_id = $1 AND track_engagement)::int AS n`,
    [userId],
  );
  return rows[0]?.n ?? 0;
}

export async function assertEngagementRoom(client: pg.PoolClient, userId: string, limits: SourceLimits): Promise<void> {
  const engaged = await countEngagedSources(client, userId);
  if (engaged >= limits.engagementLimit) {
    throw new AppError(
      'plan_limit_reached',
      `the plan allows engagement tracking on ${limits.engagementLimit} sources (tracks and accounts together); ${engaged} already have it on`,
    );
  }
}
