import type { SourceShare, UpstreamShares } from '@hashwatch/feed';
import type { Subscription } from '../matching/match-posts';
import type { Source } from '../sources/source';

/** Shares are whole millionths of a read or request: the scale of upstream_usage_by_source and upstream_posts_read. */
const UNITS_PER_ONE = 1_000_000;

/** `#tag` / `@user`: how a source is named in GET /v1/usage and feed items' `sources`. */
function sourceName(source: Pick<Source, 'kind' | 'name'>): string {
  return source.kind === 'tag' ? `#${source.name}` : `@${source.name}`;
}

/** Splits `total` units into `parts` whole shares that add up to it exactly: the first `total % parts` get one more. */
function split(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  const rest = total - base * parts;
  return Array.from({ length: parts }, (_, index) => base + (index < rest ? 1 : 0));
}

function decimal(units: number): string {
  return `${Math.floor(units / UNITS_PER_ONE)}.${String(units % UNITS_PER_ONE).padStart(6, '0')}`;
}

/**
 * Who pays for what X served a packed query (posts read and requests, whole numbers): split evenly across the
 * query's sources that served at least one account (in source key order), then each source's share evenly across
 * the accounts tracking it (in account id order), in whole millionths, each leftover millionth to the first in
 * that order, so every level adds up exactly to what X served. An account's reads are the sum of its sources'.
 * Null when nothing was served or no source served an account.
 */
export function upstreamShares(sources: readonly Source[], subscriptions: readonly Subscription[], served: { reads: number; requests: number }): UpstreamShares | null {
  if (served.reads <= 0 && served.requests <= 0) return null;
  const accountsOf = new Map<string, Set<string>>();
  for (const subscription of subscriptions) {
    const accounts = accountsOf.get(subscription.sourceKey) ?? new Set<string>();
    accounts.add(subscription.userId);
    accountsOf.set(subscription.sourceKey, accounts);
  }
  const paying = [...sources].filter((source) => (accountsOf.get(source.key)?.size ?? 0) > 0).sort((a, b) => (a.key < b.key ? -1 : 1));
  if (paying.length === 0) return null;
  const reads = split(Math.round(served.reads * UNITS_PER_ONE), paying.length);
  const requests = split(Math.round(served.requests * UNITS_PER_ONE), paying.length);
  const bySource: SourceShare[] = [];
  const readsByAccount = new Map<string, number>();
  paying.forEach((source, index) => {
    const accounts = [...(accountsOf.get(source.key) ?? [])].sort();
    const accountReads = split(reads[index] ?? 0, accounts.length);
    const accountRequests = split(requests[index] ?? 0, accounts.length);
    accounts.forEach((userId, n) => {
      const sourceReads = accountReads[n] ?? 0;
      bySource.push({ userId, source: sourceName(source), reads: decimal(sourceReads), requests: decimal(accountRequests[n] ?? 0) });
      readsByAccount.set(userId, (readsByAccount.get(userId) ?? 0) + sourceReads);
    });
  });
  return { readsByAccount: new Map([...readsByAccount].map(([userId, units]) => [userId, decimal(units)])), bySource };
}
