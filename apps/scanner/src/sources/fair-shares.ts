import type pg from 'pg';
import { transaction } from '@hashwatch/db';
import type { Logger } from '@hashwatch/logger';
import { STREAM_LIVE, STREAM_SERVED } from '../stream/coverage';
import { planFairShares, type ShareAccount } from './fair-share-plan';
import { SCANNER_LOCK_CLASS } from './lock-keys';
import { SERVED_USER } from './served-user';

/** Recent searches the scans may plan to spend, shared fairly between accounts (SCANNER_SEARCH_BUDGET). */
export interface SearchBudget {
  requests: number;
  windowSeconds: number;
}

/**
 * X's recent search allows an app 450 requests per 15 minutes; the engagement poller's reply samples take up to 150
 * of them (samples/sample-budget.ts), which leaves 300 for detection.
 */
export const DEFAULT_SEARCH_BUDGET: SearchBudget = { requests: 300, windowSeconds: 900 };

// The second key of the advisory lock that lets one replica at a time plan the shares (claims use positive ids,
// the source sync 0).
const FAIR_SHARE_LOCK_ID = -1;

// Every served account's active sources that recent search serves: a source the live filtered stream serves costs
// no search.
const SHARE_INPUT = `
SELECT u.id, u.plan_id, u.scan_interval_seconds, array_agg(w.source_key ORDER BY w.source_key) AS sources
  FROM (SELECT t.user_id, 'tag:' || t.hashtag_norm AS source_key FROM tracks t WHERE t.status = 'active'
        UNION
        SELECT a.user_id, 'user:' || a.username_norm FROM account_tracks a WHERE a.status = 'active') w
  JOIN users u ON u.id = w.user_id
 WHERE ${SERVED_USER}
   AND NOT EXISTS (SELECT 1 FROM source_cursors c WHERE c.source_key = w.source_key AND ${STREAM_SERVED('c')} AND ${STREAM_LIVE})
 GROUP BY u.id`;

// The sources whose queries hold more than their terms (filter operators, a handle's mentions), as the sync wrote them.
const SHAPED_SOURCES = `SELECT source_key, query_operators, with_mentions FROM source_cursors WHERE cardinality(query_operators) > 0 OR with_mentions`;

// Writes the stretched accounts (rows change only when a stretch does) and removes every other row.
const SAVE_SHARES = `
WITH planned AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::float8[], $4::float8[]) AS p(user_id, stretch, demand_per_hour, share_per_hour)
), saved AS (
  INSERT INTO scan_shares AS s (user_id, stretch, demand_per_hour, share_per_hour)
  SELECT p.user_id, p.stretch, p.demand_per_hour, p.share_per_hour FROM planned p JOIN users u ON u.id = p.user_id
   ORDER BY p.user_id
  ON CONFLICT (user_id) DO UPDATE
     SET stretch = EXCLUDED.stretch, demand_per_hour = EXCLUDED.demand_per_hour, share_per_hour = EXCLUDED.share_per_hour, updated_at = now()
   WHERE s.stretch <> EXCLUDED.stretch
  RETURNING s.user_id
), cleared AS (
  DELETE FROM scan_shares s WHERE s.user_id <> ALL($1::text[]) RETURNING s.user_id
)
SELECT (SELECT count(*) FROM saved)::int AS changed, (SELECT count(*) FROM cleared)::int AS cleared`;

export interface FairShareResult {
  /** False when another replica was planning at that moment. */
  ran: boolean;
  /** Accounts scanning slower than their plan's interval, with their stretch. */
  stretched: Map<string, number>;
  changed: number;
}

/**
 * Plans every served account's share of the search budget (fair-share-plan.ts) and stores the stretched ones, which
 * the source sync reads: a source scans at the fastest of its trackers' stretched intervals. One replica at a time.
 */
export async function refreshFairShares(pool: pg.Pool, budget: SearchBudget, maxQueryLength: number, logger: Logger): Promise<FairShareResult> {
  return transaction(pool, async (client) => {
    const { rows: lock } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS ok', [SCANNER_LOCK_CLASS, FAIR_SHARE_LOCK_ID]);
    if (!lock[0]?.ok) return { ran: false, stretched: new Map(), changed: 0 };
    const { rows } = await client.query<{ id: string; plan_id: string; scan_interval_seconds: number; sources: string[] }>(SHARE_INPUT);
    const accounts: ShareAccount[] = rows.map((row) => ({ id: row.id, planId: row.plan_id, intervalSeconds: row.scan_interval_seconds, sources: row.sources }));
    const { rows: shaped } = await client.query<{ source_key: string; query_operators: string[]; with_mentions: boolean }>(SHAPED_SOURCES);
    const shapes = new Map(shaped.map((row) => [row.source_key, { operators: row.query_operators, mentions: row.with_mentions }]));
    const shares = planFairShares(accounts, budget.requests / budget.windowSeconds, maxQueryLength, shapes);
    const stretched = [...shares].filter(([, share]) => share.stretch > 1);
    const { rows: saved } = await client.query<{ changed: number; cleared: number }>(SAVE_SHARES, [
      stretched.map(([id]) => id),
      stretched.map(([, share]) => share.stretch),
      stretched.map(([, share]) => share.demand * 3600),
      stretched.map(([, share]) => share.share * 3600),
    ]);
    const changed = (saved[0]?.changed ?? 0) + (saved[0]?.cleared ?? 0);
    if (changed > 0) {
      logger.info('search budget shares changed', {
        stretched: stretched.map(([id, share]) => ({ account: id, stretch: share.stretch, demandPerHour: Math.round(share.demand * 3600), sharePerHour: Math.round(share.share * 3600) })),
        budgetPer15Min: Math.round((budget.requests / budget.windowSeconds) * 900),
      });
    }
    return { ran: true, stretched: new Map(stretched.map(([id, share]) => [id, share.stretch])), changed };
  });
}
