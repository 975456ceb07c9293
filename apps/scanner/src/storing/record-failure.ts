import type pg from 'pg';
import { transaction } from '@hashwatch/db';
import {
  XApiError,
  XAuthError,
  XInvalidRequestError,
  XInvalidResponseError,
  XRateLimitedError,
  XUnavailableError,
  XUsageCappedError,
} from '@hashwatch/x-api';
import { DEFAULT_SOURCE_NOTICE_SETTINGS, failingMessage, raiseSourceNotices, type SourceNoticeSettings } from '../notices/source-notices';
import type { Source } from '../sources/source';

/** Why a scan of some sources did not happen, and when to try again. */
export interface ScanFailure {
  /** Short, shown to the account as `scan_error` (no secrets: built from typed errors only). */
  reason: string;
  /** `retry_at`: at that instant (a rate-limit reset); `backoff`: 2^failures s, at most the interval or 60 s; `interval`: the normal cadence. */
  retry: { kind: 'at'; at: Date } | { kind: 'backoff' } | { kind: 'interval' };
  /** Counts as a failure in a row (rate limits do not: they say nothing about the source). */
  counts: boolean;
}

/** The failure a fetch or store error stands for. */
export function describeFailure(error: unknown): ScanFailure {
  if (error instanceof XRateLimitedError) {
    return { reason: `X rate limit: retrying at ${error.resetAt.toISOString()}`, retry: { kind: 'at', at: error.resetAt }, counts: false };
  }
  if (error instanceof XUnavailableError) {
    const reason =
      error.reason === 'timeout' ? 'X did not answer in time' : error.reason === 'network' ? 'X could not be reached' : `X answered ${error.status ?? 'an error'}`;
    return { reason, retry: { kind: 'backoff' }, counts: true };
  }
  if (error instanceof XUsageCappedError) return { reason: 'X usage cap reached', retry: { kind: 'backoff' }, counts: true };
  if (error instanceof XAuthError) return { reason: `X refused the credentials (${error.status ?? 'auth'})`, retry: { kind: 'backoff' }, counts: true };
  if (error instanceof XInvalidRequestError) return { reason: 'X refused the query', retry: { kind: 'interval' }, counts: true };
  if (error instanceof XInvalidResponseError) return { reason: 'X sent an unreadable answer', retry: { kind: 'backoff' }, counts: true };
  if (error instanceof XApiError) return { reason: `X error (${error.code})`, retry: { kind: 'backoff' }, counts: true };
  return { reason: 'internal error while storing posts', retry: { kind: 'backoff' }, counts: true };
}

// The cursor stays where it was: the failed cycle is simply redone at the next attempt.
const RECORD_FAILURE = `
WITH s AS (
  UPDATE source_cursors s
     SET last_error = $2,
         failures = s.failures + CASE WHEN $5 THEN 1 ELSE 0 END,
         next_scan_at = CASE $3
           WHEN 'at' THEN GREATEST($4::timestamptz, now())
           WHEN 'backoff' THEN now() + make_interval(secs => LEAST(s.interval_seconds, 60, power(2, LEAST(s.failures, 10))))
           ELSE now() + make_interval(secs => s.interval_seconds) END,
         claimed_by = CASE WHEN s.claimed_by = $8 THEN NULL ELSE s.claimed_by END,
         updated_at = now()
   WHERE s.source_key = ANY($1::text[])
  RETURNING s.source_key, s.failures
), t AS (
  UPDATE tracks SET scan_error = $2 WHERE hashtag_norm = ANY($6::text[]) AND scan_error IS DISTINCT FROM $2 RETURNING 1
), a AS (
  UPDATE account_tracks SET scan_error = $2 WHERE username_norm = ANY($7::text[]) AND scan_error IS DISTINCT FROM $2 RETURNING 1
)
SELECT s.source_key, s.failures FROM s WHERE $5 AND s.failures >= $9 ORDER BY s.source_key`;

/**
 * Records a failed scan on the sources (when to retry, failures in a row) and shows its reason as
 * `scan_error` on every track and account track watching them. A failure that counts and brings a source to
 * `failingCycles` failures in a row (or more) raises `source_failing` for every served account tracking it, in
 * the same transaction: one statement for the record, and one more only when some source reached the threshold.
 */
export async function recordFailure(
  pool: pg.Pool,
  sources: readonly Pick<Source, 'key' | 'kind' | 'name'>[],
  failure: ScanFailure,
  claimId: number,
  notices: SourceNoticeSettings = DEFAULT_SOURCE_NOTICE_SETTINGS,
): Promise<void> {
  if (sources.length === 0) return;
  const keys = sources.map((source) => source.key).sort();
  const tags = sources.filter((source) => source.kind === 'tag').map((source) => source.name);
  const users = sources.filter((source) => source.kind === 'user').map((source) => source.name);
  const at = failure.retry.kind === 'at' ? failure.retry.at.toISOString() : null;
  await transaction(pool, async (client) => {
    const { rows } = await client.query<{ source_key: string; failures: number }>(RECORD_FAILURE, [
      keys,
      failure.reason,
      failure.retry.kind,
      at,
      failure.counts,
      tags,
      users,
      claimId,
      notices.failingCycles,
    ]);
    if (rows.length === 0) return;
    const messages = new Map(rows.map((row) => [row.source_key, failingMessage(row.source_key, failure.reason, row.failures)]));
    await raiseSourceNotices(client, 'source_failing', messages, new Date(), notices.cooldownSeconds);
  });
}
