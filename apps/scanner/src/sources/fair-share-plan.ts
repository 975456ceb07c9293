import { planShareWeight } from '@hashwatch/plans';
import { packSources } from '../packing/pack-sources';
import { parseSourceKey, type Source } from './source';

/** The slowest an account is ever stretched to: 256 × its plan's interval. Beyond that the rate budget alone stops it. */
export const MAX_STRETCH = 256;

/** A served account and the sources it tracks. */
export interface ShareAccount {
  id: string;
  planId: string;
  intervalSeconds: number;
  /** Source keys (`tag:…`, `user:…`) of its active tracks that recent search serves. */
  sources: readonly string[];
}

/** What a source's query holds beyond its terms (the sync's operators, a handle's mentions): it weighs that much more in a pack. */
export type SourceShape = Pick<Source, 'operators' | 'mentions'>;

export interface AccountShare {
  /** Searches per second its sources ask for at its own cadence (each shared search split evenly between trackers). */
  demand: number;
  /** Searches per second it was given: its demand, or its weighted part of what the others left. */
  share: number;
  /** 1, or the power of two by which its interval is multiplied so that its demand fits its share. */
  stretch: number;
}

/**
 * Searches per second each source costs: the packed query serving it (sources packed as the scanner packs them, by
 * cadence, at the fastest tracker's interval) split evenly between the sources in it, once per interval. A source
 * too long for any query is never searched and costs nothing.
 */
function sourceCosts(accounts: readonly ShareAccount[], maxQueryLength: number, shapes: ReadonlyMap<string, SourceShape>): Map<string, number> {
  const intervals = new Map<string, number>();
  for (const account of accounts) {
    for (const key of account.sources) intervals.set(key, Math.min(intervals.get(key) ?? Infinity, account.intervalSeconds));
  }
  const sources: Source[] = [];
  for (const [key, intervalSeconds] of intervals) {
    const parsed = parseSourceKey(key);
    if (parsed) sources.push({ key, ...parsed, sinceId: null, notBefore: new Date(0), intervalSeconds, failures: 0, ...shapes.get(key) });
  }
  const costs = new Map<string, number>();
  for (const pack of packSources(sources, maxQueryLength).packs) {
    for (const source of pack.sources) costs.set(source.key, 1 / pack.sources.length);
  }
  return costs;
}

function powerOfTwoAtLeast(ratio: number): number {
  let stretch = 1;
  while (stretch < ratio && stretch < MAX_STRETCH) stretch *= 2;
  return stretch;
}

/**
 * Weighted max-min fair shares of `budgetPerSecond` recent searches. Each account's demand is what its sources
 * cost at its own interval, a shared source's query split evenly between its trackers. When the demands fit the
 * budget nobody is stretched. Otherwise water-filling: accounts in order of demand per weight take their demand
 * while it is within their weighted part of what is left, and the rest split the remainder by weight; an account
 * given less than it asks for scans at the smallest power-of-two multiple of its interval that fits (powers of
 * two keep every stretched cadence on its plan's grid and the number of cadences small).
 */
export function planFairShares(
  accounts: readonly ShareAccount[],
  budgetPerSecond: number,
  maxQueryLength: number,
  shapes: ReadonlyMap<string, SourceShape> = new Map(),
): Map<string, AccountShare> {
  const costs = sourceCosts(accounts, maxQueryLength, shapes);
  const trackers = new Map<string, number>();
  for (const account of accounts) for (const key of account.sources) trackers.set(key, (trackers.get(key) ?? 0) + 1);
  const demands = accounts.map((account) => ({
    account,
    weight: planShareWeight(account.planId),
    demand: account.sources.reduce((sum, key) => sum + (costs.get(key) ?? 0) / (trackers.get(key) ?? 1), 0) / account.intervalSeconds,
  }));
  const shares = new Map<string, AccountShare>();
  const total = demands.reduce((sum, entry) => sum + entry.demand, 0);
  if (total <= budgetPerSecond) {
    for (const entry of demands) shares.set(entry.account.id, { demand: entry.demand, share: entry.demand, stretch: 1 });
    return shares;
  }
  demands.sort((a, b) => a.demand / a.weight - b.demand / b.weight || a.account.id.localeCompare(b.account.id));
  let left = Math.max(0, budgetPerSecond);
  let weightLeft = demands.reduce((sum, entry) => sum + entry.weight, 0);
  for (const entry of demands) {
    const share = Math.min(entry.demand, (left * entry.weight) / weightLeft);
    left -= share;
    weightLeft -= entry.weight;
    const stretch = entry.demand <= share ? 1 : share > 0 ? powerOfTwoAtLeast(entry.demand / share) : MAX_STRETCH;
    shares.set(entry.account.id, { demand: entry.demand, share, stretch });
  }
  return shares;
}
